package connectortest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/cells"
)

// atomicRows and badRow: a bad value at row 70,000 of 100,000.
const (
	atomicRows = 100_000
	badRow     = 70_000
)

func runWrites(t *testing.T, c connectors.Connector, w Writes) {
	require.NotNil(t, w.Target, "connectortest: Writes.Target is required")
	sw, streams := c.(connectors.StreamWriter)
	wr, writes := c.(connectors.Writer)
	require.True(t, streams || writes, "Writes needs a Writer or a StreamWriter")
	write := func(ctx context.Context, ds *connectors.Dataset, s dataframe.Stream) (connectors.WriteResult, error) {
		defer s.Release()
		if streams {
			return sw.WriteStream(ctx, ds, s)
		}
		f, err := dataframe.Collect(s)
		if err != nil {
			return connectors.WriteResult{}, err
		}
		defer f.Release()
		return wr.Write(ctx, ds, f)
	}

	t.Run("WriteFailureLeavesTarget", func(t *testing.T) {
		ds := w.Target(t)
		if w.Refuse != nil {
			w.Refuse(t, ds)
		}
		_, err := write(ctx(t), ds, rowsStream(1, 3, -1, nil))
		require.NoError(t, err)
		before := sortedRows(t, c, ds)
		require.Len(t, before, 3)
		if w.Refuse != nil {
			_, err = write(ctx(t), ds, rowsStream(1001, 1000+atomicRows, badRow, nil))
			require.Error(t, err, "a name of 9 bytes at row %d", badRow)
			require.Contains(t, err.Error(), fmt.Sprint(badRow), "the error names the row")
			require.Equal(t, before, sortedRows(t, c, ds), "a refused value leaves the target as it was")
		}
		broken := errors.New("the input broke")
		_, err = write(ctx(t), ds, rowsStream(1001, 1000+atomicRows, -1, broken))
		require.ErrorIs(t, err, broken)
		require.Equal(t, before, sortedRows(t, c, ds), "a failing input leaves the target as it was")
		cctx, cancel := context.WithCancel(ctx(t))
		cancel()
		_, err = write(cctx, ds, rowsStream(1001, 1010, -1, nil))
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, before, sortedRows(t, c, ds), "a cancelled write leaves the target as it was")
	})

	t.Run("Merge", func(t *testing.T) {
		if w.Merge == nil {
			t.Skip("the connector does not merge")
		}
		ds := w.Merge(w.Target(t))
		_, err := write(ctx(t), ds, namesStream([]int64{1, 2}, []string{"a", "b"}))
		require.NoError(t, err)
		_, err = write(ctx(t), ds, namesStream([]int64{2, 3, 2}, []string{"x", "c", "y"}))
		require.NoError(t, err)
		require.Equal(t, []string{
			`{"id":1,"name":"a","score":null}`,
			`{"id":2,"name":"y","score":null}`,
			`{"id":3,"name":"c","score":null}`,
		}, sortedRows(t, c, ds), "rows replace rows of their key, the last of a key wins, new keys are added")
	})

	t.Run("TypesRoundTrip", func(t *testing.T) {
		if len(w.Types) == 0 {
			t.Skip("the harness names no types")
		}
		ds := w.Target(t)
		f := typedFrame(t, w.Types)
		defer f.Release()
		_, err := write(ctx(t), ds, f.Stream())
		require.NoError(t, err)
		got := readOK(t, c, ds)
		require.Equal(t, schema(f), schema(got))
		want := rows(t, f)
		have := rows(t, got)
		sort.Strings(want)
		sort.Strings(have)
		require.Equal(t, want, have)
	})
}

// rowSchema is the schema of the suite's rows: id long, name string,
// score double.
func rowSchema() *dataframe.Schema {
	return dataframe.NewSchema([]dataframe.Field{
		{Name: "id", Type: mustType("long"), Nullable: true},
		{Name: "name", Type: mustType("string"), Nullable: true},
		{Name: "score", Type: mustType("double"), Nullable: true},
	})
}

func mustType(s string) dataframe.DataType {
	dt, err := cells.ParseType(s)
	if err != nil {
		panic(err)
	}
	return dt
}

