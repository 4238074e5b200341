// Package sql is Sluice's SQL dialect: a hand-written lexer, a
// recursive-descent parser producing an AST, and the compilation of SELECT
// into a plan (projections, a WHERE predicate with SQL's three-valued logic,
// a limit). Running statements against a catalog is catalog.Session's job;
// this package knows nothing of catalogs, connectors or frames.
//
// A batch is split on `;` outside quotes, back-quotes and comments (`--` to
// end of line, `/* … */`); blank statements are skipped and not counted.
// Keywords are case-insensitive, identifiers may be back-quoted, strings are
// single-quoted with ” for a quote (double quotes are accepted too, as in
// Spark). `SET k=v` takes the raw text after SET and splits it on the first
// `=`, so values may hold URLs and `{tokens}`; a value that is one quoted
// string is unquoted.
//
// Errors carry the statement number and the position in the whole batch:
//
//	stmts, err := sql.Parse("SET a=1;\nSELECT * FORM t")
//	// err: statement 2, line 2, column 10: expected FROM, found "FORM"
package sql
