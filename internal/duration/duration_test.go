package duration

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{in: "10s", want: 10 * time.Second},
		{in: " 250ms ", want: 250 * time.Millisecond},
		{in: "1h2m3s", want: time.Hour + 2*time.Minute + 3*time.Second},
		{in: "0s", want: 0},
		{in: "PT10S", want: 10 * time.Second},
		{in: "pt10s", want: 10 * time.Second},
		{in: "PT1M", want: time.Minute},
		{in: "PT0.5S", want: 500 * time.Millisecond},
		{in: "P1D", want: 24 * time.Hour},
		{in: "P1DT2H", want: 26 * time.Hour},
		{in: "PT1H30M", want: 90 * time.Minute},
		{in: "", err: "empty duration"},
		{in: "P", err: "is not a duration"},
		{in: "p", err: "is not a duration"},
		{in: "PT", err: "is not a duration"},
		{in: "P1DT", err: "is not a duration"},
		{in: "P1M", err: "is not a duration"}, // months are not a fixed length
		{in: "P1W", err: "is not a duration"},
		{in: "PT-5S", err: "is not a duration"},
		{in: "-5s", err: "is negative"},
		{in: "10", err: "is not a duration"},
		{in: "ten seconds", err: "is not a duration"},
		{in: "P99999999999D", err: "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.in)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"10s", "PT10S", "P1DT2H3M4.5S", "P", "PT", "-1s", "P1.5D", "PT99999999999999999999S"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err == nil && d < 0 {
			t.Fatalf("Parse(%q) = %s: negative durations are rejected", s, d)
		}
	})
}

func ExampleParse() {
	for _, s := range []string{"PT1M", "1m", "P1DT12H", "PT0.25S"} {
		d, err := Parse(s)
		fmt.Println(s, d, err)
	}
	// Output:
	// PT1M 1m0s <nil>
	// 1m 1m0s <nil>
	// P1DT12H 36h0m0s <nil>
	// PT0.25S 250ms <nil>
}
