package catalog_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/catalog"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/dataframe"
)

// SQL over a JDBC table sends the database the columns used, the WHERE
// conjuncts it evaluates exactly as Spark does and the LIMIT — seen in
// the CONSOLE log of statements — and answers what the same query answers
// over the whole table read into memory: MySQL's case-insensitive,
// space-padding collation changes nothing (docs/jdbc.md#pushdown).
func TestJDBCPushdownFromSQL(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE t (id int PRIMARY KEY, a int, x int, name varchar(20))")
		names := []string{"'b'", "'B'", "'b '", "'a'", "NULL"}
		var rows []string
		for i := 1; i <= 20; i++ {
			rows = append(rows, fmt.Sprintf("(%d, %d, %d, %s)", i, 100+i, i, names[i%len(names)]))
		}
		db.Exec(t, "INSERT INTO t VALUES "+strings.Join(rows, ", "))

		s, _ := newSession(t)
		var log syncBuffer
		s.SetLogOutput(&log)
		ctx := context.Background()
		_, err := s.Exec(ctx, "CREATE TABLE pg.t TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'=?, 'svc.jdbc.dbtable'='t')", db.URL)
		require.NoError(t, err)
		require.NoError(t, s.Set("svc.logging.level", "CONSOLE"))

		// The unpushed answer: the whole table, the query run in memory.
		whole, err := s.Read(ctx, "pg.t", nil)
		require.NoError(t, err)
		defer whole.Release()
		inMemory := func(q string) []string {
			f, err := catalog.SQLFrames(ctx, nil, strings.Replace(q, "pg.t", "t", 1), map[string]*dataframe.Frame{"t": whole})
			require.NoError(t, err, q)
			defer f.Release()
			return sorted(rowsJSON(t, f))
		}

		q, lit := `"`, "$"
		if db.Dialect == "mysql" {
			q, lit = "`", "?"
		}
		quote := func(s string) string { return strings.ReplaceAll(s, `"`, q) }
		for _, tc := range []struct {
			sql  string
			sent string // the data statement, a regexp (quotes as PostgreSQL's)
			n    int    // rows in the answer
		}{
			{sql: "SELECT a FROM pg.t WHERE x > 5 AND name = 'b' LIMIT 3",
				sent: `^SELECT "a", "x", "name" FROM "t" WHERE \("x" > P\) AND \(.*"name".* = P.*\) LIMIT 3$`, n: 3},
			{sql: "SELECT id FROM pg.t WHERE name = 'B'",
				sent: `^SELECT "id", "name" FROM "t" WHERE \(.*"name".* = P.*\)$`, n: 4},
			{sql: "SELECT id FROM pg.t WHERE name IN ('b', 'a') OR x BETWEEN 2 AND 4",
				sent: `^SELECT "id", "x", "name" FROM "t" WHERE .*"name".* IN .* OR .*"x" >= P.*"x" <= P.*$`, n: 10},
			{sql: "SELECT id, name FROM pg.t WHERE name IS NULL AND NOT (x < 3)",
				sent: `^SELECT "id", "x", "name" FROM "t" WHERE \("name" IS NULL\) AND \(NOT \("x" < P\)\)$`, n: 4},
			// Not translatable: the database sends every row of the
			// columns used, the engine filters, and no LIMIT goes down.
			{sql: "SELECT id FROM pg.t WHERE upper(name) = 'B' LIMIT 2",
				sent: `^SELECT "id", "name" FROM "t"$`, n: 2},
			// A top-N reads the table once (a database's rows have no
			// positions a second read could pick the winners by), and the
			// database sorts and sends the first 3 (docs/jdbc.md#pushdown).
			{sql: "SELECT id, name FROM pg.t ORDER BY x DESC, id LIMIT 3",
				sent: `^SELECT "id", "x", "name" FROM "t" ORDER BY .*"x" DESC.*, "id" ASC LIMIT 3$`, n: 3},
		} {
			log.Reset()
			f, err := s.ExecuteBatch(ctx, tc.sql)
			require.NoError(t, err, tc.sql)
			got := sorted(rowsJSON(t, f))
			f.Release()
			require.Len(t, got, tc.n, tc.sql)
			want := inMemory(tc.sql)
			if strings.Contains(tc.sql, "LIMIT") && !strings.Contains(tc.sql, "upper") {
				// Any 3 of the matches may come first: all of them match here.
				require.Equal(t, want, got, tc.sql)
			} else if strings.Contains(tc.sql, "LIMIT") {
				all := inMemory(strings.Replace(tc.sql, " LIMIT 2", "", 1))
				require.Subset(t, all, got, tc.sql)
			} else {
				require.Equal(t, want, got, tc.sql)
			}

			// One data statement, with the columns, the WHERE and the LIMIT.
			var sent []string
			for _, line := range strings.Split(log.String(), "\n") {
				if _, stmt, ok := strings.Cut(line, ": SELECT "); ok && strings.Contains(stmt, " FROM "+quote(`"t"`)) && !strings.Contains(line, "describe:") {
					sent = append(sent, "SELECT "+stmt)
				}
			}
			require.Len(t, sent, 1, "%s: the statements sent:\n%s", tc.sql, log.String())
			re := strings.ReplaceAll(quote(tc.sent), "P", regexp.QuoteMeta(lit)+"[0-9]*(?:::[a-z ]+)?")
			require.Regexp(t, re, sent[0], tc.sql)
		}
	})
}

