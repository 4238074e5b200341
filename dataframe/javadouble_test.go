package dataframe_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
)

// The values as Spark's golden files print them.
func TestJavaDouble(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {1e10, 64, "1.0E10"}, {150000, 64, "150000.0"}, {0.1, 64, "0.1"},
		{3.14e-8, 64, "3.14E-8"}, {-3.14e8, 64, "-3.14E8"}, {1.5015456e9, 64, "1.5015456E9"},
		{1.2345678901234568e48, 64, "1.2345678901234568E48"}, {9999999, 64, "9999999.0"},
		{1e7, 64, "1.0E7"}, {0.001, 64, "0.001"}, {0.0009, 64, "9.0E-4"},
		{math.Copysign(0, -1), 64, "-0.0"}, {math.NaN(), 64, "NaN"}, {math.Inf(-1), 64, "-Infinity"},
		{float64(float32(1.2)), 32, "1.2"}, {float64(float32(0.1)), 32, "0.1"},
	} {
		require.Equal(t, c.want, dataframe.JavaDouble(c.v, c.bits), "%v", c.v)
	}
}
