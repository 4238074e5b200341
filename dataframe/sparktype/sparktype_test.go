package sparktype

import (
	"math"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/decimal128"
	"github.com/stretchr/testify/require"
)

func dec(p uint8) Scalar { return Scalar{Kind: Decimal, Prec: p} }

// TestWiden follows JsonSuite's "Get compatible type" for the types JSON
// inference produces, both argument orders.
func TestWiden(t *testing.T) {
	N, B, L, D, S := Scalar{Kind: Null}, Scalar{Kind: Boolean}, Scalar{Kind: Long}, Scalar{Kind: Double}, Scalar{Kind: String}
	St, A := Scalar{Kind: Struct}, Scalar{Kind: Array}
	cases := []struct{ a, b, want Scalar }{
		{N, B, B}, {N, L, L}, {N, D, D}, {N, dec(38), dec(38)}, {N, S, S}, {N, A, A}, {N, St, St}, {N, N, N},
		{B, B, B}, {B, L, S}, {B, D, S}, {B, dec(38), S}, {B, S, S}, {B, A, S}, {B, St, S},
		{L, L, L}, {L, D, D}, {L, dec(38), dec(38)}, {L, dec(19), dec(20)}, {L, S, S}, {L, A, S}, {L, St, S},
		{D, D, D}, {D, dec(38), D}, {D, S, S}, {D, A, S}, {D, St, S},
		{dec(38), dec(38), dec(38)}, {dec(21), dec(25), dec(25)}, {dec(38), S, S}, {dec(38), A, S}, {dec(38), St, S},
		{S, S, S}, {S, A, S}, {S, St, S},
		{A, A, A}, {A, St, S}, {St, St, St},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Widen(c.a, c.b), "%v %v", c.a, c.b)
		require.Equal(t, c.want, Widen(c.b, c.a), "%v %v", c.b, c.a)
		require.Equal(t, c.want == c.a, Fits(c.a, c.b) || c.a.Kind == String, "Fits(%v, %v)", c.a, c.b)
	}
	require.True(t, Fits(L, N))
	require.True(t, Fits(S, St))
	require.False(t, Fits(L, D))
	require.True(t, Fits(D, L))
	require.True(t, Fits(dec(20), L))
	require.False(t, Fits(dec(19), L))
}

func TestCommon(t *testing.T) {
	d := func(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }
	i64, f64, str := arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String
	cases := []struct{ a, b, want arrow.DataType }{
		{arrow.PrimitiveTypes.Int32, i64, i64},
		{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, i64},
		{i64, f64, f64},
		{arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Int32, f64},
		{i64, d(19, 0), d(20, 0)},
		{i64, d(30, 2), d(30, 2)},
		{i64, d(10, 2), d(22, 2)},
		{d(38, 0), d(10, 5), f64}, // 38 + 5 digits do not fit
		{d(20, 0), f64, f64},
		{d(20, 0), str, str},
		{d(20, 0), arrow.FixedWidthTypes.Boolean, str},
		{arrow.Null, d(20, 0), d(20, 0)},
		{arrow.ListOf(i64), arrow.ListOf(d(25, 0)), arrow.ListOf(d(25, 0))},
		{arrow.ListOf(i64), arrow.StructOf(), str},
	}
	for _, c := range cases {
		require.True(t, arrow.TypeEqual(c.want, Common(c.a, c.b)), "%s %s: %s", c.a, c.b, Common(c.a, c.b))
		require.True(t, arrow.TypeEqual(c.want, Common(c.b, c.a)), "%s %s", c.b, c.a)
	}
}

func TestMergeFieldsSorted(t *testing.T) {
	f := func(n string, dt arrow.DataType) arrow.Field { return arrow.Field{Name: n, Type: dt} }
	a := []arrow.Field{f("a", arrow.PrimitiveTypes.Int64), f("c", arrow.BinaryTypes.String)}
	b := []arrow.Field{f("B", arrow.FixedWidthTypes.Boolean), f("a", arrow.PrimitiveTypes.Float64), f("d", arrow.BinaryTypes.String)}
	got := MergeFields(a, b)
	require.Equal(t, "struct<B:boolean,a:double,c:string,d:string>", Name(arrow.StructOf(got...)))
	for _, g := range got[1:] {
		require.True(t, g.Nullable || g.Name == "a", g.Name)
	}
	// Unsorted input keeps a's order, b's new fields follow.
	got = MergeFields([]arrow.Field{f("z", arrow.PrimitiveTypes.Int64), f("a", arrow.PrimitiveTypes.Int64)}, []arrow.Field{f("m", arrow.PrimitiveTypes.Int64)})
	require.Equal(t, "struct<z:long,a:long,m:long>", Name(arrow.StructOf(got...)))
}

