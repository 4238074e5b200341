package functions_test

import (
	"math"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/query/fn/fntest"
	_ "github.com/sluicedata/sluice/dataframe/query/functions"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

var (
	str   = arrow.BinaryTypes.String
	i64   = arrow.PrimitiveTypes.Int64
	i32   = arrow.PrimitiveTypes.Int32
	f64   = arrow.PrimitiveTypes.Float64
	boolT = arrow.FixedWidthTypes.Boolean
	date  = arrow.FixedWidthTypes.Date32
	null  = arrow.Null
	ts    = sparktype.TimestampType
	tsUS  = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
)

// in is one argument: a column of values, or a literal (broadcast).
type in struct {
	t   arrow.DataType
	v   []any
	lit bool
}

func col(t arrow.DataType, v ...any) in { return in{t: t, v: v} }
func lit(t arrow.DataType, v any) in    { return in{t: t, v: []any{v}, lit: true} }

// fcase is one call: want holds one result per row (rows = the longest
// column, 1 when every argument is a literal).
type fcase struct {
	name string
	fn   string
	args []in
	typ  arrow.DataType // result type; nil to skip the check
	want []any
	err  string // a Bind or Eval error containing this
}

func literalValue(t arrow.DataType, v any) any {
	switch x := v.(type) {
	case int:
		if t.ID() == arrow.INT32 {
			return int32(x)
		}
		return int64(x)
	}
	return v
}

// call binds and evaluates c the way the executor does: implicit casts
// with fn.Cast, literals broadcast to every row.
func call(t *testing.T, mem memory.Allocator, c fcase, now time.Time) (arrow.Array, error) {
	t.Helper()
	s, ok := fn.Lookup(c.fn)
	require.True(t, ok, "function %s is not registered", c.fn)
	n := 1
	for _, a := range c.args {
		if !a.lit {
			n = max(n, len(a.v))
		}
	}
	args := make([]fn.Arg, len(c.args))
	for i, a := range c.args {
		args[i] = fn.Arg{Type: a.t, Const: a.lit}
		if a.lit {
			args[i].Value = literalValue(a.t, a.v[0])
		}
	}
	bound, err := s.Bind(args)
	if err != nil {
		return nil, err
	}
	arrs := make([]arrow.Array, len(c.args))
	for i, a := range c.args {
		vals := a.v
		if a.lit {
			vals = make([]any, n)
			for k := range vals {
				vals[k] = a.v[0]
			}
		}
		// A leading NULL row sliced off: every function must honour the
		// array offset the executor's slices carry.
		whole := fntest.Array(mem, a.t, append([]any{nil}, vals...)...)
		arr := array.NewSlice(whole, 1, int64(len(vals)+1))
		whole.Release()
		if bound.Args != nil && bound.Args[i] != nil {
			cast, err := fn.Cast(mem, arr, bound.Args[i])
			arr.Release()
			require.NoError(t, err)
			arr = cast
		}
		defer arr.Release()
		arrs[i] = arr
	}
	out, err := bound.Eval(&fn.Ctx{Mem: mem, Now: now}, arrs, n)
	if err != nil {
		return nil, err
	}
	require.Equal(t, n, out.Len())
	require.True(t, arrow.TypeEqual(bound.Type, out.DataType()), "declared %s, got %s", bound.Type, out.DataType())
	return out, nil
}

func runCases(t *testing.T, cases []fcase) {
	t.Helper()
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, c := range cases {
		t.Run(c.fn+"/"+c.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			out, err := call(t, mem, c, now)
			if c.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			defer out.Release()
			if c.typ != nil {
				require.True(t, arrow.TypeEqual(c.typ, out.DataType()), "want %s, got %s", c.typ, out.DataType())
			}
			got := fntest.Values(out)
			require.Len(t, got, len(c.want))
			for i := range got {
				if b, ok := got[i].([]byte); ok {
					got[i] = string(b) // binary values compare as Go strings
				}
				if f, ok := c.want[i].(float64); ok && math.IsNaN(f) {
					require.True(t, math.IsNaN(got[i].(float64)))
					continue
				}
				require.Equal(t, c.want[i], got[i], "row %d", i)
			}
		})
	}
}

func arrowList(t arrow.DataType) arrow.DataType { return arrow.ListOf(t) }

func arrowStruct() arrow.DataType {
	return arrow.StructOf(arrow.Field{Name: "a", Type: i64, Nullable: true})
}

func tm(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.999999", s)
	if err != nil {
		panic(err)
	}
	return t
}
