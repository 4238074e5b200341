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
			// A top-N reads the table once: a database's rows have no
			// positions a second read could pick the winners by.
			{sql: "SELECT id, name FROM pg.t ORDER BY x DESC, id LIMIT 3",
				sent: `^SELECT "id", "x", "name" FROM "t"$`, n: 3},
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
