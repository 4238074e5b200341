package connectors_test

import (
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
