package functions

import (
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/sluicedata/sluice/dataframe/query/fn"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

// Type and conversion functions: see docs/sql-functions.md#type-functions.
// CAST itself is the executor's (with fn.Cast).

func init() {
	for _, c := range []struct {
		name string
		to   arrow.DataType
		sql  string
		ex   []fn.Example
	}{
		{"bigint", int64Type, "BIGINT", ex("bigint('12')", "12")},
		{"binary", binaryType, "BINARY", ex("binary('Spark')", "Spark")},
		{"boolean", boolType, "BOOLEAN", ex("boolean('yes')", "true", "boolean(0)", "false")},
		{"date", dateType, "DATE", ex("date('2021-03-04 05:06:07')", "2021-03-04")},
		{"decimal", &arrow.Decimal128Type{Precision: 10}, "DECIMAL(10,0)", ex("decimal('12.6')", "13")},
		{"double", float64Type, "DOUBLE", ex("double('1e3')", "1000.0")},
		{"float", arrow.PrimitiveTypes.Float32, "FLOAT", ex("float('1.5')", "1.5")},
		{"int", int32Type, "INT", ex("int('42')", "42", "int(1.9)", "1", "int('x')", "NULL")},
		{"smallint", arrow.PrimitiveTypes.Int16, "SMALLINT", ex("smallint('7')", "7")},
		{"string", stringType, "STRING", ex("string(1.50)", "1.50", "string(array(1, 2))", "[1, 2]")},
		{"timestamp", timestampType, "TIMESTAMP", ex("timestamp('2021-03-04 05:06:07')", "2021-03-04 05:06:07")},
		{"tinyint", int8Type, "TINYINT", ex("tinyint('7')", "7")},
	} {
		to := c.to
		def(fn.Scalar{Name: c.name, Group: gType, Signature: c.name + "(expr)", Returns: strings.ToLower(c.sql),
			Bind: func(args []fn.Arg) (fn.Bound, error) {
				if err := arity(args, 1, 1); err != nil {
					return fn.Bound{}, err
				}
				if !fn.CanCast(args[0].Type, to) {
					return fn.Bound{}, fmt.Errorf("cannot cast %s to %s", sparkName(args[0].Type), sparkName(to))
				}
				return fn.Bound{Type: to, Eval: func(ctx *fn.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
					return ctx.Cast(a[0], to)
				}}, nil
			},
			Doc:      "`CAST(expr AS " + c.sql + ")`: see [CAST](#cast).",
			Examples: c.ex},
			pretty(func(_ string, args []string) string { return strings.Join(args, ", ") }))
	}
	def(fn.Scalar{Name: "typeof", Group: gType, Signature: "typeof(expr)", Returns: "string",
		Bind: func(args []fn.Arg) (fn.Bound, error) {
			if err := arity(args, 1, 1); err != nil {
				return fn.Bound{}, err
			}
			name := sparktype.CatalogString(args[0].Type)
			return fn.Bound{Type: stringType, Eval: func(ctx *fn.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
				b := array.NewStringBuilder(ctx.Mem)
				defer b.Release()
				for i := 0; i < n; i++ {
					b.Append(name)
				}
				return b.NewArray(), nil
			}}, nil
		},
		Doc: "The Spark type name of `expr`.",
		Examples: ex("typeof(1)", "int", "typeof(array(1))", "array<int>", "typeof(1L)", "bigint", "typeof(1.5)", "decimal(2,1)",
			"typeof(map('a', named_struct('b', 1)))", "map<string,struct<b:int>>", "typeof(NULL)", "void")})
}
