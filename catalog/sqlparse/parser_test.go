package sqlparse

import (
	"errors"
	"github.com/sluicedata/sluice/dataframe/query"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestParseStatements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sql  string
		want Statement
	}{
		{
			name: "create external with properties",
			sql: "create external table IF NOT EXISTS yt.Subs (payload STRING) location '/tmp/x' " +
				"TBLPROPERTIES ('svc.storage.type'='RESTAPI', \"svc.restapi.url\" = 'http://h/a?b=1', svc.restapi.retry.max=2)",
			want: &CreateTable{
				stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, External: true, IfNotExists: true,
				Table:    TableName{Namespace: "yt", Name: "Subs", Pos: Pos{Offset: 36, Line: 1, Col: 37}},
				Columns:  []ColumnDef{{Name: "payload", Type: "string", Pos: Pos{Offset: 45, Line: 1, Col: 46}}},
				Location: "/tmp/x",
				Properties: []Property{
					{Key: "svc.storage.type", Value: "RESTAPI", Pos: Pos{Offset: 94, Line: 1, Col: 95}},
					{Key: "svc.restapi.url", Value: "http://h/a?b=1", Pos: Pos{Offset: 124, Line: 1, Col: 125}},
					{Key: "svc.restapi.retry.max", Value: "2", Pos: Pos{Offset: 162, Line: 1, Col: 163}},
				},
			},
		},
		{
			name: "create with nested types and aliases",
			sql:  "CREATE TABLE t (a bigint, `b c` array<struct<x:int,y:string>>, d decimal(10,2))",
			want: &CreateTable{
				stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}},
				Table:    TableName{Name: "t", Pos: Pos{Offset: 13, Line: 1, Col: 14}},
				Columns: []ColumnDef{
					{Name: "a", Type: "long", Pos: Pos{Offset: 16, Line: 1, Col: 17}},
					{Name: "b c", Type: "array<struct<x:integer,y:string>>", Pos: Pos{Offset: 26, Line: 1, Col: 27}},
					{Name: "d", Type: "decimal(10,2)", Pos: Pos{Offset: 63, Line: 1, Col: 64}},
				},
			},
		},
		{
			name: "drop if exists",
			sql:  "DROP TABLE IF EXISTS a.b",
			want: &DropTable{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, IfExists: true, Table: TableName{"a", "b", Pos{Offset: 21, Line: 1, Col: 22}}},
		},
		{name: "show tables", sql: "show tables", want: &ShowTables{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}}},
		{name: "show tables in", sql: "SHOW TABLES IN yt", want: &ShowTables{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Namespace: "yt"}},
		{name: "show databases", sql: "SHOW DATABASES", want: &ShowNamespaces{stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}}},
		{name: "describe", sql: "DESC TABLE yt.s", want: &Describe{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Table: TableName{"yt", "s", Pos{Offset: 11, Line: 1, Col: 12}}}},
		{name: "describe extended", sql: "DESCRIBE EXTENDED yt.s", want: &Describe{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Table: TableName{"yt", "s", Pos{Offset: 18, Line: 1, Col: 19}}}},
		{name: "set all", sql: "SET", want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}}},
		{name: "set key", sql: "set svc.catalog.provider  ", want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Key: "svc.catalog.provider", HasKey: true}},
		{
			name: "set raw value keeps braces and percent signs",
			sql:  "SET svc.restapi.pattern.s = https://{svc.restapi.baseURL}/subs?part=snippet%2Cid&x=a=b -- note",
			want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Key: "svc.restapi.pattern.s", Value: "https://{svc.restapi.baseURL}/subs?part=snippet%2Cid&x=a=b", HasKey: true, HasValue: true},
		},
		{
			name: "set quoted value with semicolon",
			sql:  "SET k='a;b''c'",
			want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Key: "k", Value: "a;b'c", HasKey: true, HasValue: true},
		},
		{name: "set empty value", sql: "SET k=", want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Key: "k", HasKey: true, HasValue: true}},
		{name: "reset", sql: "RESET", want: &Reset{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}}},
		{name: "reset key", sql: "RESET svc.logging.level", want: &Reset{stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}}, Key: "svc.logging.level"}},
		{
			name: "insert values",
			sql:  "INSERT INTO yt.out VALUES ('{\"a\":1}'), ('x''y')",
			want: &Insert{
				stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}},
				Table:    TableName{"yt", "out", Pos{Offset: 12, Line: 1, Col: 13}},
				Rows: [][]*Literal{
					{{Value: `{"a":1}`, Raw: `'{"a":1}'`, Pos: Pos{Offset: 27, Line: 1, Col: 28}}},
					{{Value: "x'y", Raw: "'x''y'", Pos: Pos{Offset: 40, Line: 1, Col: 41}}},
				},
			},
		},
		{
			name: "insert columns values with signs",
			sql:  "INSERT INTO t (a, b, c) VALUES (-1, 2.5, NULL)",
			want: &Insert{
				stmtBase: stmtBase{N: 1, Pos: Pos{Offset: 0, Line: 1, Col: 1}},
				Table:    TableName{Name: "t", Pos: Pos{Offset: 12, Line: 1, Col: 13}},
				Columns:  []string{"a", "b", "c"},
				Rows:     [][]*Literal{{{Value: int64(-1), Raw: "-1", Pos: Pos{Offset: 32, Line: 1, Col: 33}}, {Value: 2.5, Raw: "2.5", Pos: Pos{Offset: 36, Line: 1, Col: 37}}, {Value: nil, Raw: "NULL", Pos: Pos{Offset: 41, Line: 1, Col: 42}}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseOne(tt.sql)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseBatchSplitting(t *testing.T) {
	t.Parallel()
	batch := "-- leading comment\nSET a='x;y';\n;  ;\n/* block; comment */ SELECT `we;ird` FROM t; -- trailing ; comment\n"
	stmts, err := Parse(batch)
	require.NoError(t, err)
	require.Len(t, stmts, 2)
	require.Equal(t, "x;y", stmts[0].(*Set).Value)
	sel := stmts[1].(*Select)
	require.Equal(t, 2, sel.Number())
	require.Equal(t, []string{"we;ird"}, sel.Query.(*query.Select).Items[0].Expr.(*query.Column).Path)
	require.Equal(t, Pos{Offset: 58, Line: 4, Col: 22}, sel.Position())

	empty, err := Parse("  -- nothing\n ; ")
	require.NoError(t, err)
	require.Empty(t, empty)
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sql  string
		want string
	}{
		{"SELEC * FROM t", `statement 1, line 1, column 1: expected a statement (CREATE, DROP, SHOW, DESCRIBE, SET, RESET, SELECT or INSERT), found "SELEC"`},
		{"SET a=1;\nSELECT *\n  FORM t", `statement 2, line 3, column 3: expected FROM, found "FORM"`},
		{"SELECT * FROM", `statement 1, line 1, column 14: expected a table name, found end of statement`},
		{"SELECT * FROM t;  \n SELECT a FROM t WHERE", `statement 2, line 2, column 23: expected an expression, found end of statement`},
		{"SELECT a FROM t WHERE a = 'x", `statement 1, line 1, column 27: unterminated string`},
		{"SELECT a FROM t WHERE a === 1", `statement 1, line 1, column 27: expected an expression, found "="`},
		{"SELECT a FROM t WHERE (a = 1", `statement 1, line 1, column 29: expected ")", found end of statement`},
		{"SELECT a FROM t LIMIT", `statement 1, line 1, column 22: expected an expression, found end of statement`},
		{"SELECT a FROM a.b.c", `statement 1, line 1, column 15: table name a.b.c has more than two parts (ns.table)`},
		{"SELECT a FROM t CLUSTER BY a", `statement 1, line 1, column 17: CLUSTER BY is not supported`},
		{"SELECT rank() OVER (ORDER BY a ROWS BETWEEN 1 PRECEDING) FROM t", `statement 1, line 1, column 56: expected AND, found ")"`},
		{"SELECT a FROM t NATURAL JOIN u ON a = b", `statement 1, line 1, column 32: a NATURAL JOIN takes no ON condition`},
		{"SELECT a FROM t LEFT SEMI u ON a = b", `statement 1, line 1, column 27: expected JOIN, found "u"`},
		{"SELECT a ! 1 FROM t", `statement 1, line 1, column 10: the operator ! is not supported`},
		{"SELECT a FROM t GROUP BY ROLLUP (a", `statement 1, line 1, column 35: expected ")" after ROLLUP (…, found end of statement`},
		{"SELECT a FROM t CLUSTER BY a", `statement 1, line 1, column 17: CLUSTER BY is not supported`},
		{"SELECT INTERVAL '1-13' YEAR TO MONTH", `statement 1, line 1, column 17: INTERVAL '1-13' YEAR TO MONTH: interval 1-13: month 13 outside range [0, 11]`},
		{"SELECT INTERVAL '1 2' DAY TO SECOND", "statement 1, line 1, column 17: INTERVAL '1 2' DAY TO SECOND: interval string does not match day-time format of `[+|-]d h:m:s.n`, `INTERVAL [+|-]'[+|-]d h:m:s.n' DAY TO SECOND` when cast to interval day to second: 1 2"},
		{"SELECT INTERVAL 1 DAY TO HOUR", `statement 1, line 1, column 17: INTERVAL 1 DAY TO HOUR: the value of a unit-to-unit interval is a string`},
		{"SELECT INTERVAL 1 FORTNIGHT", `statement 1, line 1, column 19: expected an interval unit (YEAR, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND), found "FORTNIGHT"`},
		{"SELECT INTERVAL 'one' DAY", `statement 1, line 1, column 17: INTERVAL 'one' DAY: the value of a unit is a number, not 'one'`},
		{"SELECT INTERVAL '1 fortnight'", `statement 1, line 1, column 17: INTERVAL '1 fortnight': cannot parse the interval "1 fortnight": fortnight is not an interval unit`},
		{"SELECT INTERVAL 1.5 DAYS", `statement 1, line 1, column 8: INTERVAL 1.5 DAYS: cannot parse the interval "1.5 DAYS": only seconds take a fraction (1.5 day)`},
		{"WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r", `statement 1, line 1, column 6: WITH RECURSIVE is not supported`},
		{"SELECT a FROM t JOIN u USING a", `statement 1, line 1, column 30: expected "(", found "a"`},
		{"SELECT CASE WHEN a THEN 1 FROM t", `statement 1, line 1, column 27: expected WHEN, ELSE or END, found "FROM"`},
		{"SELECT CAST(a AS foo) FROM t", `statement 1, line 1, column 18: CAST to foo: invalid type "foo" at position 3: unknown type "foo"`},
		{"SELECT a FROM t LATERAL VIEW explode(x)", `statement 1, line 1, column 40: expected a table alias after LATERAL VIEW explode(x), found end of statement`},
		{"SELECT a FROM t ORDER BY a NULLS", `statement 1, line 1, column 33: expected FIRST or LAST after NULLS, found end of statement`},
		{"SELECT a FROM t x y", `statement 1, line 1, column 19: expected end of statement, found "y"`},
		{"SELECT a FROM t AS WHERE", `statement 1, line 1, column 20: expected an alias after AS, found "WHERE"`},
		{"SELECT a FROM t WHERE a = 1 b", `statement 1, line 1, column 29: expected end of statement, found "b"`},
		{"SELECT a FROM t WHERE a @ 1", `statement 1, line 1, column 25: unexpected character '@'`},
		{"SELECT a FROM t WHERE a = 12x", `statement 1, line 1, column 27: invalid number "12x"`},
		{"CREATE TABLE t (a int,)", `statement 1, line 1, column 23: expected a column name, found ")"`},
		{"CREATE TABLE t (a foo)", `statement 1, line 1, column 19: column a: invalid type "foo" at position 3: unknown type "foo"`},
		{"CREATE TABLE t (a array<int)", `statement 1, line 1, column 19: column a: invalid type "array<int)" at position 9: expected '>', found ')'`},
		{"CREATE TABLE t (a array<int", `statement 1, line 1, column 28: expected the end of type array<int, found end of statement`},
		{"CREATE TABLE t (a int, A string)", `statement 1, line 1, column 24: column A is defined twice`},
		{"CREATE TABLE t TBLPROPERTIES ('a'='1', 'a'='2')", `statement 1, line 1, column 40: property "a" is given twice`},
		{"CREATE TABLE t TBLPROPERTIES ('a' 1)", `statement 1, line 1, column 35: expected "=", found "1"`},
		{"CREATE TABLE t TBLPROPERTIES ('svc.x.accessKey' 'AIza-secret')", `statement 1, line 1, column 49: expected "=", found a quoted string`},
		{"CREATE TABLE t LOCATION x", `statement 1, line 1, column 25: expected a quoted location, found "x"`},
		{"CREATE VIEW v", `statement 1, line 1, column 8: CREATE VIEW (a view kept in the catalog) is not supported; use CREATE TEMPORARY VIEW`},
		{"CREATE TEMP VIEW v AS SELEC 1", `statement 1, line 1, column 23: expected SELECT, found "SELEC"`},
		{"SELECT 128Y", `statement 1, line 1, column 8: the tinyint literal 128Y is out of range`},
		{"SELECT 1E309", `statement 1, line 1, column 8: the double literal 1E309 is out of range`},
		{"SELECT 1234567890123456789012345678901234567890", `statement 1, line 1, column 8: the decimal literal 1234567890123456789012345678901234567890: decimal can only support precision up to 38`},
		{"SELECT DATE '2020-01-01x'", `statement 1, line 1, column 13: '2020-01-01x' is not a valid DATE literal`},
		{"SELECT TIMESTAMP '2016-33-11 20:54:00'", `statement 1, line 1, column 18: '2016-33-11 20:54:00' is not a valid TIMESTAMP literal`},
		{"SELECT X'XuZ'", `statement 1, line 1, column 8: X'XuZ' is not a valid binary literal (hex digits)`},
		{"DROP TABLE IF t", `statement 1, line 1, column 15: expected EXISTS, found "t"`},
		{"SHOW COLUMNS", `statement 1, line 1, column 6: expected TABLES or NAMESPACES, found "COLUMNS"`},
		{"SET a b=c", `statement 1, line 1, column 4: setting key "a b" contains a space (back-quote it)`},
		{"SET =c", `statement 1, line 1, column 4: SET wants key=value, key or nothing; the key is missing`},
		{"INSERT INTO t VALUES (1), (1, 2)", `statement 1, line 1, column 27: row 2 has 2 values, row 1 has 1`},
		{"INSERT INTO t (a) VALUES (1, 2)", `statement 1, line 1, column 26: row 1 has 2 values for 1 listed columns`},
		{"INSERT INTO t VALUES (a)", `statement 1, line 1, column 23: expected a value (string, number, TRUE, FALSE or NULL), found "a"`},
		{"INSERT OVERWRITE t PARTITION (a = 1) VALUES (1)", `statement 1, line 1, column 20: INSERT OVERWRITE … PARTITION is not supported`},
		{"INSERT t VALUES (1)", `statement 1, line 1, column 8: expected INTO or OVERWRITE, found "t"`},
		{"INSERT INTO t DEFAULT VALUES", `statement 1, line 1, column 15: expected SELECT or VALUES, found "DEFAULT"`},
		{"SELECT `` FROM t", `statement 1, line 1, column 8: empty a column`},
		{"SELECT a FROM `t", `statement 1, line 1, column 15: unterminated back-quoted identifier`},
		{"SELECT é FROM t", `statement 1, line 1, column 8: unexpected character 'é'`},
		{"SELECT 'é' x, y FROM t WHERE", `statement 1, line 1, column 29: expected an expression, found end of statement`},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.sql)
			require.Error(t, err)
			require.Equal(t, tt.want, err.Error())
			require.True(t, errors.Is(err, ErrSyntax))
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM yt.subs WHERE a.b = 'x' AND NOT (c IS NULL OR d <> 2.5e3) LIMIT 3",
		"CREATE EXTERNAL TABLE IF NOT EXISTS a.b (p string, q array<struct<x:int>>) LOCATION '/x' TBLPROPERTIES ('k'='v')",
		"SET k='v;w'; SET; RESET; SHOW TABLES IN x; SHOW NAMESPACES; DESCRIBE a.b; DROP TABLE IF EXISTS a.b",
		"INSERT INTO a.b (x, y) VALUES (1, 'a'), (-2, NULL); INSERT INTO a.b SELECT x FROM c.d",
		"-- c\n/* unterminated", "'", "`", "SELECT `a``b` FROM t WHERE x = 'it''s'", "\xff\xfe", "SET =", "1e", ".5", "a\n\nb",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		stmts, err := Parse(text)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("non-syntax error %T: %v", err, err)
			}
			p := se.Pos
			if p.Offset < 0 || p.Offset > len(text) || p.Line < 1 || p.Col < 1 {
				t.Fatalf("position %+v outside text of %d bytes", p, len(text))
			}
			if lines := strings.Count(text, "\n") + 1; p.Line > lines {
				t.Fatalf("line %d beyond %d lines", p.Line, lines)
			}
			if se.Statement < 1 {
				t.Fatalf("statement number %d", se.Statement)
			}
			return
		}
		for _, st := range stmts {
			p := st.Position()
			if p.Offset < 0 || p.Offset >= len(text) || p.Col > utf8.RuneCountInString(text)+1 {
				t.Fatalf("statement position %+v outside text", p)
			}
		}
	})
}
