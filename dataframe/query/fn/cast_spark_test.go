package fn_test

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
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

var (
	str    = arrow.BinaryTypes.String
	i64    = arrow.PrimitiveTypes.Int64
	i32    = arrow.PrimitiveTypes.Int32
	i16    = arrow.PrimitiveTypes.Int16
	i8     = arrow.PrimitiveTypes.Int8
	f64    = arrow.PrimitiveTypes.Float64
	f32    = arrow.PrimitiveTypes.Float32
	boolT  = arrow.FixedWidthTypes.Boolean
	date   = arrow.FixedWidthTypes.Date32
	tsMS   = sparktype.TimestampType
	tsUS   = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	dec102 = &arrow.Decimal128Type{Precision: 10, Scale: 2}
)

func ts(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.999999", s)
	if err != nil {
		panic(err)
	}
	return t
}

// Expected results are Spark 3.x's (spark.sql.ansi.enabled=false, session
// time zone UTC).
func TestCastSpark(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		from, to arrow.DataType
		in, want []any
	}{
		{"string→long", str, i64,
			[]any{"1", " 42 ", "-9223372036854775808", "9223372036854775808", "1.9", "-1.9", "abc", "", "1e3", "+7", "-", nil, "\t5\n"},
			[]any{int64(1), int64(42), int64(math.MinInt64), nil, int64(1), int64(-1), nil, nil, nil, int64(7), nil, nil, int64(5)}},
		{"string→int", str, i32,
			[]any{"2147483647", "2147483648", "-2147483648", "12.50"},
			[]any{int32(2147483647), nil, int32(-2147483648), int32(12)}},
		{"string→smallint range", str, i16, []any{"32767", "32768"}, []any{int32(32767), nil}},
		{"string→tinyint range", str, i8, []any{"-128", "128"}, []any{int32(-128), nil}},
		{"string→double", str, f64,
			[]any{"1.5", " 2 ", "1e3", "inf", "-Infinity", "abc", "1.5d", "0x10", "1_000", ""},
			[]any{1.5, 2.0, 1000.0, math.Inf(1), math.Inf(-1), nil, 1.5, nil, nil, nil}},
		{"string→boolean", str, boolT,
			[]any{"true", "T", " yes ", "1", "false", "n", "0", "maybe", nil},
			[]any{true, true, true, true, false, false, false, nil, nil}},
		{"string→decimal", str, dec102,
			[]any{"1.005", "-1.005", "123456789", "12345678.9", "1e2", "x"},
			[]any{"1.01", "-1.01", nil, "12345678.90", "100.00", nil}},
		{"string→date", str, date,
			[]any{"2021-03-04", "2021-3-4", "2021", "2021-02", "2021-02-30", "2021-03-04 10:00:00", "2021-03-04T10:00", "21-03-04", "2021-03-04x"},
			[]any{"2021-03-04", "2021-03-04", "2021-01-01", "2021-02-01", nil, "2021-03-04", "2021-03-04", nil, nil}},
		{"string→timestamp", str, tsUS,
			[]any{"2021-03-04 05:06:07", "2021-03-04T05:06:07.123456Z", "2021-03-04 05:06:07+01:00", "2021-03-04", "2021-03-04 5:6", "2021-03-04 25:00:00", "nope", "2021-03-04 05:06:07 UTC"},
			[]any{ts("2021-03-04 05:06:07"), ts("2021-03-04 05:06:07.123456"), ts("2021-03-04 04:06:07"), ts("2021-03-04 00:00:00"), ts("2021-03-04 05:06:00"), nil, nil, ts("2021-03-04 05:06:07")}},
		{"long→int wraps", i64, i32, []any{int64(1) << 32, int64(-1)}, []any{int32(0), int32(-1)}},
		{"double→long truncates, saturates, NaN 0", f64, i64,
			[]any{1.9, -1.9, 1e30, math.NaN()},
			[]any{int64(1), int64(-1), int64(math.MaxInt64), int64(0)}},
		{"double→int saturates", f64, i32, []any{3e9}, []any{int32(math.MaxInt32)}},
		{"double→string (Java)", f64, str,
			[]any{1.0, 0.1, 1e7, 1.5e-4, 123456.789, math.Copysign(0, -1), math.NaN(), math.Inf(-1), 1e21, 0.001},
			[]any{"1.0", "0.1", "1.0E7", "1.5E-4", "123456.789", "-0.0", "NaN", "-Infinity", "1.0E21", "0.001"}},
		{"float→string", f32, str, []any{0.1, 1e10}, []any{"0.1", "1.0E10"}},
		{"long→string", i64, str, []any{int64(-5), nil}, []any{"-5", nil}},
		{"boolean→string", boolT, str, []any{true, false}, []any{"true", "false"}},
		{"boolean→long", boolT, i64, []any{true, false}, []any{int64(1), int64(0)}},
		{"long→boolean", i64, boolT, []any{int64(0), int64(-3)}, []any{false, true}},
		{"decimal→string", dec102, str, []any{"1.50", "-0.05"}, []any{"1.50", "-0.05"}},
		{"decimal→long truncates", dec102, i64, []any{"1.99", "-1.99"}, []any{int64(1), int64(-1)}},
		{"double→decimal HALF_UP", f64, dec102, []any{2.675, 1e20, math.NaN()}, []any{"2.68", nil, nil}},
		{"decimal→double", dec102, f64, []any{"1.25"}, []any{1.25}},
		{"timestamp→string", tsMS, str,
			[]any{ts("2021-03-04 05:06:07"), ts("2021-03-04 05:06:07.120")},
			[]any{"2021-03-04 05:06:07", "2021-03-04 05:06:07.12"}},
		{"timestamp→long seconds", tsMS, i64, []any{ts("1970-01-01 00:00:01.999"), ts("1969-12-31 23:59:59.5")}, []any{int64(1), int64(-1)}},
		{"timestamp→double", tsMS, f64, []any{ts("1970-01-01 00:00:01.5")}, []any{1.5}},
		{"timestamp→date", tsMS, date, []any{ts("2021-03-04 23:59:59")}, []any{"2021-03-04"}},
		{"date→timestamp", date, tsMS, []any{ts("2021-03-04 00:00:00")}, []any{ts("2021-03-04 00:00:00")}},
		{"date→string", date, str, []any{ts("2021-03-04 00:00:00")}, []any{"2021-03-04"}},
		{"date→long is NULL", date, i64, []any{ts("2021-03-04 00:00:00")}, []any{nil}},
		{"long→timestamp seconds", i64, tsMS, []any{int64(1)}, []any{ts("1970-01-01 00:00:01")}},
		{"double→timestamp", f64, tsUS, []any{1.5, math.NaN()}, []any{ts("1970-01-01 00:00:01.5"), nil}},
		{"timestamp ms→us", tsMS, tsUS, []any{ts("2021-03-04 05:06:07.123")}, []any{ts("2021-03-04 05:06:07.123")}},
		{"array→string", arrow.ListOf(i64), str, []any{[]any{int64(1), nil, int64(3)}, []any{}, nil}, []any{"[1, null, 3]", "[]", nil}},
		{"array<string>→array<int>", arrow.ListOf(str), arrow.ListOf(i32), []any{[]any{"1", "x"}}, []any{[]any{int32(1), nil}}},
		{"struct→string", arrow.StructOf(arrow.Field{Name: "a", Type: i64, Nullable: true}, arrow.Field{Name: "b", Type: str, Nullable: true}), str,
			[]any{[]any{int64(1), "x"}, []any{nil, "y"}}, []any{"{1, x}", "{null, y}"}},
		{"map→string", arrow.MapOf(str, i64), str, []any{[]any{"a", int64(1), "b", nil}}, []any{"{a -> 1, b -> null}"}},
		{"null→long", arrow.Null, i64, []any{nil, nil}, []any{nil, nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			// Sliced past a leading NULL row: the cast must honour offsets.
			whole := fntest.Array(mem, tc.from, append([]any{nil}, tc.in...)...)
			in := arrowSlice(whole, 1, int64(len(tc.in)+1))
			whole.Release()
			defer in.Release()
			out, err := fn.Cast(mem, in, tc.to)
			require.NoError(t, err)
			defer out.Release()
			require.True(t, arrow.TypeEqual(tc.to, out.DataType()), "type %s", out.DataType())
			got := fntest.Values(out)
			require.Equal(t, len(tc.want), len(got))
			for i := range got {
				if f, ok := tc.want[i].(float64); ok && math.IsNaN(f) {
					require.True(t, math.IsNaN(got[i].(float64)))
					continue
				}
				require.Equal(t, tc.want[i], got[i], "row %d (%v)", i, tc.in[i])
			}
		})
	}
}

