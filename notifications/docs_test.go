package notifications_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
	"github.com/sluicedata/sluice/notifications/source"
)

// The HTTP API docs name every route the app serves, with its method, and
// the environment doc names every variable with its default.
func TestDocsNameEveryRouteAndVariable(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, f := range []string{"http-api.md", "records-api.md", "operator-ui.md"} {
		b, err := os.ReadFile("../docs/" + f)
		if os.IsNotExist(err) && f != "http-api.md" {
			continue
		}
		require.NoError(t, err)
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	cfg := testConfig()
	cfg.ManagementAPI = true
	svc := newService(t, cfg, openStore(t))
	param := regexp.MustCompile(`:(\w+)`)
	for _, r := range svc.App().GetRoutes(true) {
		if r.Method == "HEAD" {
			continue
		}
		path := param.ReplaceAllString(r.Path, "{$1}")
		found := false
		for _, l := range lines {
			if strings.Contains(l, r.Method+" "+path) || (strings.Contains(l, r.Method) && containsPath(l, path)) {
				found = true
				break
			}
		}
		require.True(t, found, "%s %s is not in docs/http-api.md (nor records-api.md/operator-ui.md)", r.Method, path)
	}

	env, err := os.ReadFile("../docs/environment.md")
	require.NoError(t, err)
	for _, v := range notifications.Variables {
		def := v.Default
		if def == "" {
			def = "(unset)"
		} else {
			def = "`" + def + "`"
		}
		require.Contains(t, string(env), "| `"+v.Name+"` | "+def+" |", "docs/environment.md: %s with default %s", v.Name, def)
	}
}

// containsPath reports whether l holds path as a whole path (not a prefix
// of a longer one).
func containsPath(l, path string) bool {
	for off := 0; ; {
		i := strings.Index(l[off:], path)
		if i < 0 {
			return false
		}
		end := off + i + len(path)
		if end == len(l) || !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/{_-", rune(l[end])) {
			return true
		}
		off = end
	}
}

// Each provider's page shows the config block its test loads
// (testdata/sources, TestProviders), verbatim; every scheme has a page.
func TestDocsProviderConfigBlocks(t *testing.T) {
	t.Parallel()
	for _, scheme := range source.SchemeNames() {
		block, err := os.ReadFile(filepath.Join("testdata", "sources", scheme+".yaml"))
		require.NoError(t, err, "a config file per scheme")
		page, err := os.ReadFile(filepath.Join("..", "docs", "webhooks", scheme+".md"))
		require.NoError(t, err, "docs/webhooks/%s.md", scheme)
		require.Contains(t, string(page), "```yaml\n"+string(block)+"```\n", "docs/webhooks/%s.md shows testdata/sources/%s.yaml", scheme, scheme)
		_, err = notifications.LoadSources(filepath.Join("testdata", "sources", scheme+".yaml"), func(string) string { return "a-secret-of-sixteen-bytes" })
		if scheme == "standard" {
			require.ErrorContains(t, err, "whsec_", "a Standard Webhooks secret is whsec_ + base64")
		} else {
			require.NoError(t, err)
		}
	}
	sidecar, err := os.ReadFile("../docs/sidecar.md")
	require.NoError(t, err)
	stripe, err := os.ReadFile("testdata/sources/stripe.yaml")
	require.NoError(t, err)
	require.Contains(t, string(sidecar), "```yaml\n"+string(stripe)+"```\n")
	for _, scheme := range source.SchemeNames() {
		require.Contains(t, string(sidecar), "(webhooks/"+scheme+".md)")
	}
}
