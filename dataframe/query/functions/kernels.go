package functions

import (
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/decimal128"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// bindFunc is the Bind of a fn.Scalar.
type bindFunc = func([]fn.Arg) (fn.Bound, error)

// row is one row of a function's arguments, after the casts its signature
// asked for: the accessors assume those types.
type row struct {
	a   []arrow.Array
	i   int
	loc *time.Location // the session time zone
}

// str is string argument k, or def when the optional argument is absent.
func (r row) str(k int, def string) string {
	if k >= len(r.a) {
		return def
	}
	return r.a[k].(*array.String).Value(r.i)
}

// int is int argument k, or def when the optional argument is absent.
func (r row) int(k int, def int64) int64 {
	if k >= len(r.a) {
		return def
	}
	return int64(r.a[k].(*array.Int32).Value(r.i))
}

// long is long argument k, or def when absent.
func (r row) long(k int, def int64) int64 {
	if k >= len(r.a) {
		return def
	}
	return r.a[k].(*array.Int64).Value(r.i)
}

// f64 is double argument k.
func (r row) f64(k int) float64 { return r.a[k].(*array.Float64).Value(r.i) }

// boolean is boolean argument k, or def when absent.
func (r row) boolean(k int, def bool) bool {
	if k >= len(r.a) {
		return def
	}
	return r.a[k].(*array.Boolean).Value(r.i)
}

// bin is binary argument k.
func (r row) bin(k int) []byte { return r.a[k].(*array.Binary).Value(r.i) }

// days is date argument k, in days since the epoch.
func (r row) days(k int) int32 { return int32(r.a[k].(*array.Date32).Value(r.i)) }

// micros is timestamp argument k, in microseconds since the epoch.
func (r row) micros(k int) int64 { return fn.TimestampMicros(r.a[k].(*array.Timestamp), r.i) }

// wall is timestamp argument k's wall-clock time in the session time zone,
// in microseconds read as UTC.
func (r row) wall(k int) int64 { return sparktype.WallMicros(r.micros(k), r.loc) }

// null reports whether argument k is NULL in this row.
func (r row) null(k int) bool { return k < len(r.a) && nullAt(r.a[k], r.i) }

// rowsOf evaluates f for every row without a NULL argument into an array
// of type out; NULL in any argument, or ok false, gives NULL. T is the Go
// type of out's values: int8/int16/int32/int64, float32/float64, bool,
// string, []byte, decimal128.Num, int32 days for a date, int64
// microseconds for a timestamp.
func rowsOf[T any](ctx *fn.Ctx, out arrow.DataType, a []arrow.Array, n int, f func(r row) (T, bool)) arrow.Array {
	return rowsWith(ctx, out, a, n, true, f)
}

// rowsOfErr is rowsOf for an f that can fail: its first error ends the
// evaluation, as a Spark expression that throws fails the query.
func rowsOfErr[T any](ctx *fn.Ctx, out arrow.DataType, a []arrow.Array, n int, f func(r row) (T, bool, error)) (arrow.Array, error) {
	var first error
	res := rowsWith(ctx, out, a, n, true, func(r row) (T, bool) {
		var zero T
		if first != nil {
			return zero, false
		}
		v, ok, err := f(r)
		if err != nil {
			first = err
			return zero, false
		}
		return v, ok
	})
	if first != nil {
		res.Release()
		return nil, first
	}
	return res, nil
}

// rowsWith is rowsOf; with skipNulls false, f sees rows with NULLs too
// (it checks r.null itself).
func rowsWith[T any](ctx *fn.Ctx, out arrow.DataType, a []arrow.Array, n int, skipNulls bool, f func(r row) (T, bool)) arrow.Array {
	b := array.NewBuilder(ctx.Mem, out)
	defer b.Release()
	b.Reserve(n)
	add := appender[T](b)
	r := row{a: a, loc: ctx.Loc()}
	for i := 0; i < n; i++ {
		if skipNulls && anyNull(a, i) {
			b.AppendNull()
			continue
		}
		r.i = i
		if v, ok := f(r); ok {
			add(v)
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}

// appender is the Append of b for values of Go type T.
func appender[T any](b array.Builder) func(T) {
	var f any
	switch x := b.(type) {
	case *array.Int8Builder:
		f = x.Append
	case *array.Int16Builder:
		f = x.Append
	case *array.Int32Builder:
		f = x.Append
	case *array.Int64Builder:
		f = x.Append
	case *array.Float32Builder:
		f = x.Append
	case *array.Float64Builder:
		f = x.Append
	case *array.BooleanBuilder:
		f = x.Append
	case *array.StringBuilder:
		f = x.Append
	case *array.BinaryBuilder:
		f = x.Append
	case *array.Decimal128Builder:
		f = func(v decimal128.Num) { x.Append(v) }
	case *array.Date32Builder:
		f = func(v int32) { x.Append(arrow.Date32(v)) }
	case *array.TimestampBuilder:
		unit := x.Type().(*arrow.TimestampType).Unit
		f = func(us int64) { x.Append(arrow.Timestamp(fn.FromMicros(us, unit))) }
	}
	add, ok := f.(func(T))
	if !ok {
		panic("functions: no appender of this Go type for " + b.Type().String())
	}
	return add
}

// rows binds a function of signature kinds (see signature) with result
// type out computed per row by f (see rowsOf).
func rows[T any](kinds string, out arrow.DataType, f func(r row) (T, bool)) bindFunc {
	return func(args []fn.Arg) (fn.Bound, error) {
		in, err := signature(args, kinds)
		if err != nil {
			return fn.Bound{}, err
		}
		return fn.Bound{Type: out, Args: in, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			return rowsOf(ctx, out, a, n, f), nil
		}}, nil
	}
}

// always makes f's value valid.
func always[T any](f func(r row) T) func(r row) (T, bool) {
	return func(r row) (T, bool) { return f(r), true }
}

// nullAt reports whether value i of a is NULL; every value of a NULL-typed
// array is (Arrow's Null arrays have no validity bitmap).
func nullAt(a arrow.Array, i int) bool {
	return a.IsNull(i) || a.DataType().ID() == arrow.NULL
}
