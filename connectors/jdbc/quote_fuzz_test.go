package jdbc_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors/jdbc"
	"github.com/sluicedata/sluice/connectors/jdbc/jdbctest"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

var nastyNames = []string{`Mixed Case`, `a"b`, "a`b", `a'b`, `x; DROP TABLE t; --`, `ünï cødé`, `select`, `a\b`, `$1`, `?`, `  spaced  `}

// Identifiers are quoted, never pasted: a table and a column of any name
// are created, written and read back under that very name.
func TestQuotedIdentifiersRoundTrip(t *testing.T) {
	t.Parallel()
	jdbctest.Each(t, func(t *testing.T, db *jdbctest.DB) {
		t.Parallel()
		for _, name := range nastyNames {
			roundTripName(t, db, name)
		}
		require.Equal(t, [][]string{{"1"}}, db.Query(t, "SELECT 1"), "the database survived")
	})
}

func FuzzQuotedIdentifier(f *testing.F) {
	for _, n := range nastyNames {
		f.Add(n)
	}
	db := jdbctest.Postgres(f)
	f.Fuzz(func(t *testing.T, name string) {
		if name == "" || name == "v" || strings.TrimSpace(name) != name || !utf8.ValidString(name) || strings.ContainsAny(name, "\x00.") || len(name) > 50 {
			t.Skip()
		}
		db.Exec(t, `DROP TABLE IF EXISTS "t `+strings.ReplaceAll(name, `"`, `""`)+`"`)
		roundTripName(t, db, name)
	})
}

func roundTripName(t *testing.T, db *jdbctest.DB, name string) {
	t.Helper()
	if db.Dialect == "mysql" {
		name = strings.TrimRight(name, " ") // MySQL drops trailing spaces of names
	}
	doc, _ := jsonframe.FromValues([]string{name, "v"}, [][]any{{int64(1), "x"}})
	defer doc.Release()
	ds := dataset(db, jdbc.PropDBTable, "t "+name)
	if strings.TrimSpace(name) != name || strings.Contains(name, ",") {
		// merge.key is a comma list of trimmed names: no key then.
		write(t, ds, doc)
	} else {
		ds.Props[jdbc.PropMergeKey] = name
		write(t, ds, doc)
		write(t, dataset(db, jdbc.PropDBTable, "t "+name, jdbc.PropMode, "merge"), doc)
	}
	f, err := (&jdbc.Connector{}).Read(ctxTB(t), ds)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{name, "v"}, f.ColumnNames())
	require.Equal(t, int64(1), f.NumRows(), name)
}