func TestCastUnsupported(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := fntest.Array(mem, arrow.ListOf(i64), []any{int64(1)})
	defer in.Release()
	_, err := fn.Cast(mem, in, i64)
	require.EqualError(t, err, "cannot cast array<long> to long")
	require.False(t, fn.CanCast(i64, date))
	require.True(t, fn.CanCast(str, date))
}

func TestCastSlicedStruct(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	st := arrow.StructOf(arrow.Field{Name: "a", Type: str, Nullable: true})
	in := fntest.Array(mem, st, []any{"1"}, []any{"2"}, []any{"3"})
	defer in.Release()
	sl := arrowSlice(in, 1, 3)
	defer sl.Release()
	to := arrow.StructOf(arrow.Field{Name: "a", Type: i64, Nullable: true})
	out, err := fn.Cast(mem, sl, to)
	require.NoError(t, err)
	defer out.Release()
	require.Equal(t, []any{map[string]any{"a": int64(2)}, map[string]any{"a": int64(3)}}, fntest.Values(out))
}

func FuzzCastString(f *testing.F) {
	for _, s := range []string{"1", " -12.5 ", "1e3", "2021-03-04 05:06:07.123+01:00", "2021-3-4", "true", "inf", "9223372036854775808", "12345678901234567890.123"} {
		f.Add(s)
	}
	targets := []arrow.DataType{i64, i32, i16, i8, f64, f32, boolT, dec102, &arrow.Decimal128Type{Precision: 38, Scale: 10}, date, tsUS, tsMS, arrow.BinaryTypes.Binary}
	f.Fuzz(func(t *testing.T, s string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		in := fntest.Array(mem, str, s, nil)
		defer in.Release()
		for _, to := range targets {
			out, err := fn.Cast(mem, in, to)
			if err != nil {
				t.Fatalf("cast %q to %s: %v", s, to, err)
			}
			if out.Len() != 2 || out.IsValid(1) {
				t.Fatalf("cast %q to %s: bad shape", s, to)
			}
			// A value that casts must survive the trip back to text and in
			// again unchanged.
			if out.IsValid(0) && to.ID() != arrow.BINARY {
				back, err := fn.Cast(mem, out, str)
				if err != nil {
					t.Fatal(err)
				}
				again, err := fn.Cast(mem, back, to)
				if err != nil {
					t.Fatal(err)
				}
				if !again.IsValid(0) {
					t.Fatalf("%q → %s → %q does not cast back", s, to, back.ValueStr(0))
				}
				if to.ID() != arrow.FLOAT32 && to.ID() != arrow.FLOAT64 && again.ValueStr(0) != out.ValueStr(0) {
					t.Fatalf("%q → %s: %s, back through %q: %s", s, to, out.ValueStr(0), back.ValueStr(0), again.ValueStr(0))
				}
				back.Release()
				again.Release()
			}
			out.Release()
		}
	})
}

