package suggest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClosest(t *testing.T) {
	t.Parallel()
	cands := []string{"o", "read", "run", "serve", "sql", "state", "write", "convert"}
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"raed", "read", true},
		{"stat", "state", true},
		{"SQL", "sql", true}, // case-insensitive
		{"rn", "run", true},  // one deletion
		{"sq", "sql", true},  // tie sql/…: nearest wins
		{"converts", "convert", true},
		{"deploy", "", false},    // nothing within 2
		{"read", "", false},      // an exact name is no suggestion
		{"wirte", "write", true}, // transposition = 2 edits
	} {
		got, ok := Closest(tc.name, cands)
		require.Equal(t, tc.ok, ok, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
}

func TestClosestTieIsOrderIndependent(t *testing.T) {
	t.Parallel()
	a, _ := Closest("cat", []string{"bat", "hat"})
	b, _ := Closest("cat", []string{"hat", "bat"})
	require.Equal(t, "bat", a)
	require.Equal(t, a, b)
}

func TestPhrase(t *testing.T) {
	t.Parallel()
	require.Equal(t, ` (did you mean "state"?)`, Phrase("stat", []string{"state"}))
	require.Equal(t, "", Phrase("zzzzzz", []string{"state"}))
}

func TestDistance(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0, Distance("abc", "abc", 3))
	require.Equal(t, 1, Distance("abc", "abd", 3))
	require.Equal(t, 3, Distance("kitten", "sitting", 3)) // capped at limit
	require.Equal(t, 3, Distance("kitten", "sitting", 5))
	require.Equal(t, 2, Distance("", "ab", 3))
}

func FuzzDistanceSymmetric(f *testing.F) {
	f.Add("svc.restapi.url", "svc.restapi.ulr")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		d1, d2 := Distance(a, b, 100), Distance(b, a, 100)
		if d1 != d2 || d1 < 0 || d1 > max(len(a), len(b)) {
			t.Fatalf("Distance(%q,%q)=%d, reverse %d", a, b, d1, d2)
		}
	})
}
