package connectors_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func TestCompareValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"9", "10", -1},      // numbers, not text
		{"10.5", "10.50", 0}, // numbers
		{"9223372036854775807", "9223372036854775806", 1},        // no float rounding
		{"2024-05-01T10:00:00Z", "2024-05-01T12:00:00+02:00", 0}, // instants
		{"2024-05-01T10:00:00.5Z", "2024-05-01T10:00:00Z", 1},
		{"b", "a", 1},
		{"10", "a", -1}, // mixed: strings
		{"", "", 0},
		{"0x10", "0x9", -1}, // hex is text here
		{"1e3", "999", 1},
	} {
		require.Equal(t, tc.want, connectors.CompareValues(tc.a, tc.b), "%q vs %q", tc.a, tc.b)
	}
}

func frameOf(t *testing.T, rows [][]any) *dataframe.Frame {
	t.Helper()
	f, err := jsonframe.FromValues([]string{"id", "updated_at"}, rows)
	require.NoError(t, err)
	return f
}

func ids(t *testing.T, f *dataframe.Frame) []int64 {
	t.Helper()
	var out []int64
	g, err := dataframe.Filter(f, func(r *dataframe.Row) (bool, error) {
		v, err := r.Get("id")
		out = append(out, v.(int64))
		return true, err
	})
	require.NoError(t, err)
	g.Release()
	return out
}

func TestApplyIncremental(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	in := connectors.Incremental{Cursor: "updated_at", CursorProperty: "c", Key: "id", KeyProperty: "k"}

	// First run: everything delivered; the state holds the max and its keys.
	f := frameOf(t, [][]any{{int64(1), "2024-01-01T00:00:00Z"}, {int64(2), "2024-01-03T00:00:00Z"}, {int64(3), "2024-01-03T00:00:00Z"}, {int64(4), nil}})
	g, st, err := connectors.ApplyIncremental(f, in, nil, now)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2, 3, 4}, ids(t, g))
	g.Release()
	require.Equal(t, &connectors.State{Cursor: "updated_at", LastValue: "2024-01-03T00:00:00Z", KeysAtLastValue: []string{"2", "3"}, UpdatedAt: now}, st)

	// Second run with an inclusive since: 2 and 3 come again and are dropped;
	// 5 at the same instant is new and joins the keys.
	f = frameOf(t, [][]any{{int64(2), "2024-01-03T00:00:00Z"}, {int64(3), "2024-01-03T00:00:00Z"}, {int64(5), "2024-01-03T00:00:00Z"}})
	g, st2, err := connectors.ApplyIncremental(f, in, st, now)
	require.NoError(t, err)
	require.Equal(t, []int64{5}, ids(t, g))
	g.Release()
	require.Equal(t, []string{"2", "3", "5"}, st2.KeysAtLastValue)
	require.Equal(t, "2024-01-03T00:00:00Z", st2.LastValue)

	// A later value moves the state and starts the keys afresh.
	f = frameOf(t, [][]any{{int64(3), "2024-01-03T00:00:00Z"}, {int64(6), "2024-01-04T00:00:00Z"}})
	g, st3, err := connectors.ApplyIncremental(f, in, st2, now)
	require.NoError(t, err)
	require.Equal(t, []int64{6}, ids(t, g))
	g.Release()
	require.Equal(t, "2024-01-04T00:00:00Z", st3.LastValue)
	require.Equal(t, []string{"6"}, st3.KeysAtLastValue)

	// Nothing new: the state stays where it was.
	f = frameOf(t, nil)
	g, st4, err := connectors.ApplyIncremental(f, in, st3, now)
	require.NoError(t, err)
	g.Release()
	require.Equal(t, st3.LastValue, st4.LastValue)

	// No value at all: no state.
	f = frameOf(t, [][]any{{int64(1), nil}})
	g, st5, err := connectors.ApplyIncremental(f, in, nil, now)
	require.NoError(t, err)
	g.Release()
	require.Nil(t, st5)

	// A cursor that is not a column: an error naming the property.
	f = frameOf(t, [][]any{{int64(1), "x"}})
	_, _, err = connectors.ApplyIncremental(f, connectors.Incremental{Cursor: "modified", CursorProperty: "svc.restapi.incremental.cursor"}, nil, now)
	require.ErrorContains(t, err, `svc.restapi.incremental.cursor "modified"`)
	f.Release()
}
