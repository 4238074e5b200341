package query

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// A grouping's int map gives every key one id, in order of first sight,
// whether it keeps the keys densely (a small range), moves them to the hash
// table when a batch spreads them, or hashes from the start; a join's
// frozen map reads them back.
func TestIntMapGroupingModes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, batches := range [][][]int64{
		{{5, 3, 5, 9}, {3, 7, -2}},                          // dense throughout
		{{5, 3, 5}, {1 << 40, 3, 8}, {5, 6}},                // dense, then spread: hashed
		{{math.MinInt64, 0, math.MaxInt64}, {0, 1}, {2, 2}}, // hashed from the start
		{{100}, {100 + denseGroupSpan - 1, 100}},            // the widest dense span
		{{100}, {100 + denseGroupSpan, 100}},                // one past it
	} {
		checkIntMap(t, batches)
	}
	for round := 0; round < 50; round++ {
		var batches [][]int64
		for b := 0; b < 5; b++ {
			spread := int64(1) << uint(rng.Intn(20))
			batch := make([]int64, 1+rng.Intn(300))
			for i := range batch {
				batch[i] = rng.Int63n(spread) - spread/2
			}
			batches = append(batches, batch)
		}
		checkIntMap(t, batches)
	}
}

func checkIntMap(t *testing.T, batches [][]int64) {
	t.Helper()
	m := newIntMap()
	want := map[int64]int32{}
	var next int32
	for b, batch := range batches {
		gids := make([]int32, len(batch))
		add := func(i int) int32 { next++; return next - 1 }
		if !m.denseBatch(batch, gids, add) {
			for i, k := range batch {
				id, added := m.getOrAdd(k, next)
				if added {
					next++
				}
				gids[i] = id
			}
		}
		for i, k := range batch {
			id, ok := want[k]
			if !ok {
				id = int32(len(want))
				want[k] = id
			}
			require.Equal(t, id, gids[i], "batch %d key %d of %v", b, k, batches)
		}
	}
	require.Equal(t, len(want), m.n)
	m.freeze()
	for k, id := range want {
		require.Equal(t, id, m.get(k), "frozen, key %d", k)
	}
	require.Equal(t, int32(-1), m.get(math.MaxInt64-12345))
}
