package connectors_test

import (
	"bytes"
	"context"
	"errors"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

type nopConnector struct{}

func (nopConnector) Read(context.Context, *connectors.Dataset) (*dataframe.Frame, error) {
	return dataframe.Strings(nil, "payload", []string{"x"}), nil
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	c := nopConnector{}
	connectors.Register("REGTEST_Alpha", c)

	require.Panics(t, func() { connectors.Register("REGTEST_Alpha", c) }, "a name is registered once")
	require.Panics(t, func() { connectors.Register("REGTEST_Nil", nil) }, "nil connector")

	for _, name := range []string{"REGTEST_Alpha", "regtest_alpha", "REGTEST_ALPHA"} {
		got, err := connectors.Lookup(name)
		require.NoError(t, err, name)
		require.Equal(t, c, got)
	}

	_, err := connectors.Lookup("NOPE_NOT_THERE")
	require.ErrorIs(t, err, connectors.ErrUnknownConnector)
	require.EqualError(t, err, `unknown connector "NOPE_NOT_THERE" (forgotten import of connectors/all?)`)

	names := connectors.Names()
	require.Contains(t, names, "REGTEST_Alpha")
	require.NotContains(t, names, "REGTEST_Nil")
	require.True(t, sort.StringsAreSorted(names))
}

func TestDatasetLogf(t *testing.T) {
	t.Parallel()
	var quiet connectors.Dataset
	quiet.Logf("nothing %d", 1) // no writer: no panic, no output

	var buf bytes.Buffer
	ds := connectors.Dataset{Log: &buf}
	ds.Logf("GET %s %d", "http://h/x", 200)
	ds.Logf("second")
	require.Equal(t, "GET http://h/x 200\nsecond\n", buf.String())
}

func TestCapabilitiesByAssertion(t *testing.T) {
	t.Parallel()
	var c connectors.Connector = nopConnector{}
	_, isWriter := c.(connectors.Writer)
	_, isValidator := c.(connectors.Validator)
	require.False(t, isWriter)
	require.False(t, isValidator)
	require.True(t, errors.Is(connectors.ErrNotWritable, connectors.ErrNotWritable))
}
