package notifications_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications"
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
