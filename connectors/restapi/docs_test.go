package restapi_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
)

// TestDocRecipes: every vendor recipe in docs/restapi.md is a table
// definition the connector accepts at CREATE, and there is one per vendor
// the tests fake.
func TestDocRecipes(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/restapi.md")
	require.NoError(t, err)
	text := string(doc)
	i := strings.Index(text, "## Vendor recipes")
	require.Positive(t, i)
	pair := regexp.MustCompile(`'([^']*)'='([^']*)'`)
	v := connector(t).(connectors.Validator)
	n := 0
	for _, stmt := range strings.Split(text[i:], "CREATE TABLE ")[1:] {
		props := connectors.Props{}
		for _, m := range pair.FindAllStringSubmatch(stmt, -1) {
			props[m[1]] = m[2]
		}
		require.Equal(t, "RESTAPI", props["svc.storage.type"])
		require.NoError(t, v.Validate(nil, props), "recipe %s", strings.SplitN(stmt, " ", 2)[0])
		n++
	}
	require.Len(t, vendors, n, "one recipe per faked vendor")
	for _, vd := range vendors {
		require.Contains(t, text[i:], "-- "+vd.name+":", "docs/restapi.md has a %s recipe", vd.name)
	}
}
