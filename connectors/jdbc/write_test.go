package jdbc_test

import (
	"bytes"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

func TestWriteModes(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		f := frameOf(t, `{"id":1,"name":"a","score":1.5,"ok":true,"tags":["x","y"],"at":"2024-01-02T03:04:05Z"}
{"id":2,"name":"b\tc\\d\nnew","score":null,"ok":false,"tags":[],"at":null}`)
		ds := dataset(db, jdbc.PropDBTable, "items", jdbc.PropMergeKey, "id")
		res := write(t, ds, f)
		require.Equal(t, &connectors.WriteCounts{Affected: 2, Inserted: 2}, res.Counts)
		_, rows := read(t, ds)
		tags := `["x","y"]`
		empty := `[]`
		if db.Dialect == "mysql" {
			tags, empty = `"[\"x\",\"y\"]"`, `"[]"`
		}
		require.Equal(t, []string{
			`{"at":"2024-01-02T03:04:05Z","id":1,"name":"a","ok":true,"score":1.5,"tags":` + tags + `}`,
			`{"at":null,"id":2,"name":"b\tc\\d\nnew","ok":false,"score":null,"tags":` + empty + `}`,
		}, rows)

		// merge: id 2 updated (its last row wins), id 3 inserted.
		merge := dataset(db, jdbc.PropDBTable, "items", jdbc.PropMode, "merge")
		res = write(t, merge, frameOf(t, `{"id":2,"name":"first"}
{"id":3,"name":"new"}
{"id":2,"name":"last"}`))
		require.Equal(t, &connectors.WriteCounts{Affected: 2, Inserted: 1, Updated: 1}, res.Counts)
		require.Equal(t, [][]string{{"1", "a"}, {"2", "last"}, {"3", "new"}}, db.Query(t, "SELECT id, name FROM items ORDER BY id"))

		// append a row with a new column (schema.evolution=add).
		res = write(t, dataset(db, jdbc.PropDBTable, "items"), frameOf(t, `{"id":4,"extra":7}`))
		require.Equal(t, int64(1), res.Counts.Inserted)
		require.Equal(t, [][]string{{"1", "NULL"}, {"2", "NULL"}, {"3", "NULL"}, {"4", "7"}}, db.Query(t, "SELECT id, extra FROM items ORDER BY id"))

		// schema.evolution=fail names the column; nothing written.
		_, err := (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, "items", jdbc.PropSchemaEvolution, "fail"), frameOf(t, `{"id":5,"nope":1}`))
		require.ErrorIs(t, err, jdbc.ErrSchema)
		require.ErrorContains(t, err, "no column nope")
		_, err = (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, "items", jdbc.PropSchemaEvolution, "fail"), frameOf(t, `{"id":5,"nope":1,"name":"x","nix":2}`))
		require.ErrorIs(t, err, jdbc.ErrSchema)
		require.ErrorContains(t, err, "has no columns nix, nope (svc.jdbc.schema.evolution=fail)")
		require.Equal(t, [][]string{{"4"}}, db.Query(t, "SELECT count(*) FROM items"))

		// overwrite keeps the table (and its key), replaces the rows.
		res = write(t, dataset(db, jdbc.PropDBTable, "items", jdbc.PropMode, "overwrite"), frameOf(t, `{"id":9,"name":"only"}`))
		require.Equal(t, int64(1), res.Counts.Inserted)
		require.Equal(t, [][]string{{"9", "only"}}, db.Query(t, "SELECT id, name FROM items"))
		_, err = (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, "items"), frameOf(t, `{"id":9}`))
		require.Error(t, err, "the primary key survived the overwrite")
		require.Equal(t, [][]string{{"9", "only"}}, db.Query(t, "SELECT id, name FROM items"))

		// A type that cannot go in names both types.
		_, err = (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, "items"), frameOf(t, `{"id":"x"}`))
		require.ErrorIs(t, err, jdbc.ErrSchema)
		require.ErrorContains(t, err, "column id: the frame's string cannot go into the table's long")
	})
}

