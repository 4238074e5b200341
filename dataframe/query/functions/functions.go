// Package functions is Sluice's library of scalar SQL functions: Spark SQL
// 3.5's built-in string, date-time, math, bitwise, collection, map,
// struct, JSON, CSV, URL, hash, conditional, predicate and type functions
// with its defaults (spark.sql.ansi.enabled=false). Importing it registers
// them all in package fn; package dataframe/query imports it, so every
// query sees them.
//
// Each function is one registration (registry.go's def): its name and
// aliases, the Bind that checks argument types, asks for Spark's implicit
// casts and picks the result type, the kernel that evaluates whole Arrow
// arrays, Spark's name for an unaliased call, and its documentation with
// examples. docs/sql-functions.md is generated from the registrations and
// catalog/functions_examples_test.go runs every example as a query.
//
//	s, _ := fn.Lookup("upper")
//	bound, err := s.Bind([]fn.Arg{{Type: arrow.PrimitiveTypes.Int64}}) // upper(123) → '123'
package functions

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/bitutil"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

var (
	stringType  = arrow.BinaryTypes.String
	int32Type   = arrow.PrimitiveTypes.Int32
	int64Type   = arrow.PrimitiveTypes.Int64
	float64Type = arrow.PrimitiveTypes.Float64
	boolType    = arrow.FixedWidthTypes.Boolean
	dateType    = arrow.FixedWidthTypes.Date32
	binaryType  = arrow.BinaryTypes.Binary
	int8Type    = arrow.PrimitiveTypes.Int8
)

// timestampType is the type of every timestamp a function returns.
var timestampType = sparktype.TimestampType

// arity checks the number of arguments.
func arity(args []fn.Arg, min, max int) error {
	n := len(args)
	if n >= min && (max < 0 || n <= max) {
		return nil
	}
	plural := func(k int) string {
		if k == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", k)
	}
	switch {
	case min == max:
		return fmt.Errorf("takes %s, got %d", plural(min), n)
	case max < 0:
		return fmt.Errorf("takes at least %s, got %d", plural(min), n)
	}
	return fmt.Errorf("takes %d to %d arguments, got %d", min, max, n)
}

func argErr(i int, a fn.Arg, want string) error {
	return fmt.Errorf("argument %d must be %s, got %s", i+1, want, sparkName(a.Type))
}

// sparkName is the Spark name of a type in error messages.
func sparkName(dt arrow.DataType) string { return sparktype.Name(dt) }

func isNull(dt arrow.DataType) bool { return dt.ID() == arrow.NULL }

func isStringType(dt arrow.DataType) bool {
	return dt.ID() == arrow.STRING || dt.ID() == arrow.LARGE_STRING
}

func isNumeric(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128:
		return true
	}
	return false
}

func isIntegral(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return true
	}
	return false
}

func isAtomic(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.STRUCT, arrow.MAP:
		return false
	}
	return true
}

// stringArg is Spark's implicit cast of an argument to string: any atomic
// type converts (upper(123) is '123'); arrays, structs and maps do not.
func stringArg(args []fn.Arg, i int) (arrow.DataType, error) {
	if !isAtomic(args[i].Type) {
		return nil, argErr(i, args[i], "a string")
	}
	return stringType, nil
}

// intArg is the implicit cast of an argument to int: numbers and strings
// convert.
func intArg(args []fn.Arg, i int, to arrow.DataType) (arrow.DataType, error) {
	dt := args[i].Type
	if isNumeric(dt) || isStringType(dt) || isNull(dt) {
		return to, nil
	}
	return nil, argErr(i, args[i], "an integer")
}

// stringArgs casts every argument to string.
func stringArgs(args []fn.Arg) ([]arrow.DataType, error) {
	return signature(args, strings.Repeat("s", len(args)))
}

