package jsontext

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAppendFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {-2, 64, "-2.0"}, {0, 64, "0.0"}, {math.Copysign(0, -1), 64, "-0.0"},
		{1.5, 64, "1.5"}, {1e20, 64, "100000000000000000000.0"}, {1e21, 64, "1e+21"},
		{1e-6, 64, "0.000001"}, {1e-7, 64, "1e-07"}, {0.1, 32, "0.1"},
		{math.NaN(), 64, `"NaN"`}, {math.Inf(1), 64, `"Infinity"`}, {math.Inf(-1), 64, `"-Infinity"`},
	} {
		got := string(AppendFloat([]byte("x"), tc.f, tc.bits))
		require.Equal(t, "x"+tc.want, got, "%v", tc.f)
		if !math.IsNaN(tc.f) && !math.IsInf(tc.f, 0) {
			var back float64
			require.NoError(t, json.Unmarshal([]byte(tc.want), &back))
			if tc.bits == 32 {
				require.Equal(t, float32(tc.f), float32(back), "%v reads back", tc.f)
			} else {
				require.Equal(t, tc.f, back, "%v reads back", tc.f)
			}
		}
	}
}

func TestAppendTime(t *testing.T) {
	t.Parallel()
	paris := time.FixedZone("CET", 3600)
	require.Equal(t, `"2024-04-15T17:30:00.000Z"`, string(AppendTime(nil, time.Date(2024, 4, 15, 18, 30, 0, 0, paris))))
	require.Equal(t, `"2024-04-15T18:30:00.123Z"`, string(AppendTime(nil, time.Date(2024, 4, 15, 18, 30, 0, 123e6, time.UTC))))
	require.Equal(t, `"2024-04-15T18:30:00.123456Z"`, string(AppendTime(nil, time.Date(2024, 4, 15, 18, 30, 0, 123456e3, time.UTC))))
}

func TestAppendBase64(t *testing.T) {
	t.Parallel()
	require.Equal(t, `""`, string(AppendBase64(nil, nil)))
	require.Equal(t, `"AP8Q"`, string(AppendBase64(nil, []byte{0, 255, 16})))
}

// TestAppendString: the output is JSON that decodes to the input (invalid
// UTF-8 as U+FFFD, as encoding/json decodes it), with the short escapes.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":           `"plain"`,
		"q\"b\\s":         `"q\"b\\s"`,
		"\n\r\t\b\f":      `"\n\r\t\b\f"`,
		"\x00\x1f\x7f":    `"\u0000\u001f` + "\x7f" + `"`,
		"café ☕ 😀":        `"café ☕ 😀"`,
		"bad \xff end":    `"bad \ufffd end"`,
		"cut \xe2\x82":    `"cut \ufffd\ufffd"`,
		"</script> & <b>": `"</script> & <b>"`,
	} {
		got := AppendString(nil, in)
		require.Equal(t, want, string(got), "%q", in)
		var back string
		require.NoError(t, json.Unmarshal(got, &back), "%q", in)
		var viaStd string
		std, _ := json.Marshal(in)
		require.NoError(t, json.Unmarshal(std, &viaStd))
		require.Equal(t, viaStd, back, "%q decodes as encoding/json's", in)
	}
}
