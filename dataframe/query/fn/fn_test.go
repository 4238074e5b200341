package fn

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/require"
)

func TestRegisterLookupNames(t *testing.T) {
	t.Parallel()
	Register(Scalar{Name: "zz_test_identity", Bind: func(args []Arg) (Bound, error) {
		return Bound{Type: args[0].Type, Eval: func(_ *Ctx, a []arrow.Array, _ int) (arrow.Array, error) {
			a[0].Retain()
			return a[0], nil
		}}, nil
	}})
	s, ok := Lookup("ZZ_Test_Identity")
	require.True(t, ok)
	require.Equal(t, "zz_test_identity", s.Name)
	require.Contains(t, Names(), "zz_test_identity")
	_, ok = Lookup("no_such_function")
	require.False(t, ok)
	require.Panics(t, func() { Register(s) })
	require.Panics(t, func() { Register(Scalar{Name: "Upper", Bind: s.Bind}) })
	require.Panics(t, func() { Register(Scalar{Name: "nobind"}) })
}

func TestCastNullAndSame(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nulls := array.NewNull(3)
	defer nulls.Release()
	out, err := Cast(mem, nulls, arrow.PrimitiveTypes.Int64)
	require.NoError(t, err)
	require.Equal(t, 3, out.NullN())
	require.Equal(t, arrow.INT64, out.DataType().ID())
	out.Release()

	b := array.NewInt32Builder(mem)
	b.AppendValues([]int32{1, 2}, nil)
	ints := b.NewArray()
	b.Release()
	defer ints.Release()
	same, err := Cast(mem, ints, arrow.PrimitiveTypes.Int32)
	require.NoError(t, err)
	require.Same(t, ints, same)
	same.Release()
	wide, err := Cast(mem, ints, arrow.PrimitiveTypes.Int64)
	require.NoError(t, err)
	require.Equal(t, int64(2), wide.(*array.Int64).Value(1))
	wide.Release()
}