// A value out of range fails the whole write, naming table, column, the
// row's position in the frame and its key.
func TestWriteBadValueNamesRow(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE small (id bigint PRIMARY KEY, n smallint, s varchar(3))")
		var b strings.Builder
		for i := 1; i <= 10; i++ {
			n := i
			if i == 7 {
				n = 40000
			}
			b.WriteString(`{"id":` + strconv.Itoa(i) + `,"n":` + strconv.Itoa(n) + `,"s":"ab"}` + "\n")
		}
		for _, mode := range []string{"append", "merge"} {
			_, err := (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, "small", jdbc.PropMode, mode, jdbc.PropBatchRows, "3"), frameOf(t, b.String()))
			require.ErrorIs(t, err, jdbc.ErrValue)
			require.ErrorContains(t, err, "table small, column n, row 7 (key id=7)")
			require.Equal(t, [][]string{{"0"}}, db.Query(t, "SELECT COUNT(*) FROM small"))
		}
		// The database refuses a value: a string too long for varchar(3).
		_, err := (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, "small"), frameOf(t, `{"id":1,"s":"abc"}
{"id":2,"s":"abcd"}`))
		require.ErrorIs(t, err, jdbc.ErrValue)
		require.ErrorContains(t, err, "table small, column s, row 2 (key id=2)")
		require.Equal(t, [][]string{{"0"}}, db.Query(t, "SELECT COUNT(*) FROM small"))
	})
}

// Errors name host:port, the user (never the password) and the table with
// a did-you-mean from the database's catalog.
func TestErrorsNameTheCause(t *testing.T) {
	t.Parallel()
	c := &jdbc.Connector{}
	for _, u := range []string{"postgres://u:s3cretpw@127.0.0.1:1/x", "jdbc:mysql://127.0.0.1:1/x?user=u&password=s3cretpw"} {
		_, err := c.Read(ctx(t), &connectors.Dataset{Props: connectors.Props{jdbc.PropURL: u, jdbc.PropDBTable: "t"}})
		require.ErrorIs(t, err, jdbc.ErrConnect)
		require.ErrorContains(t, err, "127.0.0.1:1")
		require.NotContains(t, err.Error(), "s3cretpw")
	}
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE customers (id int)")
		_, err := c.Read(ctx(t), dataset(db, jdbc.PropDBTable, "custmers"))
		require.ErrorIs(t, err, jdbc.ErrTableNotFound)
		require.ErrorContains(t, err, "did you mean customers?")

		bad := strings.Replace(db.URL, "://", "://nobody_here:wrongpw@", 1)
		if i := strings.Index(db.URL, "@"); i >= 0 {
			bad = db.URL[:strings.Index(db.URL, "://")+3] + "nobody_here:wrongpw" + db.URL[i:]
		}
		_, err = c.Read(ctx(t), &connectors.Dataset{Props: connectors.Props{jdbc.PropURL: bad, jdbc.PropDBTable: "customers"}})
		require.ErrorIs(t, err, jdbc.ErrLogin)
		require.ErrorContains(t, err, "nobody_here")
		require.NotContains(t, err.Error(), "wrongpw")

		// The statements sent are logged, one line each.
		var log bytes.Buffer
		ds := dataset(db, jdbc.PropDBTable, "customers")
		ds.Log = &log
		_, _ = read(t, ds)
		_, err = c.Read(ctx(t), ds)
		require.NoError(t, err)
		require.Contains(t, log.String(), "SELECT ")
		require.Contains(t, log.String(), "customers")
	})
}