// rowsStream streams rows first…last in batches of 10,000: name n<id>,
// 12 bytes long at row bad; the stream fails with fail after bad (or at
// row 70,000) when fail is not nil.
func rowsStream(first, last int64, bad int64, fail error) dataframe.Stream {
	schema := rowSchema()
	return dataframe.NewStream(context.Background(), schema, 1, func(ctx context.Context, emit func(dataframe.Record) bool) error {
		b := cells.NewBuilder(nil, schema, 10_000)
		defer b.Release()
		for id := first; id <= last; id++ {
			if fail != nil && id-first+1 == badRow {
				return fail
			}
			_ = b.Col(0).Int(id)
			name := fmt.Sprintf("n%d", id)
			if id-first+1 == bad {
				name = "much-too-long"
			}
			b.Col(1).String([]byte(name))
			b.Col(2).Float(float64(id) / 2)
			if b.EndRow() {
				if !emit(b.NewRecord()) {
					return ctx.Err()
				}
			}
		}
		if rec := b.NewRecord(); rec != nil && !emit(rec) {
			return ctx.Err()
		}
		return nil
	})
}

// namesStream streams rows of ids and names, scores null.
func namesStream(ids []int64, names []string) dataframe.Stream {
	schema := rowSchema()
	b := cells.NewBuilder(nil, schema, 0)
	defer b.Release()
	for i, id := range ids {
		_ = b.Col(0).Int(id)
		b.Col(1).String([]byte(names[i]))
		b.Col(2).Null()
		b.EndRow()
	}
	f, err := dataframe.New(schema, b.NewRecord())
	if err != nil {
		panic(err)
	}
	defer f.Release()
	return f.Stream()
}

// typedFrame has one column per type (c0, c1, …) and three rows: values,
// other values, nulls.
func typedFrame(t *testing.T, types []string) *dataframe.Frame {
	fields := make([]dataframe.Field, len(types))
	for i, typ := range types {
		dt, err := cells.ParseType(typ)
		require.NoError(t, err, typ)
		fields[i] = dataframe.Field{Name: fmt.Sprintf("c%d", i), Type: dt, Nullable: true}
	}
	schema := dataframe.NewSchema(fields)
	b := cells.NewBuilder(nil, schema, 0)
	defer b.Release()
	for row := 0; row < 3; row++ {
		for i, typ := range types {
			col := b.Col(i)
			if row == 2 {
				col.Null()
				continue
			}
			require.NoError(t, appendSample(col, typ, row), typ)
		}
		b.EndRow()
	}
	f, err := dataframe.New(schema, b.NewRecord())
	require.NoError(t, err)
	return f
}

func appendSample(col *cells.Col, typ string, row int) error {
	switch {
	case typ == "long":
		return col.Int([]int64{-9223372036854775808, 9007199254740993}[row])
	case typ == "integer":
		return col.Int([]int64{-2147483648, 2147483647}[row])
	case typ == "short":
		return col.Int([]int64{-32768, 32767}[row])
	case typ == "double":
		col.Float([]float64{-1.5e300, 0.1}[row])
	case typ == "float":
		col.Float([]float64{-1.5, 3.25}[row])
	case strings.HasPrefix(typ, "decimal"):
		return col.Decimal(big.NewInt([]int64{-12345678, 1}[row]), 2)
	case typ == "string":
		col.String([]byte([]string{"héllo\t\"x\"\n", ""}[row]))
	case typ == "boolean":
		col.Bool(row == 0)
	case typ == "binary":
		col.Binary([]byte{0, 255, byte(row)})
	case typ == "date":
		col.Date([]int32{-719162, 19723}[row])
	case typ == "timestamp":
		col.Micros([]int64{-62135596800000000, 1704164645123456}[row])
	case strings.HasPrefix(typ, "array<"):
		el := col.BeginList()
		if row == 0 {
			return appendSample(el, typ[6:len(typ)-1], 1)
		}
	default:
		return fmt.Errorf("connectortest: no sample of %s", typ)
	}
	return nil
}

// sortedRows reads ds and sorts its rows' JSON.
func sortedRows(t *testing.T, c connectors.Connector, ds *connectors.Dataset) []string {
	t.Helper()
	f := readOK(t, c, ds)
	out := rows(t, f)
	sort.Strings(out)
	return out
}