// signature checks the number of arguments and each one against its kind
// in kinds, and returns the implicit casts that give them those types (as
// Spark's ImplicitCastInputTypes): 's' string (from any atomic type), 'i'
// int and 'l' long (from any number or string), 'd' double (the same), 'b'
// boolean, 'B' binary (from string or binary), 't' a string, date or
// timestamp as it is, 'T' the same cast to a timestamp, 'D' cast to a date,
// 'a' anything as it is. A '|' marks where optional arguments start.
func signature(args []fn.Arg, kinds string) ([]arrow.DataType, error) {
	required := strings.IndexByte(kinds, '|')
	if required < 0 {
		required = len(kinds)
	} else {
		kinds = kinds[:required] + kinds[required+1:]
	}
	if err := arity(args, required, len(kinds)); err != nil {
		return nil, err
	}
	in := make([]arrow.DataType, len(args))
	for i := range args {
		var err error
		switch kinds[i] {
		case 's':
			in[i], err = stringArg(args, i)
		case 'i':
			in[i], err = intArg(args, i, int32Type)
		case 'l':
			in[i], err = intArg(args, i, int64Type)
		case 'd':
			if in[i], err = intArg(args, i, float64Type); err != nil {
				err = argErr(i, args[i], "a number")
			}
		case 'b':
			if id := args[i].Type.ID(); id != arrow.BOOL && id != arrow.NULL {
				err = argErr(i, args[i], "a boolean")
			}
			in[i] = boolType
		case 'B':
			in[i], err = binaryArg(args, i)
		case 't', 'T', 'D':
			if err = timeArg(args, i); err == nil {
				in[i] = map[byte]arrow.DataType{'t': nil, 'T': tsMicros, 'D': dateType}[kinds[i]]
			}
		case 'a':
		default:
			panic("functions: signature kind " + string(kinds[i]))
		}
		if err != nil {
			return nil, err
		}
	}
	return in, nil
}

// binaryArg is the implicit cast to binary: strings convert to their UTF-8
// bytes.
func binaryArg(args []fn.Arg, i int) (arrow.DataType, error) {
	switch args[i].Type.ID() {
	case arrow.BINARY, arrow.STRING, arrow.LARGE_STRING, arrow.NULL:
		return binaryType, nil
	}
	return nil, argErr(i, args[i], "a binary or a string")
}

// mapValues builds an array of type t with one value per row of src:
// NULL where src is NULL, else whatever f appends for row i.
func mapValues(mem memory.Allocator, t arrow.DataType, src arrow.Array, n int, f func(b array.Builder, i int)) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if nullAt(src, i) {
			b.AppendNull()
		} else {
			f(b, i)
		}
	}
	return b.NewArray()
}

// constString is the value of a string literal argument; ok is false when
// the argument is not a literal. A NULL literal is ("", true, true).
func constString(a fn.Arg) (s string, isNull, ok bool) {
	if !a.Const {
		return "", false, false
	}
	if a.Value == nil {
		return "", true, true
	}
	switch v := a.Value.(type) {
	case string:
		return v, false, true
	case []byte:
		return string(v), false, true
	}
	// A literal of another type: its Spark text, as the implicit cast gives.
	lit := literalArray(a)
	defer lit.Release()
	return string(fn.AppendSparkString(nil, lit, 0, nil)), false, true
}

// literalArray is a length-1 array of a literal argument.
func literalArray(a fn.Arg) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, a.Type)
	defer b.Release()
	appendLiteral(b, a.Value)
	return b.NewArray()
}

func appendLiteral(b array.Builder, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch x := b.(type) {
	case *array.StringBuilder:
		x.Append(fmt.Sprint(v))
	case *array.Int64Builder:
		x.Append(toInt64(v))
	case *array.Int32Builder:
		x.Append(int32(toInt64(v)))
	case *array.Float64Builder:
		x.Append(v.(float64))
	case *array.BooleanBuilder:
		x.Append(v.(bool))
	case *array.Decimal128Builder:
		x.Append(v.(decimal128.Num))
	case *array.TimestampBuilder:
		x.Append(arrow.Timestamp(fn.FromMicros(v.(time.Time).UnixMicro(), x.Type().(*arrow.TimestampType).Unit)))
	case *array.Date32Builder:
		x.Append(arrow.Date32FromTime(v.(time.Time)))
	case *array.BinaryBuilder:
		x.Append(v.([]byte))
	default:
		// The literal types fn.Arg documents are all handled above.
		if err := b.AppendValueFromString(fmt.Sprint(v)); err != nil {
			b.AppendNull()
		}
	}
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case float64:
		return int64(x)
	}
	return 0
}

