package query

import (
	"math/rand"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// bestOf keeps what a stable sort keeps: the n first by cmp, ties in
// their given order.
func TestBestOfIsAStableSortPrefix(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 500; trial++ {
		m := rng.Intn(40)
		keys := make([]int, m)
		rows := make([]int64, m)
		for i := range keys {
			keys[i] = rng.Intn(6)
			rows[i] = int64(i)
		}
		cmp := func(i, j int) int { return keys[i] - keys[j] }
		want := append([]int64(nil), rows...)
		sort.SliceStable(want, func(a, b int) bool { return cmp(int(want[a]), int(want[b])) < 0 })
		n := rng.Intn(10) + 1
		if n < len(want) {
			want = want[:n]
		}
		require.Equal(t, want, bestOf(append([]int64(nil), rows...), n, cmp), "keys %v n %d", keys, n)
	}
}
