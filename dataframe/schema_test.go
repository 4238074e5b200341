package dataframe_test

import (
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/sparktype"
)

func nf(name string, dt arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: dt, Nullable: true}
}

func TestSchemaStringNested(t *testing.T) {
	t.Parallel()
	s := arrow.NewSchema([]arrow.Field{
		nf("etag", arrow.BinaryTypes.String),
		nf("items", arrow.ListOf(arrow.StructOf(nf("id", arrow.BinaryTypes.String)))),
		nf("matrix", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64))),
		nf("pageInfo", arrow.StructOf(nf("resultsPerPage", arrow.PrimitiveTypes.Int64))),
		nf("m", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64)),
		{Name: "at", Type: sparktype.TimestampType, Nullable: false},
	}, nil)
	want := `root
 |-- etag: string (nullable = true)
 |-- items: array (nullable = true)
 |    |-- element: struct (containsNull = true)
 |    |    |-- id: string (nullable = true)
 |-- matrix: array (nullable = true)
 |    |-- element: array (containsNull = true)
 |    |    |-- element: long (containsNull = true)
 |-- pageInfo: struct (nullable = true)
 |    |-- resultsPerPage: long (nullable = true)
 |-- m: map (nullable = true)
 |    |-- key: string
 |    |-- value: double (valueContainsNull = true)
 |-- at: timestamp (nullable = false)
`
	require.Equal(t, want, dataframe.SchemaString(s))
	require.Equal(t, "root\n", dataframe.SchemaString(arrow.NewSchema(nil, nil)))
}

func TestSparkTypeRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, canonical string
	}{
		{"string", "string"},
		{"LONG", "long"},
		{"bigint", "long"},
		{"int", "integer"},
		{"integer", "integer"},
		{"smallint", "short"},
		{"tinyint", "byte"},
		{"double", "double"},
		{"float", "float"},
		{"boolean", "boolean"},
		{"timestamp", "timestamp"},
		{"timestamp_ntz", "timestamp_ntz"},
		{"date", "date"},
		{"binary", "binary"},
		{"varchar(10)", "string"},
		{"decimal(12, 2)", "decimal(12,2)"},
		{"decimal", "decimal(10,0)"},
		{"array<string>", "array<string>"},
		{"array < array<long> >", "array<array<long>>"},
		{"map<string,long>", "map<string,long>"},
		{"struct<a:long,b:array<string>>", "struct<a:long,b:array<string>>"},
		{"struct<a int, `b c`:string>", "struct<a:integer,`b c`:string>"},
		{"struct<>", "struct<>"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			dt, err := sparktype.ParseType(tt.in)
			require.NoError(t, err)
			require.Equal(t, tt.canonical, sparktype.Name(dt))
			again, err := sparktype.ParseType(sparktype.Name(dt))
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(dt, again), "%s vs %s", dt, again)
		})
	}
}

func TestParseSparkTypeErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "strin", "array<", "array<long", "map<string>", "struct<a:long", "decimal(50,2)", "long long", "struct<:long>"} {
		_, err := sparktype.ParseType(in)
		require.Error(t, err, in)
		require.Contains(t, err.Error(), `"`+in+`"`)
	}
}