// javaLess is Java's String.compareTo: UTF-16 code units.
func javaLess(a, b string) bool {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func TestCompare(t *testing.T) {
	names := []string{"b", "B", "a", "", "a0", "é", "\uff61", "\U0001F600", "\U0001F601", "\uffff", "\ue000", "z\U0001F600", "z\uff61", "Z"}
	got := append([]string(nil), names...)
	sort.Slice(got, func(i, j int) bool { return Less(got[i], got[j]) })
	want := append([]string(nil), names...)
	sort.Slice(want, func(i, j int) bool { return javaLess(want[i], want[j]) })
	require.Equal(t, want, got)
	require.Equal(t, 0, Compare("abc", "abc"))
	require.Equal(t, -1, Compare("\U0001F600", "\uff61"))
	require.Equal(t, 1, Compare("\uff61", "\U0001F600"))
}

func FuzzCompare(f *testing.F) {
	f.Add("a", "b")
	f.Add("\U0001F600", "\uff61")
	f.Add("é", "e\u0301")
	f.Fuzz(func(t *testing.T, a, b string) {
		// Go decodes invalid UTF-8 to U+FFFD as []rune does.
		a, b = strings.ToValidUTF8(a, "\uFFFD"), strings.ToValidUTF8(b, "\uFFFD")
		c := Compare(a, b)
		require.Equal(t, javaLess(a, b), c < 0, "%q %q", a, b)
		require.Equal(t, javaLess(b, a), c > 0, "%q %q", a, b)
		require.Equal(t, -c, Compare(b, a))
	})
}

func TestNames(t *testing.T) {
	for _, s := range []string{"decimal(20,0)", "array<decimal(38,0)>", "struct<a:bigint,`b c`:array<string>>", "map<string,double>", "timestamp"} {
		dt, err := ParseType(s)
		require.NoError(t, err, s)
		back, err := ParseType(Name(dt))
		require.NoError(t, err)
		require.True(t, arrow.TypeEqual(dt, back), s)
	}
	require.Equal(t, "decimal(20,0)", TypeName(&arrow.Decimal128Type{Precision: 20}))
	require.Equal(t, "array", TypeName(arrow.ListOf(arrow.BinaryTypes.String)))
	require.Equal(t, `a\nb\r\t\f\b\v\a`+"\x01", EscapeName("a\nb\r\t\f\b\v\a\x01"))
	s := arrow.NewSchema([]arrow.Field{{Name: "x\ny", Type: arrow.StructOf(arrow.Field{Name: "\tz", Type: &arrow.Decimal128Type{Precision: 21}, Nullable: true}), Nullable: true}}, nil)
	require.Equal(t, "root\n |-- x\\ny: struct (nullable = true)\n |    |-- \\tz: decimal(21,0) (nullable = true)\n", SchemaString(s))
}

// Spark's three renderings of a type: simpleString (Name), catalogString
// and sql, as DataTypeSuite and the golden files show them.
func TestTypeStrings(t *testing.T) {
	nested := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "b c", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		arrow.Field{Name: "1a", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int16)},
		arrow.Field{Name: "12", Type: arrow.PrimitiveTypes.Int8},
	)
	for _, c := range []struct {
		dt                 arrow.DataType
		simple, cat, sqlTy string
	}{
		{arrow.PrimitiveTypes.Int64, "long", "bigint", "BIGINT"},
		{arrow.PrimitiveTypes.Int32, "integer", "int", "INT"},
		{arrow.Null, "void", "void", "VOID"},
		{&arrow.Decimal128Type{Precision: 10, Scale: 2}, "decimal(10,2)", "decimal(10,2)", "DECIMAL(10,2)"},
		{TimestampType, "timestamp", "timestamp", "TIMESTAMP"},
		{TimestampNTZType, "timestamp_ntz", "timestamp_ntz", "TIMESTAMP_NTZ"},
		{nested, "struct<a:long,`b c`:array<integer>,1a:map<string,short>,12:byte>",
			"struct<a:bigint,b c:array<int>,1a:map<string,smallint>,12:tinyint>",
			"STRUCT<a: BIGINT, `b c`: ARRAY<INT>, 1a: MAP<STRING, SMALLINT>, `12`: TINYINT>"},
	} {
		require.Equal(t, c.simple, Name(c.dt))
		require.Equal(t, c.cat, CatalogString(c.dt))
		require.Equal(t, c.sqlTy, SQL(c.dt))
	}
	require.Equal(t, "`a``b`", QuoteIfNeeded("a`b"))
	require.Equal(t, "``", QuoteIfNeeded(""))
}

