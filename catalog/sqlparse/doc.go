// Package sqlparse is the front of Sluice's SQL dialect: a hand-written
// lexer and a recursive-descent parser that turn a batch of statements into
// syntax trees — DDL, SET, INSERT and the rest as this package's Statement
// types, a query as the syntax tree of package dataframe/query, which
// analyses, plans and runs it (see its package comment and
// docs/sql.md#how-a-query-runs). Running statements against a catalog is
// catalog.Session's job; this package knows nothing of catalogs,
// connectors or frames.
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
//	stmts, err := sqlparse.Parse("SET a=1;\nSELECT * FORM t")
//	// err: statement 2, line 2, column 10: expected FROM, found "FORM"
package sqlparse
