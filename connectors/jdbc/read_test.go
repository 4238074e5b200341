package jdbc_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/scan"
)

// Partitioned reads give every row once, NULLs and rows beyond the bounds
// included (Spark's meaning: the bounds set the stride only).
func TestPartitionedRead(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE p (id int, d date, ts timestamp NULL)")
		var vals []string
		for i := -5; i < 120; i++ {
			vals = append(vals, fmt.Sprintf("(%d, '2024-01-%02d', '2024-02-01 00:00:%02d')", i, (i%28+28)%28+1, (i+60)%60))
		}
		vals = append(vals, "(NULL, NULL, NULL)")
		db.Exec(t, "INSERT INTO p VALUES "+strings.Join(vals, ", "))
		want := db.Query(t, "SELECT COUNT(*) FROM p")[0][0]
		for _, tc := range [][]string{
			{"id", "7", "0", "100"},
			{"id", "3", "50", "50"},
			{"id", "200", "0", "10"},
			{"d", "4", "2024-01-05", "2024-01-20"},
			{"ts", "5", "2024-02-01T00:00:10Z", "2024-02-01T00:00:50Z"},
			{"ts", "3", "2024-01-31", "2024-02-02"}, // dates bound a timestamp column at midnight UTC, as Spark parses them
		} {
			ds := dataset(db, jdbc.PropDBTable, "p", jdbc.PropPartitionColumn, tc[0], jdbc.PropNumPartitions, tc[1],
				jdbc.PropLowerBound, tc[2], jdbc.PropUpperBound, tc[3], jdbc.PropFetchSize, "7")
			_, rows := read(t, ds)
			require.Equal(t, want, fmt.Sprint(len(rows)), tc)
			seen := map[string]bool{}
			for _, r := range rows {
				require.False(t, seen[r], "row read twice: %s", r)
				seen[r] = true
			}
		}
		_, err := (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, "p", jdbc.PropPartitionColumn, "id", jdbc.PropNumPartitions, "2"))
		require.ErrorContains(t, err, "without svc.jdbc.lower.bound")
		_, err = (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, "p", jdbc.PropPartitionColumn, "idd", jdbc.PropNumPartitions, "2", jdbc.PropLowerBound, "1", jdbc.PropUpperBound, "5"))
		require.ErrorContains(t, err, `has no column "idd" (did you mean id?)`)
	})
}

// Incremental reads return rows with a cursor ≥ the stored value, less
// those delivered at it; a row committed later with an equal cursor is
// not lost.
func TestIncrementalRead(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE ev (id int PRIMARY KEY, at timestamp(6) NULL, v text)",
			"INSERT INTO ev VALUES (1, '2024-01-01 00:00:00', 'a'), (2, '2024-01-02 00:00:00', 'b'), (3, '2024-01-02 00:00:00', 'c')")
		c := &jdbc.Connector{}
		ds := dataset(db, jdbc.PropDBTable, "ev", jdbc.PropIncrementalCursor, "at")
		ids := func(f *dataframe.Frame) []string {
			var out []string
			require.NoError(t, f.EachRowJSON(func(_ int64, obj []byte) error {
				out = append(out, string(obj[:strings.IndexByte(string(obj), ',')])+"}")
				return nil
			}))
			sort.Strings(out)
			return out
		}
		f, st, err := c.ReadIncremental(ctx(t), ds, nil)
		require.NoError(t, err)
		require.Equal(t, []string{`{"id":1}`, `{"id":2}`, `{"id":3}`}, ids(f))
		f.Release()
		require.Equal(t, "2024-01-02T00:00:00Z", st.LastValue)
		require.ElementsMatch(t, []string{"2", "3"}, st.KeysAtLastValue)

		db.Exec(t, "INSERT INTO ev VALUES (4, '2024-01-02 00:00:00', 'late'), (5, '2024-01-03 00:00:00', 'new')")
		f, st2, err := c.ReadIncremental(ctx(t), ds, st)
		require.NoError(t, err)
		require.Equal(t, []string{`{"id":4}`, `{"id":5}`}, ids(f))
		f.Release()
		require.Equal(t, "2024-01-03T00:00:00Z", st2.LastValue)
		require.Equal(t, []string{"5"}, st2.KeysAtLastValue)

		f, st3, err := c.ReadIncremental(ctx(t), ds, st2)
		require.NoError(t, err)
		require.Zero(t, f.NumRows())
		f.Release()
		require.Equal(t, st2.LastValue, st3.LastValue)

		_, _, err = c.ReadIncremental(ctx(t), ds, &connectors.State{Cursor: "other", LastValue: "1"})
		require.ErrorContains(t, err, "sluice state reset")
	})
}