func TestAssignable(t *testing.T) {
	yes := [][2]string{
		{"long", "long"}, {"integer", "long"}, {"short", "long"}, {"byte", "integer"}, {"long", "double"}, {"float", "double"},
		{"integer", "double"}, {"void", "long"}, {"boolean", "string"}, {"array<long>", "string"}, {"long", "decimal(20,0)"},
		{"integer", "decimal(10,0)"}, {"decimal(10,2)", "decimal(12,2)"}, {"decimal(20,0)", "double"}, {"timestamp", "timestamp_ntz"},
		{"array<integer>", "array<long>"}, {"struct<a:int>", "struct<a:bigint,b:string>"}, {"INT", "BIGINT"}, {"weird", "string"}, {"weird", "WEIRD"},
	}
	no := [][2]string{
		{"double", "long"}, {"long", "integer"}, {"long", "float"}, {"boolean", "long"}, {"string", "long"}, {"long", "decimal(19,0)"},
		{"decimal(12,2)", "decimal(10,2)"}, {"double", "decimal(38,0)"}, {"array<double>", "array<long>"}, {"struct<c:int>", "struct<a:int>"},
		{"long", "boolean"}, {"weird", "long"}, {"long", "weird"},
	}
	for _, c := range yes {
		require.True(t, AssignableNames(c[0], c[1]), "%s → %s", c[0], c[1])
	}
	for _, c := range no {
		require.False(t, AssignableNames(c[0], c[1]), "%s → %s", c[0], c[1])
	}
}

func TestParseTimestamp(t *testing.T) {
	want := time.Date(2024, 5, 1, 8, 0, 0, 123e6, time.UTC)
	for _, s := range []string{"2024-05-01T08:00:00.123Z", "2024-05-01T08:00:00.123", "2024-05-01T10:00:00.123+02:00",
		"2024-05-01T10:00:00.123+0200", "2024-05-01T10:00:00.123+02", "2024-05-01 08:00:00.123", "2024-05-01 10:00:00.123+02:00", " 2024-05-01T08:00:00.123Z "} {
		got, err := ParseTimestamp(s)
		require.NoError(t, err, s)
		require.Equal(t, want, got, s)
	}
	for s, w := range map[string]time.Time{
		"2024-05-01":        time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC),
		"2024-05-01T08:00":  time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC),
		"2024-05-01 08:00":  time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC),
		"2024-05-01T08:00Z": time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC),
	} {
		got, err := ParseTimestamp(s)
		require.NoError(t, err, s)
		require.Equal(t, w, got, s)
	}
	for _, s := range []string{"", "yesterday", "2024-13-01", "1714550400", "2024-05-01T25:00"} {
		_, err := ParseTimestamp(s)
		require.Error(t, err, s)
	}
	// ISO date-times only: no bare date, no space.
	for _, s := range []string{"2024-05-01", "2024-05-01 08:00:00"} {
		_, err := ParseISODateTime(s)
		require.Error(t, err, s)
	}
	_, err := ParseISODateTime("2024-05-01T08:00:00+0200")
	require.NoError(t, err)
}