// constInt is the value of an integer literal argument.
func constInt(a fn.Arg) (v int64, isNull, ok bool) {
	if !a.Const {
		return 0, false, false
	}
	switch x := a.Value.(type) {
	case nil:
		return 0, true, true
	case int64, int32, int:
		return toInt64(x), false, true
	case string:
		lit := literalArray(a)
		defer lit.Release()
		c, err := fn.Cast(memory.DefaultAllocator, lit, int64Type)
		if err != nil {
			return 0, false, false
		}
		defer c.Release()
		if nullAt(c, 0) {
			return 0, true, true
		}
		return c.(*array.Int64).Value(0), false, true
	}
	return 0, false, false
}

// commonType is the type two arguments widen to for a comparison or a
// choice between them: Spark's type lattice (sparktype.Common), except
// that, as Spark's findWiderTypeForTwo, a date and a timestamp meet at
// timestamp and nested values meet only values of their own kind; ok is
// false when there is no such type.
func commonType(a, b arrow.DataType) (arrow.DataType, bool) {
	switch {
	case arrow.TypeEqual(a, b):
		return a, true
	case isNull(a):
		return b, true
	case isNull(b):
		return a, true
	case isTimeLike(a) && isTimeLike(b):
		return timestampType, true
	case !isAtomic(a) || !isAtomic(b):
		if a.ID() != b.ID() {
			return nil, false
		}
		if a.ID() == arrow.LIST {
			e, ok := commonType(a.(*arrow.ListType).Elem(), b.(*arrow.ListType).Elem())
			if !ok {
				return nil, false
			}
			return arrow.ListOf(e), true
		}
	}
	return sparktype.Common(a, b), true
}

// widerWithoutString is Spark's findWiderTypeWithoutStringPromotionForTwo:
// commonType, except that a string meets only a string (or NULL) — an
// integer and a string have no common type here, where a comparison would
// compare them as strings.
func widerWithoutString(a, b arrow.DataType) (arrow.DataType, bool) {
	t, ok := commonType(a, b)
	if !ok {
		return nil, false
	}
	if isStringType(t) && !(isStringType(a) || isNull(a)) || isStringType(t) && !(isStringType(b) || isNull(b)) {
		return nil, false
	}
	return t, true
}

// commonOf widens every argument type together, naming the first argument
// that does not fit.
func commonOf(args []fn.Arg, from int) (arrow.DataType, error) {
	t := arrow.DataType(arrow.Null)
	for i := from; i < len(args); i++ {
		w, ok := commonType(t, args[i].Type)
		if !ok {
			return nil, fmt.Errorf("argument %d (%s) has no common type with %s", i+1,
				sparkName(args[i].Type), sparkName(t))
		}
		t = w
	}
	return t, nil
}

// choose builds the result whose row i is row i of args[sel[i]], or NULL
// where sel[i] < 0. All args have type dt.
func choose(mem memory.Allocator, dt arrow.DataType, args []arrow.Array, sel []int32) (arrow.Array, error) {
	n := len(sel)
	if dt.ID() == arrow.NULL {
		return array.NewNull(n), nil
	}
	if flatType(dt) {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		b.Reserve(n)
		for i, k := range sel {
			if k < 0 || nullAt(args[k], i) {
				b.AppendNull()
			} else {
				appendFrom(b, args[k], i)
			}
		}
		return b.NewArray(), nil
	}
	all, err := array.Concatenate(args, mem)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	idx := make([]int64, n)
	for i, k := range sel {
		idx[i] = -1
		if k >= 0 {
			idx[i] = int64(k)*int64(n) + int64(i)
		}
	}
	return takeValues(mem, all, idx)
}

