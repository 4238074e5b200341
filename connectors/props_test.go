package connectors_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
)

func TestPropsGetters(t *testing.T) {
	t.Parallel()
	p := connectors.Props{
		"s":      "v",
		"empty":  "",
		"b":      " TRUE ",
		"bad.b":  "yes",
		"n":      " 42 ",
		"neg":    "-1",
		"bad.n":  "4x",
		"d.go":   "1m30s",
		"d.iso":  "PT10S",
		"bad.d":  "soon",
		"blank":  "  ",
		"Case.K": "upper",
	}
	v, ok := p.Get("s")
	require.True(t, ok)
	require.Equal(t, "v", v)
	_, ok = p.Get("absent")
	require.False(t, ok)
	_, ok = p.Get("case.k")
	require.False(t, ok, "keys are case-sensitive")

	require.Equal(t, "v", p.String("s", "def"))
	require.Equal(t, "def", p.String("empty", "def"))
	require.Equal(t, "def", p.String("absent", "def"))

	b, err := p.Bool("b", false)
	require.NoError(t, err)
	require.True(t, b)
	b, err = p.Bool("absent", true)
	require.NoError(t, err)
	require.True(t, b)
	b, err = p.Bool("blank", true)
	require.NoError(t, err)
	require.True(t, b)
	_, err = p.Bool("bad.b", false)
	require.EqualError(t, err, `property bad.b: "yes" is not a boolean (true or false)`)

	n, err := p.Int("n", 0, 0)
	require.NoError(t, err)
	require.EqualValues(t, 42, n)
	n, err = p.Int("absent", 7, 0)
	require.NoError(t, err)
	require.EqualValues(t, 7, n)
	_, err = p.Int("neg", 0, 0)
	require.EqualError(t, err, "property neg: -1 is below the minimum 0")
	_, err = p.Int("bad.n", 0, 0)
	require.EqualError(t, err, `property bad.n: "4x" is not an integer`)

	d, err := p.Duration("d.go", 0)
	require.NoError(t, err)
	require.Equal(t, 90*time.Second, d)
	d, err = p.Duration("d.iso", 0)
	require.NoError(t, err)
	require.Equal(t, 10*time.Second, d)
	d, err = p.Duration("absent", time.Minute)
	require.NoError(t, err)
	require.Equal(t, time.Minute, d)
	_, err = p.Duration("bad.d", 0)
	require.ErrorContains(t, err, "property bad.d: ")
	require.ErrorContains(t, err, `"soon" is not a duration`)
}

func TestPropsWithPrefixAndClone(t *testing.T) {
	t.Parallel()
	p := connectors.Props{"svc.restapi.header.B": "2", "svc.restapi.header.A": "1", "svc.restapi.url": "u", "x": "y"}
	require.Equal(t, []string{"svc.restapi.header.A", "svc.restapi.header.B"}, p.WithPrefix("svc.restapi.header."))
	require.Empty(t, p.WithPrefix("nope."))

	c := p.Clone()
	require.Equal(t, p, c)
	c["x"] = "changed"
	require.Equal(t, "y", p["x"], "a clone is independent")
}

func TestParseDuration(t *testing.T) {
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
			got, err := connectors.ParseDuration(tt.in)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"10s", "PT10S", "P1DT2H3M4.5S", "P", "PT", "-1s", "P1.5D", "PT99999999999999999999S"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := connectors.ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %s: negative durations are rejected", s, d)
		}
	})
}

func ExampleParseDuration() {
	for _, s := range []string{"PT1M", "1m", "P1DT12H", "PT0.25S"} {
		d, err := connectors.ParseDuration(s)
		fmt.Println(s, d, err)
	}
	// Output:
	// PT1M 1m0s <nil>
	// 1m 1m0s <nil>
	// P1DT12H 36h0m0s <nil>
	// PT0.25S 250ms <nil>
}
