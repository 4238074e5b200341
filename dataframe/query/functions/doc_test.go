package functions_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

var update = flag.Bool("update", false, "rewrite the function reference in docs/sql-functions.md from the registry")

const (
	docPath   = "../../../docs/sql-functions.md"
	docBegin  = "<!-- Generated from the function registry: do not edit by hand (see above). -->\n"
	docFinish = "<!-- END generated functions -->\n"
)

// TestFunctionsDoc keeps docs/sql-functions.md's reference equal to the
// registry; -update rewrites it.
func TestFunctionsDoc(t *testing.T) {
	page, err := os.ReadFile(docPath)
	require.NoError(t, err)
	text := string(page)
	start, end := strings.Index(text, docBegin), strings.Index(text, docFinish)
	require.True(t, start >= 0 && end > start, "docs/sql-functions.md lacks the generated-section markers")
	want := text[:start+len(docBegin)] + fn.FunctionsMarkdown() + text[end:]
	if *update {
		require.NoError(t, os.WriteFile(docPath, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, text, "docs/sql-functions.md is out of date: go test ./dataframe/query/functions -run TestFunctionsDoc -update")
}

// TestRegistrationsComplete checks that every function documents itself.
func TestRegistrationsComplete(t *testing.T) {
	t.Parallel()
	for _, name := range fn.Names() {
		s, _ := fn.Lookup(name)
		if s.AliasOf != "" {
			canon, ok := fn.Lookup(s.AliasOf)
			require.True(t, ok, "%s is an alias of unknown %s", name, s.AliasOf)
			require.Empty(t, canon.AliasOf, "%s: an alias of an alias", name)
			continue
		}
		require.NotEmpty(t, s.Group, "%s has no group", name)
		require.NotEmpty(t, s.Signature, "%s has no signature", name)
		require.True(t, strings.HasPrefix(s.Signature, name+"("), "%s: signature %q names another function", name, s.Signature)
		require.NotEmpty(t, s.Doc, "%s has no doc", name)
		require.NotEmpty(t, s.Returns, "%s has no result type", name)
		if !s.Nondeterministic && !usesNow[name] && name != "raise_error" {
			require.NotEmpty(t, s.Examples, "%s has no example", name)
		}
	}
}

// usesNow are the functions whose value is the statement's time: their
// examples would change with it.
var usesNow = map[string]bool{"current_date": true, "current_timestamp": true, "localtimestamp": true}
