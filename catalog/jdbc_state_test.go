package catalog_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	_ "github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

// An incremental REST read inserted into a JDBC table keeps its state in
// the target database, committed with the rows (docs/jdbc.md#exactly-once).
func TestIncrementalStateKeptByJDBCTarget(t *testing.T) {
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		api := &eventsAPI{}
		for i := 1; i <= 5; i++ {
			api.add(i, fmt.Sprintf("2024-01-0%dT00:00:00Z", i))
		}
		s, _ := incrementalSetup(t, api)
		ctx := context.Background()
		_, err := s.ExecuteBatch(ctx, fmt.Sprintf(`CREATE TABLE db.events TBLPROPERTIES (
			'svc.storage.type'='JDBC', 'svc.jdbc.url'='%s', 'svc.jdbc.dbtable'='events',
			'svc.jdbc.mode'='merge', 'svc.jdbc.merge.key'='id')`, db.URL))
		require.NoError(t, err)

		insert := func() []string {
			f, err := s.ExecuteBatch(ctx, `INSERT INTO db.events SELECT * FROM api.events`)
			require.NoError(t, err)
			defer f.Release()
			return rowsJSON(t, f)
		}
		require.Equal(t, []string{`{"num_affected_rows":5,"num_inserted_rows":5,"num_updated_rows":0}`}, insert())
		require.NoFileExists(t, statePath(t, s))
		tbl, err := s.Catalog().Get(ctx, "api", "events")
		require.NoError(t, err)
		require.Equal(t, "db.events", tbl.StateStore)
		st, where, err := s.State(ctx, "api.events")
		require.NoError(t, err)
		require.Equal(t, "db.events", where)
		require.Equal(t, "2024-01-05T00:00:00Z", st.LastValue)
		require.Equal(t, []string{"5"}, st.KeysAtLastValue)
		rows := db.Query(t, "SELECT table_name, updated_at IS NOT NULL FROM sluice_state")
		require.Len(t, rows, 1)
		require.Equal(t, "api.events", rows[0][0])

		// The next run reads from the stored value; the re-sent id 5 is
		// dropped, ids 6 and 7 are new.
		api.add(6, "2024-01-06T00:00:00Z")
		api.add(7, "2024-01-07T00:00:00Z")
		require.Equal(t, []string{`{"num_affected_rows":2,"num_inserted_rows":2,"num_updated_rows":0}`}, insert())
		require.Equal(t, "2024-01-05T00:00:00Z", api.firstSinces()[1])
		require.Equal(t, [][]string{{"7", "7"}}, db.Query(t, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events"))

		// A failing write moves nothing: rows and state stay.
		api.add(8, "2024-01-08T00:00:00Z")
		db.Exec(t, "ALTER TABLE events ADD COLUMN must TEXT NOT NULL DEFAULT 'x'")
		db.Exec(t, "ALTER TABLE events ALTER COLUMN must DROP DEFAULT")
		_, err = s.ExecuteBatch(ctx, `INSERT INTO db.events SELECT * FROM api.events`)
		require.Error(t, err)
		st, _, err = s.State(ctx, "api.events")
		require.NoError(t, err)
		require.Equal(t, "2024-01-07T00:00:00Z", st.LastValue)
		require.Equal(t, [][]string{{"7"}}, db.Query(t, "SELECT COUNT(*) FROM events"))

		// reset deletes the row and the record.
		had, err := s.ResetState(ctx, "api.events")
		require.NoError(t, err)
		require.True(t, had)
		st, _, err = s.State(ctx, "api.events")
		require.NoError(t, err)
		require.Nil(t, st)
		require.Empty(t, db.Query(t, "SELECT * FROM sluice_state"))
		tbl, err = s.Catalog().Get(ctx, "api", "events")
		require.NoError(t, err)
		require.Empty(t, tbl.StateStore)
	})
}

// Written to a file target again, the state moves back to its file: the
// row in the database goes with the entry's record of it.
func TestIncrementalStateMovesBackToFile(t *testing.T) {
	t.Parallel()
	db := jdbctest.Postgres(t)
	api := &eventsAPI{}
	api.add(1, "2024-01-01T00:00:00Z")
	s, _ := incrementalSetup(t, api)
	ctx := context.Background()
	_, err := s.ExecuteBatch(ctx, fmt.Sprintf(`CREATE TABLE db.events TBLPROPERTIES (
		'svc.storage.type'='JDBC', 'svc.jdbc.url'='%s', 'svc.jdbc.dbtable'='events')`, db.URL))
	require.NoError(t, err)
	_, err = s.ExecuteBatch(ctx, `INSERT INTO db.events SELECT * FROM api.events`)
	require.NoError(t, err)
	require.Len(t, db.Query(t, "SELECT * FROM sluice_state"), 1)

	api.add(2, "2024-01-02T00:00:00Z")
	_, err = insertRows(ctx, t, s)
	require.NoError(t, err)
	require.FileExists(t, statePath(t, s))
	require.Empty(t, db.Query(t, "SELECT * FROM sluice_state"))
	tbl, err := s.Catalog().Get(ctx, "api", "events")
	require.NoError(t, err)
	require.Empty(t, tbl.StateStore)
	st, where, err := s.State(ctx, "api.events")
	require.NoError(t, err)
	require.Equal(t, statePath(t, s), where)
	require.Equal(t, "2024-01-02T00:00:00Z", st.LastValue)
}

