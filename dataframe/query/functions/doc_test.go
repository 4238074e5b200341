package functions_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

// TestEveryFunctionDocumented fails when a registered function is missing
// from docs/sql-functions.md.
func TestEveryFunctionDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/sql-functions.md")
	require.NoError(t, err)
	for _, name := range fn.Names() {
		re := regexp.MustCompile("`" + regexp.QuoteMeta(name) + "[(`]")
		require.True(t, re.Match(doc), "function %s is not in docs/sql-functions.md", name)
	}
}