func TestCastOtherEncodings(t *testing.T) {
	t.Parallel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	large := fntest.Array(mem, arrow.BinaryTypes.LargeString, "12", nil, "x")
	defer large.Release()
	out, err := fn.Cast(mem, large, i64)
	require.NoError(t, err)
	require.Equal(t, []any{int64(12), nil, nil}, fntest.Values(out))
	out.Release()

	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: str}).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	require.NoError(t, db.AppendString("7"))
	require.NoError(t, db.AppendString("8"))
	require.NoError(t, db.AppendString("7"))
	dict := db.NewArray()
	defer dict.Release()
	out, err = fn.Cast(mem, dict, i32)
	require.NoError(t, err)
	require.Equal(t, []any{int32(7), int32(8), int32(7)}, fntest.Values(out))
	out.Release()
}

func TestCivilDaysMatchesTime(t *testing.T) {
	t.Parallel()
	for day := int64(-1_000_000); day <= 1_000_000; day += 37 {
		tt := time.Unix(day*86400, 0).UTC()
		got, ok := fn.CivilDays(tt.Year(), int(tt.Month()), tt.Day())
		require.True(t, ok)
		require.Equal(t, day, int64(got), "%s", tt)
	}
	for _, bad := range [][3]int{{2021, 2, 29}, {1900, 2, 29}, {2021, 4, 31}, {2021, 13, 1}, {2021, 0, 1}, {2021, 1, 0}} {
		_, ok := fn.CivilDays(bad[0], bad[1], bad[2])
		require.False(t, ok, "%v", bad)
	}
	_, ok := fn.CivilDays(2000, 2, 29)
	require.True(t, ok)
}