// A load whose source state another load committed after this one read
// it — a concurrent run, or a killed run whose COMMIT the server finished
// after the rerun had read the state — fails and writes nothing: the rows
// are never delivered twice (docs/jdbc.md#exactly-once).
func TestIncrementalStateChangedMeanwhile(t *testing.T) {
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		api := &eventsAPI{}
		for i := 1; i <= 3; i++ {
			api.add(i, fmt.Sprintf("2024-01-0%dT00:00:00Z", i))
		}
		s, _ := incrementalSetup(t, api)
		ctx := context.Background()
		_, err := s.ExecuteBatch(ctx, fmt.Sprintf(`CREATE TABLE db.events TBLPROPERTIES (
			'svc.storage.type'='JDBC', 'svc.jdbc.url'='%s', 'svc.jdbc.dbtable'='events')`, db.URL))
		require.NoError(t, err)
		insert := func() (string, error) {
			f, err := s.ExecuteBatch(ctx, `INSERT INTO db.events SELECT * FROM api.events`)
			if err != nil {
				return "", err
			}
			defer f.Release()
			return rowsJSON(t, f)[0], nil
		}
		got, err := insert()
		require.NoError(t, err)
		require.Contains(t, got, `"num_inserted_rows":3`)

		// While this run reads on from id 3, another load delivers ids 4
		// and 5 and commits their state.
		api.add(4, "2024-01-04T00:00:00Z")
		api.add(5, "2024-01-05T00:00:00Z")
		other := true
		api.onFirstPage = func() {
			if !other {
				return
			}
			other = false
			db.Exec(t, "INSERT INTO events (id, updated_at) VALUES (4, '2024-01-04T00:00:00Z'), (5, '2024-01-05T00:00:00Z')")
			db.Exec(t, `UPDATE sluice_state SET state = '{"cursor":"updated_at","last_value":"2024-01-05T00:00:00Z","keys_at_last_value":["5"],"updated_at":"2026-01-01T00:00:00Z"}' WHERE table_name = 'api.events'`)
		}
		_, err = insert()
		require.ErrorIs(t, err, connectors.ErrStateChanged)
		require.Contains(t, err.Error(), `updated_at="2024-01-03T00:00:00Z"`)
		require.Equal(t, [][]string{{"5", "5"}}, db.Query(t, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events"))
		st, _, err := s.State(ctx, "api.events")
		require.NoError(t, err)
		require.Equal(t, "2024-01-05T00:00:00Z", st.LastValue)

		// The rerun reads on from the state that is there.
		got, err = insert()
		require.NoError(t, err)
		require.Contains(t, got, `"num_inserted_rows":0`)
		require.Equal(t, [][]string{{"5", "5"}}, db.Query(t, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events"))

		// With no state when the read starts, another load storing one
		// first (its row inserted, committed later) fails this one too.
		db.Exec(t, "DELETE FROM events")
		db.Exec(t, "DELETE FROM sluice_state")
		other = true
		api.onFirstPage = func() {
			if !other {
				return
			}
			other = false
			db.Exec(t, "INSERT INTO events (id, updated_at) VALUES (1, '2024-01-01T00:00:00Z')")
			db.Exec(t, `INSERT INTO sluice_state (table_name, state, updated_at) VALUES ('api.events', '{"cursor":"updated_at","last_value":"2024-01-01T00:00:00Z","keys_at_last_value":["1"]}', '2026-01-01 00:00:00')`)
		}
		_, err = insert()
		require.ErrorIs(t, err, connectors.ErrStateChanged)
		require.Contains(t, err.Error(), "was empty when this load read it")
		require.Equal(t, [][]string{{"1", "1"}}, db.Query(t, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events"))
		got, err = insert()
		require.NoError(t, err)
		require.Contains(t, got, `"num_inserted_rows":4`)
		require.Equal(t, [][]string{{"5", "5"}}, db.Query(t, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events"))
	})
}