// Pushdown: asked columns only, exact filters in the WHERE clause, the
// limit when every filter applied; the rest is left to the query engine.
func TestReadScanPushdown(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE s (id int, name varchar(10), tag char(3), n decimal(5,2))",
			"INSERT INTO s VALUES (1, 'a', 'x', 1.5), (2, 'A', 'y', 2.5), (3, 'b ', 'x', NULL), (4, NULL, NULL, 4)")
		var log strings.Builder
		ds := dataset(db, jdbc.PropDBTable, "s")
		ds.Log = &log
		req := scan.Request{
			Columns: []string{"id", "name"},
			Filters: []scan.Expr{
				scan.Compare{Op: "=", Left: scan.Column{Name: "name"}, Right: scan.Literal{Value: "a", Type: "string"}},
				scan.Compare{Op: "=", Left: scan.Column{Name: "tag"}, Right: scan.Literal{Value: "x", Type: "string"}},
			},
			Limit: 1,
		}
		s, applied, err := (&jdbc.Connector{}).ReadScan(ctx(t), ds, req)
		require.NoError(t, err)
		f, err := dataframe.Collect(s)
		s.Release()
		require.NoError(t, err)
		defer f.Release()
		require.Equal(t, []bool{true, false}, applied.Filters, "a char(3) comparison pads spaces: not exact")
		require.False(t, applied.Limit)
		require.Equal(t, []string{"id", "name"}, f.ColumnNames())
		require.Equal(t, int64(1), f.NumRows(), "'A' is not 'a' for Spark, whatever the collation")
		require.Contains(t, log.String(), "WHERE")

		req.Filters = req.Filters[:1]
		req.Limit = 5
		s, applied, err = (&jdbc.Connector{}).ReadScan(ctx(t), ds, req)
		require.NoError(t, err)
		require.True(t, applied.Limit)
		require.Equal(t, 2, s.Schema().NumFields(), "the schema before any statement")
		s.Release()
		require.NotContains(t, log.String(), "LIMIT 5", "a stream released unread sends no SELECT")
		s, _, err = (&jdbc.Connector{}).ReadScan(ctx(t), ds, req)
		require.NoError(t, err)
		require.True(t, s.Next())
		s.Release()
		require.Contains(t, log.String(), "LIMIT 5")
	})
}

// A query read of a missing table names the database and host:port, and
// the closest table of the database's catalog.
func TestQueryReadMissingTable(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE orders (id int)")
		_, err := (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropQuery, "SELECT id FROM ordrs WHERE id > 1"))
		require.ErrorIs(t, err, jdbc.ErrTableNotFound)
		require.ErrorContains(t, err, "ordrs")
		require.ErrorContains(t, err, "svc.jdbc.query")
		require.ErrorContains(t, err, db.Name)
		require.ErrorContains(t, err, "(did you mean orders?)")
	})
}

// dbtable's parts are quoted as written: PostgreSQL's database.schema.table
// reads the table (the database the URL's), more parts than the database
// has are an error saying so.
func TestDBTableParts(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE parts (id int)", "INSERT INTO parts VALUES (7)")
		if db.Dialect == "postgres" {
			_, rows := read(t, dataset(db, jdbc.PropDBTable, db.Name+".public.parts"))
			require.Equal(t, []string{`{"id":7}`}, rows)
			_, err := (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, "otherdb.public.parts"))
			require.ErrorContains(t, err, "svc.jdbc.dbtable otherdb.public.parts names database otherdb, not the URL's "+db.Name)
			_, err = (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, "a.b.c.d"))
			require.ErrorContains(t, err, "svc.jdbc.dbtable a.b.c.d: PostgreSQL names a table [[database.]schema.]table")
			return
		}
		_, err := (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, "x."+db.Name+".parts"))
		require.ErrorContains(t, err, "svc.jdbc.dbtable x."+db.Name+".parts: MySQL names a table [database.]table")
	})
}