func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}

// DESCRIBE of a JDBC table, which declares no columns, shows the
// database's (col_name, data_type), then the table information; a table
// it cannot read still shows its properties.
func TestJDBCDescribeShowsColumns(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE d (id int PRIMARY KEY, amount decimal(10,2), name varchar(20))")
		s, _ := newSession(t)
		ctx := context.Background()
		_, err := s.Exec(ctx, "CREATE TABLE pg.d TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'=?, 'svc.jdbc.dbtable'='d')", db.URL)
		require.NoError(t, err)
		rows := exec(t, s, "DESCRIBE pg.d")
		require.Equal(t, []string{
			`{"col_name":"id","data_type":"integer"}`,
			`{"col_name":"amount","data_type":"decimal(10,2)"}`,
			`{"col_name":"name","data_type":"string"}`,
			`{"col_name":"# Detailed Table Information","data_type":""}`,
		}, rows[:4])
		_, err = s.Exec(ctx, "CREATE TABLE pg.gone TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'=?, 'svc.jdbc.dbtable'='gone')", db.URL)
		require.NoError(t, err)
		rows = exec(t, s, "DESCRIBE pg.gone")
		require.Equal(t, `{"col_name":"# Detailed Table Information","data_type":""}`, rows[0])
	})
}

// A top-N (ORDER BY … LIMIT n) over a JDBC table is sorted and cut in the
// database when every key is a column that sorts there as Spark sorts it
// and every filter went down; the answer, in order, is the in-memory
// engine's (docs/jdbc.md#pushdown). Keys end with the unique id, so the
// answer is one.
func TestJDBCTopNPushdown(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		// l is latin1 in MySQL, whose byte order is not Unicode's ('€' is
		// 0x80, 'ÿ' 0xFF).
		latin1 := ""
		if db.Dialect == "mysql" {
			latin1 = " CHARACTER SET latin1"
		}
		db.Exec(t, "CREATE TABLE tn (id int PRIMARY KEY, x int, d double precision, s varchar(20), l varchar(10)"+latin1+")")
		lat := []string{"'€'", "'ÿ'", "'a'", "NULL", "'Z'"}
		strs := []string{"'b'", "'B'", "'b '", "'a'", "NULL", "'\U0001F600'", "'\uFFFD'", "'é'", "''"}
		dbl := []string{"1.5", "-2", "NULL", "0", "1e300", "-1e-300"}
		if db.Dialect == "postgres" {
			dbl = append(dbl, "'NaN'", "'Infinity'") // MySQL stores neither
		}
		var rows []string
		for i := 1; i <= 40; i++ {
			x := fmt.Sprint(i % 7)
			if i%5 == 0 {
				x = "NULL"
			}
			rows = append(rows, fmt.Sprintf("(%d, %s, %s, %s, %s)", i, x, dbl[i%len(dbl)], strs[i%len(strs)], lat[i%len(lat)]))
		}
		db.Exec(t, "INSERT INTO tn VALUES "+strings.Join(rows, ", "))

		s, _ := newSession(t)
		var log syncBuffer
		s.SetLogOutput(&log)
		ctx := context.Background()
		_, err := s.Exec(ctx, "CREATE TABLE pg.tn TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'=?, 'svc.jdbc.dbtable'='tn')", db.URL)
		require.NoError(t, err)
		require.NoError(t, s.Set("svc.logging.level", "CONSOLE"))
		whole, err := s.Read(ctx, "pg.tn", nil)
		require.NoError(t, err)
		defer whole.Release()

		for _, tc := range []struct {
			sql   string
			order string // the ORDER BY sent, a regexp; "": none, and no LIMIT
			n     int
		}{
			{sql: "SELECT id, x FROM pg.tn ORDER BY x, id LIMIT 5", order: `.*x.* ASC.*, .*id.* ASC LIMIT 5`, n: 5},
			{sql: "SELECT id, x FROM pg.tn ORDER BY x DESC, id DESC LIMIT 5", order: `.*x.* DESC.*, .*id.* DESC LIMIT 5`, n: 5},
			{sql: "SELECT id, x FROM pg.tn ORDER BY x NULLS LAST, id LIMIT 30", order: `.*x.* LIMIT 30`, n: 30},
			{sql: "SELECT id, x FROM pg.tn ORDER BY x DESC NULLS FIRST, id LIMIT 4", order: `.*x.* LIMIT 4`, n: 4},
			{sql: "SELECT id, d FROM pg.tn ORDER BY d DESC, id LIMIT 6", order: `.*d.* DESC.* LIMIT 6`, n: 6},
			{sql: "SELECT id, d FROM pg.tn ORDER BY d, id LIMIT 12", order: `.*d.* LIMIT 12`, n: 12},
			{sql: "SELECT id, s FROM pg.tn ORDER BY s DESC, id LIMIT 8", order: `.*s.* DESC.* LIMIT 8`, n: 8},
			{sql: "SELECT id, s FROM pg.tn ORDER BY s NULLS LAST, id LIMIT 20", order: `.*s.* LIMIT 20`, n: 20},
			{sql: "SELECT id, l FROM pg.tn ORDER BY l DESC, id LIMIT 10", order: `.*l.* DESC.* LIMIT 10`, n: 10},
			{sql: "SELECT id, l FROM pg.tn WHERE l = 'ÿ' ORDER BY id LIMIT 3", order: `.*id.* ASC LIMIT 3`, n: 3},
			{sql: "SELECT id, l FROM pg.tn WHERE l > 'ÿ' ORDER BY id LIMIT 3", order: `.*id.* ASC LIMIT 3`, n: 3},
			// A translated filter goes down with the top-N; OFFSET asks
			// for n + offset rows.
			{sql: "SELECT s, id FROM pg.tn WHERE x > 2 ORDER BY s, id LIMIT 3 OFFSET 2", order: `.*s.* LIMIT 5`, n: 3},
			{sql: "SELECT * FROM pg.tn WHERE s <> 'b' ORDER BY id DESC LIMIT 3", order: `.*id.* DESC LIMIT 3`, n: 3},
			// Renamed through a projection.
			{sql: "SELECT k, v FROM (SELECT id AS k, x AS v FROM pg.tn) ORDER BY v DESC, k LIMIT 4", order: `.*x.* DESC.*, .*id.* ASC LIMIT 4`, n: 4},
			// Not pushed: a filter the database cannot evaluate exactly,
			// a key that is an expression.
			{sql: "SELECT id FROM pg.tn WHERE upper(s) = 'B' ORDER BY id LIMIT 2", n: 2},
			{sql: "SELECT id, x FROM pg.tn ORDER BY x + 1, id LIMIT 3", n: 3},
		} {
			log.Reset()
			f, err := s.ExecuteBatch(ctx, tc.sql)
			require.NoError(t, err, tc.sql)
			got := rowsJSON(t, f)
			f.Release()
			want, err := catalog.SQLFrames(ctx, nil, strings.Replace(tc.sql, "pg.tn", "tn", 1), map[string]*dataframe.Frame{"tn": whole})
			require.NoError(t, err, tc.sql)
			require.Equal(t, rowsJSON(t, want), got, tc.sql)
			want.Release()
			require.Len(t, got, tc.n, tc.sql)

			var sent []string
			for _, line := range strings.Split(log.String(), "\n") {
				if _, stmt, ok := strings.Cut(line, ": SELECT "); ok && (strings.Contains(stmt, ` FROM "tn"`) || strings.Contains(stmt, " FROM `tn`")) && !strings.Contains(line, "describe:") {
					sent = append(sent, "SELECT "+stmt)
				}
			}
			require.Len(t, sent, 1, "%s: the statements sent:\n%s", tc.sql, log.String())
			if tc.order == "" {
				require.NotContains(t, sent[0], "ORDER BY", tc.sql)
				require.NotContains(t, sent[0], "LIMIT", tc.sql)
			} else {
				require.Regexp(t, " ORDER BY "+tc.order+"$", sent[0], tc.sql)
			}
		}
	})
}
