package suggest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClosest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cands []string
		want  string
		ok    bool
	}{
		{"chanel", []string{"title", "channel"}, "channel", true},
		{"COUNTT", []string{"sum", "count"}, "count", true},
		{"xyz", []string{"channel"}, "", false},
		{"ab", []string{"abd", "abc"}, "abc", true},
		{"x", nil, "", false},
	} {
		got, ok := Closest(tc.name, tc.cands)
		require.Equal(t, tc.ok, ok, tc.name)
		if ok {
			require.Equal(t, tc.want, got, tc.name)
		}
	}
	require.Equal(t, 3, distance("kitten", "sitting"))
}