// flatType reports whether appendFrom handles dt.
func flatType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY, arrow.INT64, arrow.FLOAT64, arrow.INT32, arrow.BOOL, arrow.TIMESTAMP,
		arrow.DATE32, arrow.INT16, arrow.INT8, arrow.FLOAT32, arrow.DECIMAL128:
		return true
	}
	return false
}

// appendFrom appends the valid value i of src (of a flatType) to b.
func appendFrom(b array.Builder, src arrow.Array, i int) {
	switch x := b.(type) {
	case *array.StringBuilder:
		x.Append(src.(*array.String).Value(i))
	case *array.BinaryBuilder:
		x.Append(src.(*array.Binary).Value(i))
	case *array.Int64Builder:
		x.UnsafeAppend(src.(*array.Int64).Value(i))
	case *array.Float64Builder:
		x.UnsafeAppend(src.(*array.Float64).Value(i))
	case *array.Int32Builder:
		x.UnsafeAppend(src.(*array.Int32).Value(i))
	case *array.BooleanBuilder:
		x.UnsafeAppend(src.(*array.Boolean).Value(i))
	case *array.TimestampBuilder:
		x.UnsafeAppend(src.(*array.Timestamp).Value(i))
	case *array.Date32Builder:
		x.UnsafeAppend(src.(*array.Date32).Value(i))
	case *array.Int16Builder:
		x.UnsafeAppend(src.(*array.Int16).Value(i))
	case *array.Int8Builder:
		x.UnsafeAppend(src.(*array.Int8).Value(i))
	case *array.Float32Builder:
		x.UnsafeAppend(src.(*array.Float32).Value(i))
	case *array.Decimal128Builder:
		x.UnsafeAppend(src.(*array.Decimal128).Value(i))
	default:
		panic(fmt.Sprintf("functions: appendFrom %T", b))
	}
}

