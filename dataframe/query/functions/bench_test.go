package functions_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/sluicedata/sluice/dataframe/query/fn"
)

const benchRows = 1_000_000

// benchColumn is a string column of benchRows values made by gen.
func benchColumn(gen func(i int) string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < benchRows; i++ {
		b.Append(gen(i))
	}
	return b.NewArray()
}

// benchLiteral is a literal argument broadcast to benchRows rows.
func benchLiteral(v any) (fn.Arg, arrow.Array) {
	switch x := v.(type) {
	case string:
		return fn.Arg{Type: str, Const: true, Value: x}, benchColumn(func(int) string { return x })
	case int32:
		b := array.NewInt32Builder(memory.DefaultAllocator)
		defer b.Release()
		for i := 0; i < benchRows; i++ {
			b.Append(x)
		}
		return fn.Arg{Type: i32, Const: true, Value: x}, b.NewArray()
	}
	panic(fmt.Sprintf("benchLiteral %T", v))
}

// benchCall evaluates name over a 1M-row string column plus literals and
// reports rows/s.
func benchCall(b *testing.B, name string, col arrow.Array, lits ...any) {
	s, ok := fn.Lookup(name)
	if !ok {
		b.Fatalf("no function %s", name)
	}
	args := []fn.Arg{{Type: col.DataType()}}
	arrs := []arrow.Array{col}
	if name == "concat_ws" { // the separator comes first
		args, arrs = nil, nil
	}
	for k, l := range lits {
		a, arr := benchLiteral(l)
		defer arr.Release()
		args = append(args, a)
		arrs = append(arrs, arr)
		if name == "concat_ws" && k == 0 {
			args = append(args, fn.Arg{Type: col.DataType()})
			arrs = append(arrs, col)
		}
	}
	bound, err := s.Bind(args)
	if err != nil {
		b.Fatal(err)
	}
	// The executor casts arguments as the function asks; so does the bench.
	for i, t := range bound.Args {
		if t != nil && !arrow.TypeEqual(t, arrs[i].DataType()) {
			c, err := fn.Cast(memory.DefaultAllocator, arrs[i], t)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Release()
			arrs[i] = c
		}
	}
	ctx := &fn.Ctx{Mem: memory.DefaultAllocator, Now: time.Now()}
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := bound.Eval(ctx, arrs, benchRows)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.StopTimer()
	rows := float64(benchRows) * float64(b.N)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
	// CPU time is steadier than wall time on a shared machine.
	b.ReportMetric(rows/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkUpper(b *testing.B) {
	col := benchColumn(func(i int) string { return fmt.Sprintf("channel-%d-name", i%1000) })
	defer col.Release()
	benchCall(b, "upper", col)
}

func BenchmarkSubstring(b *testing.B) {
	col := benchColumn(func(i int) string { return fmt.Sprintf("UCxyz%07d-video-title", i) })
	defer col.Release()
	benchCall(b, "substring", col, int32(3), int32(8))
}

func BenchmarkDateFormat(b *testing.B) {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tb := array.NewTimestampBuilder(memory.DefaultAllocator, ts)
	defer tb.Release()
	for i := 0; i < benchRows; i++ {
		tb.Append(arrow.Timestamp(base.Add(time.Duration(i) * time.Second).UnixMicro()))
	}
	col := tb.NewArray()
	defer col.Release()
	benchCall(b, "date_format", col, "yyyy-MM-dd HH:mm:ss")
}

func BenchmarkGetJSONObject(b *testing.B) {
	col := benchColumn(func(i int) string {
		return fmt.Sprintf(`{"id":%d,"user":{"name":"user-%d","tags":["a","b"]},"score":%d.5}`, i, i%1000, i%97)
	})
	defer col.Release()
	benchCall(b, "get_json_object", col, "$.user.name")
}

func BenchmarkConcatWs(b *testing.B) {
	col := benchColumn(func(i int) string { return fmt.Sprintf("part-%d", i%1000) })
	defer col.Release()
	benchCall(b, "concat_ws", col, "-", "x", "y")
}

func BenchmarkLower(b *testing.B) {
	col := benchColumn(func(i int) string { return fmt.Sprintf("Channel-%d-NAME", i%1000) })
	defer col.Release()
	benchCall(b, "lower", col)
}

func BenchmarkSubstr(b *testing.B) {
	col := benchColumn(func(i int) string { return fmt.Sprintf("UCxyz%07d-video-title", i) })
	defer col.Release()
	benchCall(b, "substr", col, int32(3), int32(8))
}

func BenchmarkRegexpReplace(b *testing.B) {
	col := benchColumn(func(i int) string { return fmt.Sprintf("order-%d-item-%d", i, i%97) })
	defer col.Release()
	benchCall(b, "regexp_replace", col, `(\d+)`, "#")
}

func BenchmarkToTimestamp(b *testing.B) {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	col := benchColumn(func(i int) string { return base.Add(time.Duration(i) * time.Second).Format("2006-01-02 15:04:05") })
	defer col.Release()
	benchCall(b, "to_timestamp", col, "yyyy-MM-dd HH:mm:ss")
}

func BenchmarkCastStringToLong(b *testing.B) {
	col := benchColumn(func(i int) string { return fmt.Sprint(i * 7919) })
	defer col.Release()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := fn.Cast(memory.DefaultAllocator, col, i64)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