func TestParseDecimal(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "-1", "9223372036854775808", "-92233720368547758070", strings.Repeat("9", 38), "-" + strings.Repeat("9", 38), "18446744073709551616"} {
		n, ok := ParseDecimal([]byte(s))
		require.True(t, ok, s)
		want, _ := new(big.Int).SetString(s, 10)
		require.Equal(t, want.String(), n.BigInt().String(), s)
	}
	for _, s := range []string{"", "-", "1.5", "1e3", "+1", strings.Repeat("9", 39), "12a"} {
		_, ok := ParseDecimal([]byte(s))
		require.False(t, ok, s)
	}
	require.Equal(t, 20, IntegerPrecision([]byte("-92233720368547758070")))
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-1", "92233720368547758070", strings.Repeat("9", 38), strings.Repeat("1", 39), "-", "1.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseDecimal([]byte(s))
		digits := strings.TrimPrefix(s, "-")
		valid := len(digits) > 0 && len(digits) <= MaxPrecision && strings.Trim(digits, "0123456789") == ""
		require.Equal(t, valid, ok, "%q", s)
		if !ok {
			return
		}
		want, _ := new(big.Int).SetString(s, 10)
		require.Equal(t, want.String(), n.BigInt().String(), "%q", s)
		require.True(t, n.FitsInPrecision(int32(max(1, IntegerPrecision([]byte(s))))), "%q", s)
	})
}

func TestAppendDecimal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		unscaled string
		scale    int32
		want     string
	}{
		{"1990", 2, "19.90"}, {"2000", 2, "20.00"}, {"0", 2, "0.00"}, {"-5", 2, "-0.05"},
		{"5", 3, "0.005"}, {"123", 3, "0.123"}, {"-1234", 3, "-1.234"}, {"0", 18, "0.000000000000000000"},
		{"42", 0, "42"}, {"-42", 0, "-42"}, {"7", -2, "700"},
	} {
		require.Equal(t, tc.want, string(AppendDecimal([]byte("x"), []byte(tc.unscaled), tc.scale))[1:], "%s scale %d", tc.unscaled, tc.scale)
	}
	// decimal128: the int64 fast path and the big.Int one agree at the edges.
	for _, tc := range []struct {
		n    decimal128.Num
		want string
	}{
		{decimal128.FromI64(math.MaxInt64), "92233720368547758.07"},
		{decimal128.FromI64(math.MinInt64), "-92233720368547758.08"},
		{decimal128.FromU64(math.MaxUint64), "184467440737095516.15"},
		{decimal128.FromU64(math.MaxUint64).Negate(), "-184467440737095516.15"},
		{decimal128.GetMaxValue(38).Negate(), "-" + strings.Repeat("9", 36) + ".99"},
	} {
		require.Equal(t, tc.want, string(AppendDecimal128(nil, tc.n, 2)))
	}
}

// TestWallClock checks the session-zone conversions against java.time's
// rules (ZonedDateTime.ofLocal): an overlap takes the earlier instant, a
// gap moves the wall-clock time forward by its length.
func TestWallClock(t *testing.T) {
	t.Parallel()
	la, err := time.LoadLocation("America/Los_Angeles")
	require.NoError(t, err)
	wall := func(s string) int64 {
		w, err := time.Parse("2006-01-02 15:04:05", s)
		require.NoError(t, err)
		return w.UnixMicro()
	}
	utc := func(us int64) string { return time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05") }
	for _, c := range []struct{ wall, instant string }{
		{"2016-03-11 20:54:00", "2016-03-12 04:54:00"}, // PST
		{"2016-07-01 12:00:00", "2016-07-01 19:00:00"}, // PDT
		{"2016-03-13 02:30:00", "2016-03-13 10:30:00"}, // the gap: 03:30 PDT
		{"2016-11-06 01:30:00", "2016-11-06 08:30:00"}, // the overlap: 01:30 PDT, the earlier
	} {
		got := FromWallMicros(wall(c.wall), la)
		require.Equal(t, c.instant, utc(got), c.wall)
		if c.wall != "2016-03-13 02:30:00" {
			require.Equal(t, c.wall, utc(WallMicros(got, la)), c.wall)
		}
	}
	require.Equal(t, int64(123), FromWallMicros(123, nil))
	require.Equal(t, int64(123), WallMicros(123, time.UTC))

	us, ok := ParseTimestampMicrosIn("2016-03-11 20:54:00.5", la)
	require.True(t, ok)
	require.Equal(t, "2016-03-12 04:54:00", utc(us))
	require.Equal(t, int64(500_000), us%1_000_000)
	// A zone in the text wins over the session's.
	us, ok = ParseTimestampMicrosIn("2016-03-11 20:54:00Z", la)
	require.True(t, ok)
	require.Equal(t, "2016-03-11 20:54:00", utc(us))
}