// A reference in the URL is resolved by each read and write, never at
// CREATE TABLE; an unknown property is an error with a did-you-mean.
func TestValidate(t *testing.T) {
	t.Parallel()
	c := &jdbc.Connector{}
	require.NoError(t, c.Validate(nil, connectors.Props{jdbc.PropURL: "${env:DB_URL}", jdbc.PropDBTable: "t"}))
	require.NoError(t, c.Validate(nil, connectors.Props{jdbc.PropURL: "jdbc:mysql://h:3306/db?user=u&password=p", jdbc.PropQuery: "SELECT 1"}))
	err := c.Validate(nil, connectors.Props{jdbc.PropURL: "postgres://h/db", jdbc.PropDBTable: "t", "svc.jdbc.fetchsise": "5"})
	require.ErrorContains(t, err, "unknown property svc.jdbc.fetchsise (did you mean svc.jdbc.fetchsize?)")
	err = c.Validate(nil, connectors.Props{jdbc.PropURL: "postgres://h/db"})
	require.ErrorContains(t, err, "svc.jdbc.dbtable (or svc.jdbc.query) is required")
	err = c.Validate(nil, connectors.Props{jdbc.PropURL: "postgres://u:hunter22@h/db", jdbc.PropDBTable: "t", jdbc.PropQuery: "SELECT 1"})
	require.ErrorContains(t, err, "both set")
	require.NotContains(t, err.Error(), "hunter22")
	// A password with URL characters in it must be escaped; the error says so.
	err = c.Validate(nil, connectors.Props{jdbc.PropURL: "mysql://u:hunter@22:x/y#z@h:3306/db", jdbc.PropDBTable: "t"})
	require.ErrorContains(t, err, "percent-encode")
	require.NotContains(t, err.Error(), "hunter")
	require.NotContains(t, err.Error(), `":x"`, "no piece of the password either")
	// A misspelled property is as secret as the one it misspells: merge_key
	// (a "key") is not, so its value does not garble the message; passwrd is.
	typo := connectors.Props{jdbc.PropURL: "postgres://h/db", jdbc.PropDBTable: "t", "svc.jdbc.merge_key": "id"}
	err = connectors.NewRedactor(typo).Error(c.Validate(nil, typo))
	require.ErrorContains(t, err, "unknown property svc.jdbc.merge_key (did you mean svc.jdbc.merge.key?)")
	require.True(t, connectors.IsSecretKey("svc.jdbc.passwrd"))
	require.True(t, connectors.IsSecretKey("svc.jdbc.apikey"), "not close to a declared name: secret by its name")
}

// A permission error names the user and the privilege; nothing is written.
func TestPermissionErrorNamesPrivilege(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		user := "ro_" + db.Name[len(db.Name)-10:]
		db.Exec(t, "CREATE TABLE guarded (id int)")
		var url string
		if db.Dialect == "postgres" {
			db.Exec(t, "CREATE ROLE "+user+" LOGIN", "GRANT SELECT ON guarded TO "+user)
			t.Cleanup(func() { db.Exec(t, "DROP OWNED BY "+user, "DROP ROLE "+user) })
			url = strings.Replace(db.URL, "postgres@", user+"@", 1)
		} else {
			db.Exec(t, "CREATE USER '"+user+"'@'%'", "GRANT SELECT ON "+db.Name+".* TO '"+user+"'@'%'")
			t.Cleanup(func() { db.Exec(t, "DROP USER '"+user+"'@'%'") })
			url = strings.Replace(db.URL, "root@", user+"@", 1)
		}
		ds := &connectors.Dataset{Name: "db.guarded", Props: connectors.Props{jdbc.PropURL: url, jdbc.PropDBTable: "guarded"}}
		_, err := (&jdbc.Connector{}).Read(ctx(t), ds)
		require.NoError(t, err, "SELECT is granted")

		// A database the user may not use, or that does not exist (MySQL
		// does not tell them apart), is named with host:port and the user.
		u, err := neturl.Parse(url)
		require.NoError(t, err)
		elsewhere := strings.Replace(url, "/"+db.Name, "/nosuchdb_"+db.Name[len(db.Name)-6:], 1)
		_, err = (&jdbc.Connector{}).Read(ctx(t), &connectors.Dataset{Props: connectors.Props{jdbc.PropURL: elsewhere, jdbc.PropDBTable: "guarded"}})
		require.Error(t, err)
		require.ErrorContains(t, err, u.Host)
		require.ErrorContains(t, err, "nosuchdb_"+db.Name[len(db.Name)-6:])
		if db.Dialect == "mysql" {
			require.ErrorIs(t, err, jdbc.ErrPermission)
			require.ErrorContains(t, err, user)
		}
		_, err = (&jdbc.Connector{}).Write(ctx(t), ds, frameOf(t, `{"id":1}`))
		require.ErrorIs(t, err, jdbc.ErrPermission)
		require.ErrorContains(t, err, user)
		require.ErrorContains(t, err, "INSERT")
		require.Equal(t, [][]string{{"0"}}, db.Query(t, "SELECT COUNT(*) FROM guarded"))
	})
}

