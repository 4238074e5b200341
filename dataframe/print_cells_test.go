package dataframe

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJavaDouble(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{
		1: "1.0", 0.5: "0.5", 1e7: "1.0E7", 12345678.9: "1.23456789E7", 0.001: "0.001",
		0.0001: "1.0E-4", -2.5e-10: "-2.5E-10", 1e21: "1.0E21", 123456.5: "123456.5",
	} {
		require.Equal(t, want, javaDouble(in, 64), "%v", in)
	}
}

func TestTruncateCell(t *testing.T) {
	t.Parallel()
	require.Equal(t, "abcdefg", TruncateCell("abcdefg", 0))
	require.Equal(t, "ab...", TruncateCell("abcdefg", 5))
	require.Equal(t, "abc", TruncateCell("abcdefg", 3))
	require.Equal(t, "héllo", TruncateCell("héllo", 5))
	require.Equal(t, "hé...", TruncateCell("héllo!", 5))
}