// takeValues returns values[idx[k]] for each k, NULL where idx[k] < 0.
// Flat types are copied directly; lists, maps and structs take their
// children the same way.
func takeValues(mem memory.Allocator, values arrow.Array, idx []int64) (arrow.Array, error) {
	dt := values.DataType()
	switch v := values.(type) {
	case *array.Null:
		return array.NewNull(len(idx)), nil
	case *array.Duration, *array.MonthInterval, *array.MonthDayNanoInterval:
		// Intervals by their bytes: an Arrow builder would forget the
		// Spark fields their type stands for (docs/sql.md#intervals).
		width := dt.(arrow.FixedWidthDataType).BitWidth() / 8
		src := v.Data().Buffers()[1].Bytes()[v.Data().Offset()*width:]
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(len(idx) * width)
		defer buf.Release()
		out := buf.Bytes()
		for k, j := range idx {
			if j >= 0 {
				copy(out[k*width:(k+1)*width], src[int(j)*width:(int(j)+1)*width])
			}
		}
		valid, nulls := takeValidity(mem, values, idx)
		defer valid.Release()
		data := array.NewData(dt, len(idx), []*memory.Buffer{valid, buf}, nil, nulls, 0)
		defer data.Release()
		return array.MakeFromData(data), nil
	case *array.Struct:
		children := make([]arrow.ArrayData, v.NumField())
		for f := range children {
			c, err := takeValues(mem, v.Field(f), idx)
			if err != nil {
				return nil, err
			}
			defer c.Release()
			children[f] = c.Data()
		}
		valid, nulls := takeValidity(mem, values, idx)
		defer valid.Release()
		data := array.NewData(dt, len(idx), []*memory.Buffer{valid}, children, nulls, 0)
		defer data.Release()
		return array.MakeFromData(data), nil
	case array.ListLike:
		var child arrow.Array
		switch l := v.(type) {
		case *array.List:
			child = l.ListValues()
		case *array.Map:
			child = l.ListValues() // the entries struct
		default:
			return nil, fmt.Errorf("functions: cannot take values of %s", dt)
		}
		offsets := make([]int32, 1, len(idx)+1)
		var inner []int64
		for _, j := range idx {
			if j >= 0 && !nullAt(values, int(j)) {
				s, e := v.ValueOffsets(int(j))
				for k := s; k < e; k++ {
					inner = append(inner, k)
				}
			}
			offsets = append(offsets, int32(len(inner)))
		}
		c, err := takeValues(mem, child, inner)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		valid, nulls := takeValidity(mem, values, idx)
		defer valid.Release()
		offs := memory.NewResizableBuffer(mem)
		offs.Resize(len(offsets) * arrow.Int32SizeBytes)
		copy(arrow.Int32Traits.CastFromBytes(offs.Bytes()), offsets)
		defer offs.Release()
		data := array.NewData(dt, len(idx), []*memory.Buffer{valid, offs}, []arrow.ArrayData{c.Data()}, nulls, 0)
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	if !flatType(dt) {
		return nil, fmt.Errorf("functions: cannot take values of %s", dt)
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	b.Reserve(len(idx))
	for _, j := range idx {
		if j < 0 || nullAt(values, int(j)) {
			b.AppendNull()
		} else {
			appendFrom(b, values, int(j))
		}
	}
	return b.NewArray(), nil
}

// takeValidity is the validity bitmap of values[idx[k]].
func takeValidity(mem memory.Allocator, values arrow.Array, idx []int64) (*memory.Buffer, int) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(idx)))))
	bits := buf.Bytes()
	clear(bits)
	nulls := 0
	for k, j := range idx {
		if j >= 0 && !nullAt(values, int(j)) {
			bitutil.SetBit(bits, k)
		} else {
			nulls++
		}
	}
	return buf, nulls
}

// cache holds what a string argument compiles to — a regular expression,
// a datetime pattern: compiled at bind time when the argument is a literal
// (or absent, with a default), otherwise once per distinct value seen by
// an evaluation.
type cache[T any] struct {
	arg      int
	compile  func(string) (T, error)
	fixed    T
	hasFixed bool
	seen     map[string]T
}

func newCache[T any](args []fn.Arg, i int, def string, compile func(string) (T, error)) (*cache[T], error) {
	c := &cache[T]{arg: i, compile: compile}
	p, null, ok := def, false, def != ""
	if i < len(args) {
		p, null, ok = constString(args[i])
	}
	if ok && !null {
		v, err := compile(p)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		c.fixed, c.hasFixed = v, true
	}
	return c, nil
}

// forEval is the cache one evaluation uses: evaluations may run
// concurrently, so a non-literal argument gets a private map.
func (c *cache[T]) forEval() *cache[T] {
	if c.hasFixed {
		return c
	}
	return &cache[T]{arg: c.arg, compile: c.compile, seen: map[string]T{}}
}

// at is the compiled argument of row i (a[c.arg] must be a string array
// unless the value is fixed).
func (c *cache[T]) at(a []arrow.Array, i int) (T, error) {
	if c.hasFixed {
		return c.fixed, nil
	}
	p := a[c.arg].(*array.String).Value(i)
	if v, ok := c.seen[p]; ok {
		return v, nil
	}
	v, err := c.compile(p)
	if err != nil {
		return v, fmt.Errorf("argument %d: %w", c.arg+1, err)
	}
	if len(c.seen) > 1024 {
		clear(c.seen)
	}
	c.seen[p] = v
	return v, nil
}

// anyNull reports whether row i is NULL in any of args.
func anyNull(args []arrow.Array, i int) bool {
	for _, a := range args {
		if nullAt(a, i) {
			return true
		}
	}
	return false
}

// lowerName is the lower-case form of a unit or format name argument.
func lowerName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
