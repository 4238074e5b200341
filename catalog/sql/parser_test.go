package sql

import (
	"errors"
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
				stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, External: true, IfNotExists: true,
				Table:    TableName{Namespace: "yt", Name: "Subs", Pos: Pos{36, 1, 37}},
				Columns:  []ColumnDef{{Name: "payload", Type: "string", Pos: Pos{45, 1, 46}}},
				Location: "/tmp/x",
				Properties: []Property{
					{Key: "svc.storage.type", Value: "RESTAPI", Pos: Pos{94, 1, 95}},
					{Key: "svc.restapi.url", Value: "http://h/a?b=1", Pos: Pos{124, 1, 125}},
					{Key: "svc.restapi.retry.max", Value: "2", Pos: Pos{162, 1, 163}},
				},
			},
		},
		{
			name: "create with nested types and aliases",
			sql:  "CREATE TABLE t (a bigint, `b c` array<struct<x:int,y:string>>, d decimal(10,2))",
			want: &CreateTable{
				stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}},
				Table:    TableName{Name: "t", Pos: Pos{13, 1, 14}},
				Columns: []ColumnDef{
					{Name: "a", Type: "long", Pos: Pos{16, 1, 17}},
					{Name: "b c", Type: "array<struct<x:integer,y:string>>", Pos: Pos{26, 1, 27}},
					{Name: "d", Type: "decimal(10,2)", Pos: Pos{63, 1, 64}},
				},
			},
		},
		{
			name: "reserved words after a dot, keywords as names",
			sql:  "SELECT page.limit, values, `from` FROM ns.select WHERE table.is IS NULL",
			want: &Select{
				stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}},
				Items: []SelectItem{
					{Path: []string{"page", "limit"}, Pos: Pos{7, 1, 8}},
					{Path: []string{"values"}, Pos: Pos{19, 1, 20}},
					{Path: []string{"from"}, Pos: Pos{27, 1, 28}},
				},
				From:  TableName{"ns", "select", Pos{39, 1, 40}},
				Where: &IsNull{X: &ColumnRef{[]string{"table", "is"}, Pos{55, 1, 56}}, Pos: Pos{64, 1, 65}},
				Limit: -1,
			},
		},
		{
			name: "drop if exists",
			sql:  "DROP TABLE IF EXISTS a.b",
			want: &DropTable{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, IfExists: true, Table: TableName{"a", "b", Pos{21, 1, 22}}},
		},
		{name: "show tables", sql: "show tables", want: &ShowTables{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}}},
		{name: "show tables in", sql: "SHOW TABLES IN yt", want: &ShowTables{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Namespace: "yt"}},
		{name: "show databases", sql: "SHOW DATABASES", want: &ShowNamespaces{stmtBase{N: 1, Pos: Pos{0, 1, 1}}}},
		{name: "describe", sql: "DESC TABLE yt.s", want: &Describe{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Table: TableName{"yt", "s", Pos{11, 1, 12}}}},
		{name: "describe extended", sql: "DESCRIBE EXTENDED yt.s", want: &Describe{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Table: TableName{"yt", "s", Pos{18, 1, 19}}}},
		{name: "set all", sql: "SET", want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}}},
		{name: "set key", sql: "set svc.catalog.provider  ", want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Key: "svc.catalog.provider", HasKey: true}},
		{
			name: "set raw value keeps braces and percent signs",
			sql:  "SET svc.restapi.pattern.s = https://{svc.restapi.baseURL}/subs?part=snippet%2Cid&x=a=b -- note",
			want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Key: "svc.restapi.pattern.s", Value: "https://{svc.restapi.baseURL}/subs?part=snippet%2Cid&x=a=b", HasKey: true, HasValue: true},
		},
		{
			name: "set quoted value with semicolon",
			sql:  "SET k='a;b''c'",
			want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Key: "k", Value: "a;b'c", HasKey: true, HasValue: true},
		},
		{name: "set empty value", sql: "SET k=", want: &Set{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Key: "k", HasKey: true, HasValue: true}},
		{name: "reset", sql: "RESET", want: &Reset{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}}},
		{name: "reset key", sql: "RESET svc.logging.level", want: &Reset{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Key: "svc.logging.level"}},
		{
			name: "select star",
			sql:  "SELECT * FROM yt.subs LIMIT 5",
			want: &Select{stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}}, Star: true, From: TableName{"yt", "subs", Pos{14, 1, 15}}, Limit: 5},
		},
		{
			name: "select paths aliases where",
			sql:  "SELECT id, snippet.title AS t, pageInfo.totalResults n FROM yt.subs WHERE NOT a = 1 OR b IS NOT NULL AND c <> 'x'",
			want: &Select{
				stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}},
				Items: []SelectItem{
					{Path: []string{"id"}, Pos: Pos{7, 1, 8}},
					{Path: []string{"snippet", "title"}, Alias: "t", Pos: Pos{11, 1, 12}},
					{Path: []string{"pageInfo", "totalResults"}, Alias: "n", Pos: Pos{31, 1, 32}},
				},
				From: TableName{"yt", "subs", Pos{60, 1, 61}},
				Where: &Binary{Op: "OR", Pos: Pos{84, 1, 85},
					L: &Not{Pos: Pos{74, 1, 75}, X: &Binary{Op: "=", Pos: Pos{80, 1, 81}, L: &ColumnRef{[]string{"a"}, Pos{78, 1, 79}}, R: &Literal{int64(1), "1", Pos{82, 1, 83}}}},
					R: &Binary{Op: "AND", Pos: Pos{101, 1, 102},
						L: &IsNull{X: &ColumnRef{[]string{"b"}, Pos{87, 1, 88}}, Not: true, Pos: Pos{89, 1, 90}},
						R: &Binary{Op: "!=", Pos: Pos{107, 1, 108}, L: &ColumnRef{[]string{"c"}, Pos{105, 1, 106}}, R: &Literal{"x", "'x'", Pos{110, 1, 111}}},
					},
				},
				Limit: -1,
			},
		},
		{
			name: "insert values",
			sql:  "INSERT INTO yt.out VALUES ('{\"a\":1}'), ('x''y')",
			want: &Insert{
				stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}},
				Table:    TableName{"yt", "out", Pos{12, 1, 13}},
				Rows: [][]*Literal{
					{{Value: `{"a":1}`, Raw: `'{"a":1}'`, Pos: Pos{27, 1, 28}}},
					{{Value: "x'y", Raw: "'x''y'", Pos: Pos{40, 1, 41}}},
				},
			},
		},
		{
			name: "insert columns values with signs",
			sql:  "INSERT INTO t (a, b, c) VALUES (-1, 2.5, NULL)",
			want: &Insert{
				stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}},
				Table:    TableName{Name: "t", Pos: Pos{12, 1, 13}},
				Columns:  []string{"a", "b", "c"},
				Rows:     [][]*Literal{{{Value: int64(-1), Raw: "-1", Pos: Pos{32, 1, 33}}, {Value: 2.5, Raw: "2.5", Pos: Pos{36, 1, 37}}, {Value: nil, Raw: "NULL", Pos: Pos{41, 1, 42}}}},
			},
		},
		{
			name: "insert select",
			sql:  "INSERT INTO a.b SELECT payload FROM c.d",
			want: &Insert{
				stmtBase: stmtBase{N: 1, Pos: Pos{0, 1, 1}},
				Table:    TableName{"a", "b", Pos{12, 1, 13}},
				Query: &Select{stmtBase: stmtBase{N: 1, Pos: Pos{16, 1, 17}}, Items: []SelectItem{{Path: []string{"payload"}, Pos: Pos{23, 1, 24}}},
					From: TableName{"c", "d", Pos{36, 1, 37}}, Limit: -1},
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
	require.Equal(t, []string{"we;ird"}, sel.Items[0].Path)
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
		{"SELECT * FROM", `statement 1, line 1, column 14: expected a table name (ns.table), found end of statement`},
		{"SELECT * FROM t;  \n SELECT a FROM t WHERE", `statement 2, line 2, column 23: expected a column, a value or "(", found end of statement`},
		{"SELECT a FROM t WHERE a = 'x", `statement 1, line 1, column 27: unterminated string`},
		{"SELECT a FROM t WHERE a == 1", `statement 1, line 1, column 26: expected a column, a value or "(", found "="`},
		{"SELECT a FROM t WHERE (a = 1", `statement 1, line 1, column 29: expected ")", found end of statement`},
		{"SELECT a FROM t LIMIT x", `statement 1, line 1, column 23: expected a row count after LIMIT, found "x"`},
		{"SELECT a FROM t LIMIT 1.5", `statement 1, line 1, column 23: LIMIT 1.5 is not a whole number of rows`},
		{"SELECT a, b.a FROM t", `statement 1, line 1, column 11: column name a appears twice in SELECT (first at line 1, column 8); use AS to rename one`},
		{"SELECT *, a FROM t", `statement 1, line 1, column 9: expected FROM, found ","`},
		{"SELECT a FROM a.b.c", `statement 1, line 1, column 18: table name a.b.… has too many parts (want ns.table)`},
		{"SELECT a FROM t x y", `statement 1, line 1, column 19: expected end of statement, found "y"`},
		{"SELECT a FROM t AS WHERE", `statement 1, line 1, column 20: expected a table alias after AS, found "WHERE"`},
		{"SELECT a FROM t WHERE a = 1 b", `statement 1, line 1, column 29: expected end of statement, found "b"`},
		{"SELECT a FROM t WHERE a ? 1", `statement 1, line 1, column 25: unexpected character '?'`},
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
		{"CREATE VIEW v", `statement 1, line 1, column 8: expected TABLE, found "VIEW"`},
		{"DROP TABLE IF t", `statement 1, line 1, column 15: expected EXISTS, found "t"`},
		{"SHOW COLUMNS", `statement 1, line 1, column 6: expected TABLES or NAMESPACES, found "COLUMNS"`},
		{"SET a b=c", `statement 1, line 1, column 4: setting key "a b" contains a space (back-quote it)`},
		{"SET =c", `statement 1, line 1, column 4: SET wants key=value, key or nothing; the key is missing`},
		{"INSERT INTO t VALUES (1), (1, 2)", `statement 1, line 1, column 27: row 2 has 2 values, row 1 has 1`},
		{"INSERT INTO t (a) VALUES (1, 2)", `statement 1, line 1, column 26: row 1 has 2 values for 1 listed columns`},
		{"INSERT INTO t VALUES (a)", `statement 1, line 1, column 23: expected a value (string, number, TRUE, FALSE or NULL), found "a"`},
		{"INSERT OVERWRITE t VALUES (1)", `statement 1, line 1, column 8: INSERT OVERWRITE is not supported; use INSERT INTO`},
		{"INSERT INTO t DEFAULT VALUES", `statement 1, line 1, column 15: expected SELECT or VALUES, found "DEFAULT"`},
		{"SELECT `` FROM t", `statement 1, line 1, column 8: empty a column`},
		{"SELECT a FROM `t", `statement 1, line 1, column 15: unterminated back-quoted identifier`},
		{"SELECT é FROM t", `statement 1, line 1, column 8: unexpected character 'é'`},
		{"SELECT 'é' x, y FROM t WHERE", `statement 1, line 1, column 8: expected a column, found a quoted string`},
		{"SELECT a FROM t WHERE 'é' = 1 OR y", `statement 1, line 1, column 27: WHERE: cannot compare 'é' (string) with 1 (long)`},
		{"SELECT a FROM t WHERE 1", `statement 1, line 1, column 23: WHERE: 1 is long, not a condition`},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			t.Parallel()
			_, _, err := PlanBatch(tt.sql)
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
		stmts, plans, err := PlanBatch(text)
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
			if sel, ok := st.(*Select); ok && plans[sel] == nil {
				t.Fatalf("select without a plan")
			}
		}
	})
}