// TestCastInSessionZone: a timestamp is an instant whose text is its
// wall-clock time in the session time zone (Ctx.Zone), as Spark's casts
// under spark.sql.session.timeZone=America/Los_Angeles.
func TestCastInSessionZone(t *testing.T) {
	t.Parallel()
	la, err := time.LoadLocation("America/Los_Angeles")
	require.NoError(t, err)
	ntz := &arrow.TimestampType{Unit: arrow.Millisecond}
	cases := []struct {
		name     string
		from, to arrow.DataType
		in, want any
	}{
		{"string→timestamp", str, tsMS, "2016-03-11 20:54:00", ts("2016-03-12 04:54:00")},
		{"string with zone→timestamp", str, tsMS, "2016-03-11 20:54:00Z", ts("2016-03-11 20:54:00")},
		{"timestamp→string", tsMS, str, ts("2016-03-12 04:54:00.5"), "2016-03-11 20:54:00.5"},
		{"timestamp→date", tsMS, date, ts("2016-03-12 04:54:00"), "2016-03-11"},
		{"date→timestamp", date, tsMS, ts("2016-03-11 00:00:00"), ts("2016-03-11 08:00:00")},
		{"timestamp→timestamp_ntz", tsMS, ntz, ts("2016-03-12 04:54:00"), ts("2016-03-11 20:54:00")},
		{"timestamp_ntz→timestamp", ntz, tsMS, ts("2016-07-01 12:00:00"), ts("2016-07-01 19:00:00")},
		{"timestamp_ntz→string", ntz, str, ts("2016-07-01 12:00:00"), "2016-07-01 12:00:00"},
		{"timestamp_ntz→date", ntz, date, ts("2016-07-01 23:00:00"), "2016-07-01"},
		{"array<timestamp>→string", arrow.ListOf(tsMS), str, []any{ts("2016-03-12 04:54:00")}, "[2016-03-11 20:54:00]"},
		{"long→timestamp", i64, tsMS, int64(0), ts("1970-01-01 00:00:00")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			in := fntest.Array(mem, tc.from, tc.in)
			defer in.Release()
			out, err := (&fn.Ctx{Mem: mem, Zone: la}).Cast(in, tc.to)
			require.NoError(t, err)
			defer out.Release()
			require.Equal(t, []any{tc.want}, fntest.Values(out))
		})
	}
	require.Equal(t, "2016-03-11 20:54:00", string(fn.AppendTimestamp(nil, ts("2016-03-12 04:54:00").UnixMicro(), la)))
	require.Equal(t, time.UTC, (*fn.Ctx)(nil).Loc())
}