// Within one merge the last row of a key wins, also when its rows are in
// different bulk-load batches.
func TestMergeLastRowWinsAcrossBatches(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE m (id bigint PRIMARY KEY, v text)", "INSERT INTO m VALUES (5, 'old'), (6, 'keep')")
		var b strings.Builder
		for i, id := range []int{5, 1, 2, 5, 3, 4, 5, 7, 5, 8} {
			b.WriteString(`{"id":` + strconv.Itoa(id) + `,"v":"v` + strconv.Itoa(i) + `"}` + "\n")
		}
		res := write(t, dataset(db, jdbc.PropDBTable, "m", jdbc.PropMode, "merge", jdbc.PropBatchRows, "2"), frameOf(t, b.String()))
		require.Equal(t, &connectors.WriteCounts{Affected: 7, Inserted: 6, Updated: 1}, res.Counts)
		require.Equal(t, [][]string{{"1", "v1"}, {"2", "v2"}, {"3", "v4"}, {"4", "v5"}, {"5", "v8"}, {"6", "keep"}, {"7", "v7"}, {"8", "v9"}},
			db.Query(t, "SELECT id, v FROM m ORDER BY id"))
	})
}

// A row a constraint refuses — a NULL in a NOT NULL column, a key already
// there or twice in the frame — is jdbc.ErrRejected naming that row and its
// key, on both databases; nothing is written.
func TestWriteRejectedRowNamesRow(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		db.Exec(t, "CREATE TABLE r (id bigint PRIMARY KEY, name varchar(10) NOT NULL)", "INSERT INTO r VALUES (2, 'old')")
		ds := dataset(db, jdbc.PropDBTable, "r")
		for _, c := range []struct{ rows, want string }{
			{`{"id":10,"name":"a"}
{"id":11,"name":null}`, "table r, column name, row 2 (key id=11)"},
			{`{"id":20,"name":"a"}
{"id":21,"name":"b"}
{"id":2,"name":"c"}
{"id":22,"name":"d"}`, "table r, row 3 (key id=2)"},
			{`{"id":30,"name":"a"}
{"id":31,"name":"b"}
{"id":30,"name":"c"}`, "table r, row 3 (key id=30)"},
		} {
			_, err := (&jdbc.Connector{}).Write(ctx(t), ds, frameOf(t, c.rows))
			require.ErrorIs(t, err, jdbc.ErrRejected)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, [][]string{{"2", "old"}}, db.Query(t, "SELECT id, name FROM r"))
		}
		// A CHECK constraint refuses a row: ErrRejected too (MySQL's warning
		// names no row, nor does a merge's statement).
		db.Exec(t, "CREATE TABLE chk (id int PRIMARY KEY, n int CHECK (n > 0))")
		for _, mode := range []string{"append", "merge"} {
			_, err := (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, "chk", jdbc.PropMode, mode), frameOf(t, `{"id":1,"n":1}
{"id":2,"n":-1}`))
			require.ErrorIs(t, err, jdbc.ErrRejected, mode)
			require.ErrorContains(t, err, "table chk", mode)
			require.Equal(t, [][]string{{"0"}}, db.Query(t, "SELECT COUNT(*) FROM chk"))
		}
		// A merge too, whose rows the database checks only when they leave
		// the staging table.
		merge := dataset(db, jdbc.PropDBTable, "r", jdbc.PropMode, "merge", jdbc.PropBatchRows, "2")
		for _, c := range []struct{ rows, want string }{
			{`{"id":40,"name":"a"}
{"id":2,"name":"b"}
{"id":41,"name":null}`, "table r, column name, row 3 (key id=41)"},
			{`{"id":50,"name":"a"}
{"id":null,"name":"b"}`, "table r, column id, row 2 (key id=NULL)"},
		} {
			_, err := (&jdbc.Connector{}).Write(ctx(t), merge, frameOf(t, c.rows))
			require.ErrorIs(t, err, jdbc.ErrRejected)
			require.ErrorContains(t, err, c.want)
			require.Equal(t, [][]string{{"2", "old"}}, db.Query(t, "SELECT id, name FROM r"))
		}
	})
}

