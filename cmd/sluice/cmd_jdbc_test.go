package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
)

// The CLI over a JDBC table: sluice write prints the counts, INSERT shows
// them, CONSOLE logs the statements with the password masked, and an error
// names its cause with exit 1.
func TestJDBCCommands(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		dir := t.TempDir()
		cat := filepath.Join(dir, "cat")
		secretURL := strings.Replace(db.URL, "://", "://"+userOf(db.URL)+":pw-n0t-shown@", 1)
		if strings.Contains(db.URL, "@") {
			secretURL = db.URL[:strings.Index(db.URL, "@")] + ":pw-n0t-shown" + db.URL[strings.Index(db.URL, "@"):]
		}
		code, _, stderr := datasetCLI(t, "", nil, "sql", "--catalog", cat, "-e", `
			CREATE TABLE db.items TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='`+db.URL+`',
			  'svc.jdbc.dbtable'='items', 'svc.jdbc.merge.key'='id');
			CREATE TABLE db.secret TBLPROPERTIES ('svc.storage.type'='JDBC', 'svc.jdbc.url'='`+secretURL+`', 'svc.jdbc.dbtable'='nope')`)
		require.Equal(t, 0, code, stderr)
		in := filepath.Join(dir, "rows.ndjson")
		require.NoError(t, os.WriteFile(in, []byte(`{"id":1,"name":"a"}`+"\n"+`{"id":2,"name":"b"}`+"\n"), 0o644))
		code, stdout, stderr := datasetCLI(t, "", nil, "write", "db.items", "--input", in, "--catalog", cat)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, "wrote 2 of 2 rows to db.items (num_affected_rows=2, num_inserted_rows=2, num_updated_rows=0)\n", stdout)

		code, stdout, stderr = datasetCLI(t, "", nil, "sql", "--catalog", cat, "--format", "json", "--set", "svc.logging.level=CONSOLE",
			"--set", "svc.jdbc.mode=merge", "-e", "INSERT INTO db.items VALUES (2, 'B'), (3, 'c')")
		require.Equal(t, 0, code, stderr)
		require.Equal(t, `{"num_affected_rows":2,"num_inserted_rows":1,"num_updated_rows":1}`+"\n", stdout)
		require.Contains(t, stderr, "JDBC ")
		require.Contains(t, stderr, "COMMIT")

		// read --schema describes the table without reading its rows.
		code, stdout, stderr = datasetCLI(t, "", nil, "read", "db.items", "--schema", "--catalog", cat, "--set", "svc.logging.level=CONSOLE")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stdout, " |-- id: long (nullable = ")
		require.Contains(t, stdout, " |-- name: string (nullable = ")
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, ": SELECT ") && strings.Contains(line, "items") {
				require.Contains(t, line, "describe:", "read --schema sent a data statement:\n%s", stderr)
			}
		}

		code, stdout, _ = datasetCLI(t, "", nil, "sql", "--catalog", cat, "--format", "json", "-e", "SELECT name FROM db.items WHERE id >= 2 ORDER BY id")
		require.Equal(t, 0, code)
		require.Equal(t, `{"name":"B"}`+"\n"+`{"name":"c"}`+"\n", stdout)

		code, stdout, stderr = datasetCLI(t, "", nil, "sql", "--catalog", cat, "--set", "svc.logging.level=CONSOLE", "-e", "DESCRIBE db.secret")
		require.Equal(t, 0, code, stderr)
		require.NotContains(t, stdout, "pw-n0t-shown")
		code, _, stderr = datasetCLI(t, "", nil, "sql", "--catalog", cat, "--set", "svc.logging.level=CONSOLE", "-e", "SELECT * FROM db.secret")
		require.Equal(t, 1, code)
		require.NotContains(t, stderr, "pw-n0t-shown")
		require.Contains(t, stderr, "sluice: ")
	})
}

func userOf(u string) string {
	if strings.HasPrefix(u, "mysql") {
		return "root"
	}
	return "postgres"
}
