package all_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	_ "github.com/sluicedata/sluice/connectors/all"
)

var update = flag.Bool("update", false, "rewrite docs/properties.md from the declarations")

// TestPropertiesDoc holds docs/properties.md to the connectors' property
// declarations: change a declaration, then run
// go test ./connectors/all -run TestPropertiesDoc -update.
func TestPropertiesDoc(t *testing.T) {
	const path = "../../docs/properties.md"
	var b bytes.Buffer
	require.NoError(t, connectors.WritePropertiesMarkdown(&b))
	if *update {
		require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err, "docs/properties.md is missing: run go test ./connectors/all -run TestPropertiesDoc -update")
	require.Equal(t, b.String(), string(got), "docs/properties.md differs from the declarations: run go test ./connectors/all -run TestPropertiesDoc -update")
}

// TestDeclarationsParse checks every declared default against its own kind,
// so a typo in a declaration cannot become a runtime surprise.
func TestDeclarationsParse(t *testing.T) {
	sets := connectors.PropertySets()
	require.GreaterOrEqual(t, len(sets), 3)
	for _, s := range sets {
		seen := map[string]bool{}
		for _, sp := range s.Specs {
			require.False(t, seen[sp.Name], "%s declared twice", sp.Name)
			seen[sp.Name] = true
			require.NotEmpty(t, sp.Doc, "%s has no doc", sp.Name)
			require.Contains(t, sp.Name, s.Prefix)
			if sp.Default != "" && !sp.Family {
				require.NoError(t, s.Validate(connectors.Props{sp.Name: sp.Default}), "default of %s", sp.Name)
			}
		}
	}
}
