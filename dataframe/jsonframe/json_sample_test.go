package jsonframe

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
)

func TestSampleRows(t *testing.T) {
	in := []byte(strings.Join([]string{
		`{"a":1,"s":{"x":"u"}}`,
		`{"a":2,"s":null}`,
		`{"a":2.5,"s":{"x":"v"}}`,
		`{"a":"x","s":{"x":3}}`,
		`{"b":1}`,
		`{"a":92233720368547758070,"s":"","l":[1]}`,
		`{"a":""}`,
	}, "\r\n") + "\n")
	for _, sp := range []splitting{{workers: 1}, {workers: 4, minParallel: 1, chunkMin: 8}} {
		var stats ReadStats
		f, err := readJSONSplit([]docSpan{{data: in}}, true, Options{SampleRows: 2, Stats: &stats}, sp)
		require.NoError(t, err)
		require.Equal(t, "root\n |-- a: long (nullable = true)\n |-- s: struct (nullable = true)\n |    |-- x: string (nullable = true)\n", dataframe.SchemaString(f.Schema()))
		require.Equal(t, []string{
			`{"a":1,"s":{"x":"u"}}`,
			`{"a":2,"s":null}`,
			`{"a":null,"s":{"x":"v"}}`,
			`{"a":null,"s":{"x":"3"}}`,
			`{"a":null,"s":null}`,
			`{"a":null,"s":null}`,
			`{"a":null,"s":null}`,
		}, rowsJSON(t, f))
		f.Release()
		// 2.5, "x", the field b, the decimal and the field l; "" is null.
		require.Equal(t, int64(5), stats.Misfits, "%+v", sp)
		require.Equal(t, &Misfit{Field: "a", Type: "long", Value: "2.5", Offset: 46, Line: 3}, stats.First)

		_, err = readJSONSplit([]docSpan{{data: in}}, true, Options{SampleRows: 2, Strict: true}, sp)
		var me *MisfitError
		require.True(t, errors.As(err, &me), "%v", err)
		require.Equal(t, `dataframe: record on line 3 (byte offset 46): field "a": value 2.5 does not fit long inferred from the first 2 records (5 values did not fit)`, err.Error())
	}
}

func TestSampleRowsUnknownFieldStrict(t *testing.T) {
	in := []byte(`[{"a":1},{"a":2,"b":{"c":1}},{"a":3},{"a":4.5},{"a":5}]`)
	for _, sp := range []splitting{{workers: 1}, {workers: 4, minParallel: 1, chunkMin: 8}} {
		_, err := readJSONSplit([]docSpan{{data: in}}, false, Options{SampleRows: 1, Strict: true}, sp)
		require.EqualError(t, err, `dataframe: record at byte offset 20: field "b" is not in the sampled schema inferred from the first 1 records (2 values did not fit)`)
		var stats ReadStats
		f, err := readJSONSplit([]docSpan{{data: in}}, false, Options{SampleRows: 1, Stats: &stats}, sp)
		require.NoError(t, err)
		require.Equal(t, []string{`{"a":1}`, `{"a":2}`, `{"a":3}`, `{"a":null}`, `{"a":5}`}, rowsJSON(t, f))
		f.Release()
		require.Equal(t, int64(2), stats.Misfits)
	}
}

func TestSampleRowsCoversInput(t *testing.T) {
	in := []byte("{\"a\":1}\n{\"a\":2.5}\n")
	var stats ReadStats
	f, err := ReadNDJSON(in, Options{SampleRows: 10, Strict: true, Stats: &stats})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, "root\n |-- a: double (nullable = true)\n", dataframe.SchemaString(f.Schema()))
	require.Zero(t, stats.Misfits)
	require.Nil(t, stats.First)
}

func TestSampleRowsNulls(t *testing.T) {
	// A sample of only null rows says nothing: the whole input is read.
	in := []byte("null\n{\"a\":2.5}\n")
	f, err := ReadNDJSON(in, Options{SampleRows: 1, Strict: true})
	require.NoError(t, err)
	require.Equal(t, "root\n |-- a: double (nullable = true)\n", dataframe.SchemaString(f.Schema()))
	f.Release()
	// A column the sample saw only null is string (Spark's NullType), and
	// takes any later value as its text.
	in = []byte("{\"a\":null}\n{\"a\":2.5}\n")
	var stats ReadStats
	f, err = ReadNDJSON(in, Options{SampleRows: 1, Strict: true, Stats: &stats})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, "root\n |-- a: string (nullable = true)\n", dataframe.SchemaString(f.Schema()))
	require.Equal(t, []string{`{"a":null}`, `{"a":"2.5"}`}, rowsJSON(t, f))
	require.Zero(t, stats.Misfits)
}

func TestSampleRowsSyntaxErrorAfterSample(t *testing.T) {
	in := []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":\n")
	_, err := ReadNDJSON(in, Options{SampleRows: 1})
	var se *SyntaxError
	require.True(t, errors.As(err, &se), "%v", err)
	require.Equal(t, 3, se.Line)
}

func TestSampleRowsNegative(t *testing.T) {
	_, err := ReadNDJSON([]byte("{}"), Options{SampleRows: -1})
	require.EqualError(t, err, "dataframe: Options.SampleRows is -1, must be 0 (all rows) or more")
}
