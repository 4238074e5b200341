package query

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// java.util.Random's published sequences: new Random(0).nextInt() is
// -1155484576, new Random(1).nextInt() -1155869325, new Random(42).nextInt(10) 0.
func TestJavaRandom(t *testing.T) {
	t.Parallel()
	require.Equal(t, int32(-1155484576), newJavaRandom(0).next(32))
	require.Equal(t, int32(-1155869325), newJavaRandom(1).next(32))
	require.Equal(t, int32(0), newJavaRandom(42).nextInt(10))
	// count_min_sketch's multiplier for seed 1 (Spark's
	// scalar-subquery-select.sql prints it: 5D8D6AB9).
	require.Equal(t, int32(0x5D8D6AB9), newJavaRandom(1).nextInt(math.MaxInt32))
}