// A misspelled schema (MySQL: database) gets its did-you-mean too, from the
// database's catalog.
func TestTableNotFoundSuggestsSchema(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		schema := db.Name
		if db.Dialect == "postgres" {
			schema = "sales"
			db.Exec(t, "CREATE SCHEMA sales")
		}
		db.Exec(t, "CREATE TABLE "+schema+".orders_dym (id int)")
		wrong := schema[:len(schema)-1] + "q"
		for _, c := range []struct{ table, want string }{
			{wrong + ".orders_dym", "(did you mean " + schema + ".orders_dym?)"},
			{wrong + ".order_dym", "(did you mean " + schema + ".orders_dym?)"},
			{schema + ".ordersdym", "(did you mean " + schema + ".orders_dym?)"},
		} {
			_, err := (&jdbc.Connector{}).Read(ctx(t), dataset(db, jdbc.PropDBTable, c.table))
			require.ErrorIs(t, err, jdbc.ErrTableNotFound)
			require.ErrorContains(t, err, c.want)
		}
	})
}

// merge.key names columns as SQL does, in any case, also for a table the
// write creates.
func TestMergeKeyAnyCase(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		ds := dataset(db, jdbc.PropDBTable, "k", jdbc.PropMode, "merge", jdbc.PropMergeKey, "ID")
		write(t, ds, frameOf(t, `{"id":1,"v":"a"}`))
		res := write(t, ds, frameOf(t, `{"id":1,"v":"b"}
{"id":2,"v":"c"}`))
		require.Equal(t, &connectors.WriteCounts{Affected: 2, Inserted: 1, Updated: 1}, res.Counts)
		require.Equal(t, [][]string{{"1", "b"}, {"2", "c"}}, db.Query(t, "SELECT id, v FROM k ORDER BY id"))
	})
}

// A write creating a table in a schema (MySQL: database) that does not
// exist names it, the database and host:port, with a did-you-mean.
func TestWriteMissingSchema(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		schema := db.Name
		if db.Dialect == "postgres" {
			schema = "sales"
			db.Exec(t, "CREATE SCHEMA sales", "CREATE TABLE sales.x (id int)")
		}
		wrong := schema[:len(schema)-1] + "q"
		_, err := (&jdbc.Connector{}).Write(ctx(t), dataset(db, jdbc.PropDBTable, wrong+".orders"), frameOf(t, `{"id":1}`))
		require.ErrorIs(t, err, jdbc.ErrTableNotFound)
		require.ErrorContains(t, err, "schema "+wrong)
		require.ErrorContains(t, err, "(did you mean "+schema+"?)")
	})
}
