package jsonframe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/dataframe"
)

// sparkCase is one of Apache Spark's JSON inference test inputs (TestJsonData,
// JsonSuite, JsonInferSchemaSuite) or a rule of docs/inference.md, with the
// schema Spark's printSchema shows for it.
type sparkCase struct {
	name    string
	records []string // one JSON record each; newlines inside become spaces, as JsonSuite does
	sep     string   // record separator; "\n" when empty
	schema  string
}

func line(fields ...string) string {
	return strings.Join(fields, "\n") + "\n"
}

var sparkCases = []sparkCase{
	{
		name: "primitiveFieldAndType",
		records: []string{`{"string":"this is a simple string.",
          "integer":10,
          "long":21474836470,
          "bigInteger":92233720368547758070,
          "double":1.7976931348623157,
          "boolean":true,
          "null":null
      }`},
		schema: line("root",
			" |-- bigInteger: decimal(20,0) (nullable = true)",
			" |-- boolean: boolean (nullable = true)",
			" |-- double: double (nullable = true)",
			" |-- integer: long (nullable = true)",
			" |-- long: long (nullable = true)",
			" |-- null: string (nullable = true)",
			" |-- string: string (nullable = true)"),
	},
	{
		name: "primitiveFieldValueTypeConflict",
		records: []string{
			`{"num_num_1":11, "num_num_2":null, "num_num_3": 1.1,
          "num_bool":true, "num_str":13.1, "str_bool":"str1"}`,
			`{"num_num_1":null, "num_num_2":21474836470.9, "num_num_3": null,
          "num_bool":12, "num_str":null, "str_bool":true}`,
			`{"num_num_1":21474836470, "num_num_2":92233720368547758070, "num_num_3": 100,
          "num_bool":false, "num_str":"str1", "str_bool":false}`,
			`{"num_num_1":21474836570, "num_num_2":1.1, "num_num_3": 21474836470,
          "num_bool":null, "num_str":92233720368547758070, "str_bool":null}`,
		},
		schema: line("root",
			" |-- num_bool: string (nullable = true)",
			" |-- num_num_1: long (nullable = true)",
			" |-- num_num_2: double (nullable = true)",
			" |-- num_num_3: double (nullable = true)",
			" |-- num_str: string (nullable = true)",
			" |-- str_bool: string (nullable = true)"),
	},
	{
		name: "jsonNullStruct",
		records: []string{
			`{"nullstr":"","ip":"27.31.100.29","headers":{"Host":"1.abc.com","Charset":"UTF-8"}}`,
			`{"nullstr":"","ip":"27.31.100.29","headers":{}}`,
			`{"nullstr":"","ip":"27.31.100.29","headers":""}`,
			`{"nullstr":null,"ip":"27.31.100.29","headers":null}`,
		},
		schema: line("root",
			" |-- headers: struct (nullable = true)",
			" |    |-- Charset: string (nullable = true)",
			" |    |-- Host: string (nullable = true)",
			" |-- ip: string (nullable = true)",
			" |-- nullstr: string (nullable = true)"),
	},
	{
		name: "complexFieldValueTypeConflict",
		records: []string{
			`{"num_struct":11, "str_array":[1, 2, 3],
          "array":[], "struct_array":[], "struct": {}}`,
			`{"num_struct":{"field":false}, "str_array":null,
          "array":null, "struct_array":{}, "struct": null}`,
			`{"num_struct":null, "str_array":"str",
          "array":[4, 5, 6], "struct_array":[7, 8, 9], "struct": {"field":null}}`,
			`{"num_struct":{}, "str_array":["str1", "str2", 33],
          "array":[7], "struct_array":{"field": true}, "struct": {"field": "str"}}`,
		},
		schema: line("root",
			" |-- array: array (nullable = true)",
			" |    |-- element: long (containsNull = true)",
			" |-- num_struct: string (nullable = true)",
			" |-- str_array: string (nullable = true)",
			" |-- struct: struct (nullable = true)",
			" |    |-- field: string (nullable = true)",
			" |-- struct_array: string (nullable = true)"),
	},
	{
		name: "arrayElementTypeConflict",
		records: []string{
			`{"array1": [1, 1.1, true, null, [], {}, [2,3,4], {"field":"str"}],
          "array2": [{"field":214748364700}, {"field":1}]}`,
			`{"array3": [{"field":"str"}, {"field":1}]}`,
			`{"array3": [1, 2, 3]}`,
		},
		schema: line("root",
			" |-- array1: array (nullable = true)",
			" |    |-- element: string (containsNull = true)",
			" |-- array2: array (nullable = true)",
			" |    |-- element: struct (containsNull = true)",
			" |    |    |-- field: long (nullable = true)",
			" |-- array3: array (nullable = true)",
			" |    |-- element: string (containsNull = true)"),
	},
	{
		name:    "missingFields",
		records: []string{`{"a":true}`, `{"b":21474836470}`, `{"c":[33, 44]}`, `{"d":{"field":true}}`, `{"e":"str"}`},
		schema: line("root",
			" |-- a: boolean (nullable = true)",
			" |-- b: long (nullable = true)",
			" |-- c: array (nullable = true)",
			" |    |-- element: long (containsNull = true)",
			" |-- d: struct (nullable = true)",
			" |    |-- field: boolean (nullable = true)",
			" |-- e: string (nullable = true)"),
	},
	{
		name: "complexFieldAndType1",
		records: []string{`{"struct":{"field1": true, "field2": 92233720368547758070},
          "structWithArrayFields":{"field1":[4, 5, 6], "field2":["str1", "str2"]},
          "arrayOfString":["str1", "str2"],
          "arrayOfInteger":[1, 2147483647, -2147483648],
          "arrayOfLong":[21474836470, 9223372036854775807, -9223372036854775808],
          "arrayOfBigInteger":[922337203685477580700, -922337203685477580800],
          "arrayOfDouble":[1.2, 1.7976931348623157, 4.9E-324, 2.2250738585072014E-308],
          "arrayOfBoolean":[true, false, true],
          "arrayOfNull":[null, null, null, null],
          "arrayOfStruct":[{"field1": true, "field2": "str1"}, {"field1": false}, {"field3": null}],
          "arrayOfArray1":[[1, 2, 3], ["str1", "str2"]],
          "arrayOfArray2":[[1, 2, 3], [1.1, 2.1, 3.1]]
         }`},
		schema: line("root",
			" |-- arrayOfArray1: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: string (containsNull = true)",
			" |-- arrayOfArray2: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: double (containsNull = true)",
			" |-- arrayOfBigInteger: array (nullable = true)",
			" |    |-- element: decimal(21,0) (containsNull = true)",
			" |-- arrayOfBoolean: array (nullable = true)",
			" |    |-- element: boolean (containsNull = true)",
			" |-- arrayOfDouble: array (nullable = true)",
			" |    |-- element: double (containsNull = true)",
			" |-- arrayOfInteger: array (nullable = true)",
			" |    |-- element: long (containsNull = true)",
			" |-- arrayOfLong: array (nullable = true)",
			" |    |-- element: long (containsNull = true)",
			" |-- arrayOfNull: array (nullable = true)",
			" |    |-- element: string (containsNull = true)",
			" |-- arrayOfString: array (nullable = true)",
			" |    |-- element: string (containsNull = true)",
			" |-- arrayOfStruct: array (nullable = true)",
			" |    |-- element: struct (containsNull = true)",
			" |    |    |-- field1: boolean (nullable = true)",
			" |    |    |-- field2: string (nullable = true)",
			" |    |    |-- field3: string (nullable = true)",
			" |-- struct: struct (nullable = true)",
			" |    |-- field1: boolean (nullable = true)",
			" |    |-- field2: decimal(20,0) (nullable = true)",
			" |-- structWithArrayFields: struct (nullable = true)",
			" |    |-- field1: array (nullable = true)",
			" |    |    |-- element: long (containsNull = true)",
			" |    |-- field2: array (nullable = true)",
			" |    |    |-- element: string (containsNull = true)"),
	},
	{
		name: "complexFieldAndType2",
		records: []string{`{"arrayOfStruct":[{"field1": true, "field2": "str1"}, {"field1": false}, {"field3": null}],
          "complexArrayOfStruct": [
          {
            "field1": [
            {
              "inner1": "str1"
            },
            {
              "inner2": ["str2", "str22"]
            }],
            "field2": [[1, 2], [3, 4]]
          },
          {
            "field1": [
            {
              "inner2": ["str3", "str33"]
            },
            {
              "inner1": "str4"
            }],
            "field2": [[5, 6], [7, 8]]
          }],
          "arrayOfArray1": [
          [
            [5]
          ],
          [
            [6, 7],
            [8]
          ]],
          "arrayOfArray2": [
          [
            [
              {
                "inner1": "str1"
              }
            ]
          ],
          [
            [],
            [
              {"inner2": ["str3", "str33"]},
              {"inner2": ["str4"], "inner1": "str11"}
            ]
          ],
          [
            [
              {"inner3": [[{"inner4": 2}]]}
            ]
          ]]
      }`},
		schema: line("root",
			" |-- arrayOfArray1: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: array (containsNull = true)",
			" |    |    |    |-- element: long (containsNull = true)",
			" |-- arrayOfArray2: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: array (containsNull = true)",
			" |    |    |    |-- element: struct (containsNull = true)",
			" |    |    |    |    |-- inner1: string (nullable = true)",
			" |    |    |    |    |-- inner2: array (nullable = true)",
			" |    |    |    |    |    |-- element: string (containsNull = true)",
			" |    |    |    |    |-- inner3: array (nullable = true)",
			" |    |    |    |    |    |-- element: array (containsNull = true)",
			" |    |    |    |    |    |    |-- element: struct (containsNull = true)",
			" |    |    |    |    |    |    |    |-- inner4: long (nullable = true)",
			" |-- arrayOfStruct: array (nullable = true)",
			" |    |-- element: struct (containsNull = true)",
			" |    |    |-- field1: boolean (nullable = true)",
			" |    |    |-- field2: string (nullable = true)",
			" |    |    |-- field3: string (nullable = true)",
			" |-- complexArrayOfStruct: array (nullable = true)",
			" |    |-- element: struct (containsNull = true)",
			" |    |    |-- field1: array (nullable = true)",
			" |    |    |    |-- element: struct (containsNull = true)",
			" |    |    |    |    |-- inner1: string (nullable = true)",
			" |    |    |    |    |-- inner2: array (nullable = true)",
			" |    |    |    |    |    |-- element: string (containsNull = true)",
			" |    |    |-- field2: array (nullable = true)",
			" |    |    |    |-- element: array (containsNull = true)",
			" |    |    |    |    |-- element: long (containsNull = true)"),
	},
	{
		name:    "mapType1 (objects are structs when no schema is given)",
		records: []string{`{"map": {"a": 1}}`, `{"map": {"b": 2}}`, `{"map": {"c": 3}}`, `{"map": {"c": 1, "d": 4}}`, `{"map": {"e": null}}`},
		schema: line("root",
			" |-- map: struct (nullable = true)",
			" |    |-- a: long (nullable = true)",
			" |    |-- b: long (nullable = true)",
			" |    |-- c: long (nullable = true)",
			" |    |-- d: long (nullable = true)",
			" |    |-- e: string (nullable = true)"),
	},
	{
		name: "mapType2",
		records: []string{
			`{"map": {"a": {"field1": [1, 2, 3, null]}}}`,
			`{"map": {"b": {"field2": 2}}}`,
			`{"map": {"c": {"field1": [], "field2": 4}}}`,
			`{"map": {"c": {"field2": 3}, "d": {"field1": [null]}}}`,
			`{"map": {"e": null}}`,
			`{"map": {"f": {"field1": null}}}`,
		},
		schema: line("root",
			" |-- map: struct (nullable = true)",
			" |    |-- a: struct (nullable = true)",
			" |    |    |-- field1: array (nullable = true)",
			" |    |    |    |-- element: long (containsNull = true)",
			" |    |-- b: struct (nullable = true)",
			" |    |    |-- field2: long (nullable = true)",
			" |    |-- c: struct (nullable = true)",
			" |    |    |-- field1: array (nullable = true)",
			" |    |    |    |-- element: string (containsNull = true)",
			" |    |    |-- field2: long (nullable = true)",
			" |    |-- d: struct (nullable = true)",
			" |    |    |-- field1: array (nullable = true)",
			" |    |    |    |-- element: string (containsNull = true)",
			" |    |-- e: string (nullable = true)",
			" |    |-- f: struct (nullable = true)",
			" |    |    |-- field1: string (nullable = true)"),
	},
	{
		name: "nullsInArrays",
		records: []string{
			`{"field1":[[null], [[["Test"]]]]}`,
			`{"field2":[null, [{"Test":1}]]}`,
			`{"field3":[[null], [{"Test":"2"}]]}`,
			`{"field4":[[null, [1,2,3]]]}`,
		},
		schema: line("root",
			" |-- field1: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: array (containsNull = true)",
			" |    |    |    |-- element: array (containsNull = true)",
			" |    |    |    |    |-- element: string (containsNull = true)",
			" |-- field2: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: struct (containsNull = true)",
			" |    |    |    |-- Test: long (nullable = true)",
			" |-- field3: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: struct (containsNull = true)",
			" |    |    |    |-- Test: string (nullable = true)",
			" |-- field4: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: array (containsNull = true)",
			" |    |    |    |-- element: long (containsNull = true)"),
	},
	{
		name:    "jsonArray (top-level arrays are rows)",
		records: []string{`[{"a":"str_a_1"}]`, `[{"a":"str_a_2"}, {"b":"str_b_3"}]`, `{"b":"str_b_4", "a":"str_a_4", "c":"str_c_4"}`, `[]`},
		schema: line("root",
			" |-- a: string (nullable = true)",
			" |-- b: string (nullable = true)",
			" |-- c: string (nullable = true)"),
	},
	{
		name:    "timestampAsLong",
		records: []string{`{"ts":1451732645}`},
		schema:  line("root", " |-- ts: long (nullable = true)"),
	},
	{
		name:    "arrayAndStructRecords (struct and array conflict is string)",
		records: []string{`{"a": {"b": 1}}`, `{"a": []}`},
		schema:  line("root", " |-- a: string (nullable = true)"),
	},
	{
		name:    "floatingValueRecords (doubles without prefersDecimal)",
		records: []string{`{"a": 0.` + strings.Repeat("0", 38) + `1, "b": 0.01}`},
		schema: line("root",
			" |-- a: double (nullable = true)",
			" |-- b: double (nullable = true)"),
	},
	{
		name:    "bigIntegerRecords (39 digits is double, 20 digits decimal)",
		records: []string{`{"a": 1` + strings.Repeat("0", 38) + `, "b": 92233720368547758070}`},
		schema: line("root",
			" |-- a: double (nullable = true)",
			" |-- b: decimal(20,0) (nullable = true)"),
	},
	{
		name:    "bigIntegerRecords with floatingValueRecords",
		records: []string{`{"a": 0.` + strings.Repeat("0", 38) + `1, "b": 0.01}`, `{"a": 1` + strings.Repeat("0", 38) + `, "b": 92233720368547758070}`},
		schema: line("root",
			" |-- a: double (nullable = true)",
			" |-- b: double (nullable = true)"),
	},
	{
		name:    "datesRecords (timestamps are not inferred by default)",
		records: []string{`{"date": "26/08/2015 18:00"}`, `{"date": "27/10/2014 18:30"}`, `{"date": "28/01/2016 20:00"}`},
		schema:  line("root", " |-- date: string (nullable = true)"),
	},
	{
		name:    "singleRow",
		records: []string{`{"a":123}`},
		schema:  line("root", " |-- a: long (nullable = true)"),
	},
	{
		name:    "sampledTestData (longs and doubles widen to double)",
		records: sampledTestData(),
		schema:  line("root", " |-- f1: double (nullable = true)"),
	},
	{
		name:    "empty string then long is long",
		records: []string{`{"a":""}`, `{"a":5}`},
		schema:  line("root", " |-- a: long (nullable = true)"),
	},
	{
		name:    "long then empty string is long",
		records: []string{`{"a":5}`, `{"a":""}`},
		schema:  line("root", " |-- a: long (nullable = true)"),
	},
	{
		name:    "only empty strings is string",
		records: []string{`{"a":""}`, `{"a":null}`},
		schema:  line("root", " |-- a: string (nullable = true)"),
	},
	{
		name:    "empty string and struct is struct",
		records: []string{`{"a":""}`, `{"a":{"x":true}}`},
		schema: line("root",
			" |-- a: struct (nullable = true)",
			" |    |-- x: boolean (nullable = true)"),
	},
	{
		name:    "empty strings in arrays are NullType",
		records: []string{`{"a":["",""],"b":[""]}`, `{"b":[1.5]}`},
		schema: line("root",
			" |-- a: array (nullable = true)",
			" |    |-- element: string (containsNull = true)",
			" |-- b: array (nullable = true)",
			" |    |-- element: double (containsNull = true)"),
	},
	{
		name:    "decimal and long widen to decimal(20,0) at least",
		records: []string{`{"a":9223372036854775808,"b":123456789012345678901234}`, `{"a":1,"b":-5}`},
		schema: line("root",
			" |-- a: decimal(20,0) (nullable = true)",
			" |-- b: decimal(24,0) (nullable = true)"),
	},
	{
		name:    "decimals widen to the wider, with double to double, with string to string",
		records: []string{`{"a":12345678901234567890123,"b":12345678901234567890123,"c":12345678901234567890123}`, `{"a":-123456789012345678901234567,"b":1.5,"c":"x"}`},
		schema: line("root",
			" |-- a: decimal(27,0) (nullable = true)",
			" |-- b: double (nullable = true)",
			" |-- c: string (nullable = true)"),
	},
	{
		name:    "38 digits is decimal(38,0), 39 digits double",
		records: []string{`{"a":-` + strings.Repeat("9", 38) + `,"b":` + strings.Repeat("9", 39) + `}`},
		schema: line("root",
			" |-- a: decimal(38,0) (nullable = true)",
			" |-- b: double (nullable = true)"),
	},
	{
		name:    "boolean and long is string",
		records: []string{`{"a":true}`, `{"a":1}`},
		schema:  line("root", " |-- a: string (nullable = true)"),
	},
	{
		name:    "empty structs are dropped (SPARK-8093)",
		records: []string{`{"a": {}, "x": 1}`, `{"a": {"b": {}}}`, `{"b": [{"c": {}}]}`},
		schema:  line("root", " |-- x: long (nullable = true)"),
	},
	{
		name:    "empty arrays are array<string>",
		records: []string{`{"a":[],"b":[[]]}`},
		schema: line("root",
			" |-- a: array (nullable = true)",
			" |    |-- element: string (containsNull = true)",
			" |-- b: array (nullable = true)",
			" |    |-- element: array (containsNull = true)",
			" |    |    |-- element: string (containsNull = true)"),
	},
	{
		name:    "fields with an empty name are dropped",
		records: []string{`{"":1,"a":{"":2,"b":3}}`},
		schema: line("root",
			" |-- a: struct (nullable = true)",
			" |    |-- b: long (nullable = true)"),
	},
	{
		name:    "field order: uppercase before lowercase, byte-wise within ASCII",
		records: []string{`{"b":1,"B":2,"a":3,"_":4,"A1":5,"a0":6}`},
		schema: line("root",
			" |-- A1: long (nullable = true)",
			" |-- B: long (nullable = true)",
			" |-- _: long (nullable = true)",
			" |-- a: long (nullable = true)",
			" |-- a0: long (nullable = true)",
			" |-- b: long (nullable = true)"),
	},
	{
		name:    "field order: UTF-16 code units (a surrogate pair sorts before U+FF61)",
		records: []string{`{"\uff61":1,"\ud83d\ude00":2,"é":3,"z":4}`},
		schema: line("root",
			" |-- z: long (nullable = true)",
			" |-- é: long (nullable = true)",
			" |-- \U0001F600: long (nullable = true)",
			" |-- \uff61: long (nullable = true)"),
	},
	{
		name:    "printSchema escapes control characters in names",
		records: []string{`{"a\nb":1,"c\td":2,"e\rf":3,"g\fh":4,"i\bj":5,"k\u000bl":6,"m\u0007n":7,"o\u0001p":8}`},
		schema: line("root",
			` |-- a\nb: long (nullable = true)`,
			` |-- c\td: long (nullable = true)`,
			` |-- e\rf: long (nullable = true)`,
			` |-- g\fh: long (nullable = true)`,
			` |-- i\bj: long (nullable = true)`,
			` |-- k\vl: long (nullable = true)`,
			` |-- m\an: long (nullable = true)`,
			" |-- o\x01p: long (nullable = true)"),
	},
	{
		name:    "a lone CR separates records",
		records: []string{`{"a":1}`, `{"a":2.5}`, `{"b":true}`, ``, `{"c":"x"}`},
		sep:     "\r",
		schema: line("root",
			" |-- a: double (nullable = true)",
			" |-- b: boolean (nullable = true)",
			" |-- c: string (nullable = true)"),
	},
	{
		name:    "CRLF separates records",
		records: []string{`{"a":1}`, `{"b":[1]}`, `{"a":"s"}`},
		sep:     "\r\n",
		schema: line("root",
			" |-- a: string (nullable = true)",
			" |-- b: array (nullable = true)",
			" |    |-- element: long (containsNull = true)"),
	},
}

// sampledTestData is Spark's TestJsonData.sampledTestData: 100 records of
// f1, longs at 8 indices and doubles elsewhere.
func sampledTestData() []string {
	longs := map[int]bool{3: true, 18: true, 20: true, 24: true, 50: true, 60: true, 87: true, 99: true}
	var out []string
	for i := 0; i < 100; i++ {
		if longs[i] {
			out = append(out, `{"f1":`+itoa(i)+`}`)
		} else {
			out = append(out, `{"f1":`+itoa(i)+`.1}`)
		}
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func sparkInput(c sparkCase) []byte {
	sep := c.sep
	if sep == "" {
		sep = "\n"
	}
	recs := make([]string, len(c.records))
	for i, r := range c.records {
		recs[i] = strings.ReplaceAll(r, "\n", " ")
	}
	return []byte(strings.Join(recs, sep) + sep)
}

// TestSparkInference runs Spark's own JSON test data through the JSON-lines
// reader, on one goroutine and split into many parts, through both the
// fused and the two-pass path, and compares the printSchema text.
func TestSparkInference(t *testing.T) {
	require.GreaterOrEqual(t, len(sparkCases), 33)
	for _, c := range sparkCases {
		t.Run(c.name, func(t *testing.T) {
			in := sparkInput(c)
			for _, sp := range []splitting{
				{workers: 1},
				{workers: 1, twoPass: true},
				{workers: 4, minParallel: 1, chunkMin: 8},
				{workers: 4, minParallel: 1, chunkMin: 8, twoPass: true},
			} {
				f, err := readJSONSplit([]docSpan{{data: in}}, true, Options{}, sp)
				require.NoError(t, err, "%+v", sp)
				require.Equal(t, c.schema, dataframe.SchemaString(f.Schema()), "%+v", sp)
				f.Release()
			}
			// The streaming file reader (sluice convert) in small blocks.
			path := filepath.Join(t.TempDir(), "in.ndjson")
			require.NoError(t, os.WriteFile(path, in, 0o644))
			for _, block := range []int{64, 1 << 20} {
				s, err := OpenNDJSON(context.Background(), path, Options{BlockBytes: block})
				require.NoError(t, err)
				f, err := dataframe.Collect(s)
				s.Release()
				require.NoError(t, err)
				require.Equal(t, c.schema, dataframe.SchemaString(f.Schema()), "block %d", block)
				f.Release()
			}
		})
	}
}

// TestSparkInferenceValues checks the values Spark's JsonSuite expects for
// the inputs whose types changed: exact decimals, empty strings as nulls
// outside string columns and kept inside them, widened text.
func TestSparkInferenceValues(t *testing.T) {
	cases := []struct {
		name string
		in   string
		rows []string
	}{
		{"decimal values are exact", `{"a":92233720368547758070,"b":[922337203685477580700,-922337203685477580800,1]}`,
			[]string{`{"a":92233720368547758070,"b":[922337203685477580700,-922337203685477580800,1]}`}},
		{"empty string is null in a long column", "{\"a\":\"\"}\n{\"a\":5}\n",
			[]string{`{"a":null}`, `{"a":5}`}},
		{"empty string stays in a string column", "{\"a\":\"\"}\n{\"a\":\"x\"}\n",
			[]string{`{"a":""}`, `{"a":"x"}`}},
		{"empty string is null in a struct column", `{"h":{"x":1}}` + "\n" + `{"h":""}` + "\n",
			[]string{`{"h":{"x":1}}`, `{"h":null}`}},
		{"a long in a decimal column", `{"a":1}` + "\n" + `{"a":-92233720368547758070}` + "\n",
			[]string{`{"a":1}`, `{"a":-92233720368547758070}`}},
		{"a decimal in a double column", `{"a":1.5}` + "\n" + `{"a":92233720368547758070}` + "\n",
			[]string{`{"a":1.5}`, `{"a":92233720368547760000.0}`}},
		{"widened to string keeps JSON text", `{"a":[1,"x",{"b":true}]}` + "\n",
			[]string{`{"a":["1","x","{\"b\":true}"]}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sp := range []splitting{{workers: 1}, {workers: 1, twoPass: true}} {
				f, err := readJSONSplit([]docSpan{{data: []byte(c.in)}}, true, Options{}, sp)
				require.NoError(t, err)
				require.Equal(t, c.rows, rowsJSON(t, f), "%+v", sp)
				f.Release()
			}
		})
	}
}

// sparkModeCases are Spark's malformed-record test data, read in
// PERMISSIVE mode (Spark's default; Sluice's default fails instead).
var sparkModeCases = []struct {
	name    string
	records []string
	schema  string
	rows    []string
	dropped []string // rows in DROPMALFORMED mode
}{
	{
		name:    "corruptRecords",
		records: []string{`{`, ``, `{"a":1, b:2}`, `{"a":{, b:3}`, `{"b":"str_b_4", "a":"str_a_4", "c":"str_c_4"}`, `]`},
		schema: line("root",
			" |-- _corrupt_record: string (nullable = true)",
			" |-- a: string (nullable = true)",
			" |-- b: string (nullable = true)",
			" |-- c: string (nullable = true)"),
		rows: []string{
			`{"_corrupt_record":"{","a":null,"b":null,"c":null}`,
			`{"_corrupt_record":"{\"a\":1, b:2}","a":null,"b":null,"c":null}`,
			`{"_corrupt_record":"{\"a\":{, b:3}","a":null,"b":null,"c":null}`,
			`{"_corrupt_record":null,"a":"str_a_4","b":"str_b_4","c":"str_c_4"}`,
			`{"_corrupt_record":"]","a":null,"b":null,"c":null}`,
		},
		dropped: []string{`{"a":"str_a_4","b":"str_b_4","c":"str_c_4"}`},
	},
	{
		name:    "additionalCorruptRecords (rows that are not objects are malformed)",
		records: []string{`{"dummy":"test"}`, `[1,2,3]`, `":"test", "a":1}`, `42`, `     ","ian":"test"}`},
		schema: line("root",
			" |-- _corrupt_record: string (nullable = true)",
			" |-- dummy: string (nullable = true)"),
		rows: []string{
			`{"_corrupt_record":null,"dummy":"test"}`,
			`{"_corrupt_record":"[1,2,3]","dummy":null}`,
			`{"_corrupt_record":"\":\"test\", \"a\":1}","dummy":null}`,
			`{"_corrupt_record":"42","dummy":null}`,
			`{"_corrupt_record":"     \",\"ian\":\"test\"}","dummy":null}`,
		},
		dropped: []string{`{"dummy":"test"}`},
	},
	{
		name:    "emptyRecords",
		records: []string{`{`, ``, `{"a": {}}`, `{"a": {"b": {}}}`, `{"b": [{"c": {}}]}`, `]`},
		schema:  line("root", " |-- _corrupt_record: string (nullable = true)"),
		rows: []string{
			`{"_corrupt_record":"{"}`, `{"_corrupt_record":null}`, `{"_corrupt_record":null}`, `{"_corrupt_record":null}`, `{"_corrupt_record":"]"}`,
		},
		dropped: []string{`{}`, `{}`, `{}`},
	},
	{
		name:    "jsonArray with malformed lines",
		records: []string{`[{"a":"str_a_1"}]`, `[{"a":"str_a_2"}, {"b":"str_b_3"}]`, `[`, `[]`},
		schema: line("root",
			" |-- _corrupt_record: string (nullable = true)",
			" |-- a: string (nullable = true)",
			" |-- b: string (nullable = true)"),
		rows: []string{
			`{"_corrupt_record":null,"a":"str_a_1","b":null}`,
			`{"_corrupt_record":null,"a":"str_a_2","b":null}`,
			`{"_corrupt_record":null,"a":null,"b":"str_b_3"}`,
			`{"_corrupt_record":"[","a":null,"b":null}`,
		},
		dropped: []string{`{"a":"str_a_1","b":null}`, `{"a":"str_a_2","b":null}`, `{"a":null,"b":"str_b_3"}`},
	},
}

func TestSparkMalformedModes(t *testing.T) {
	for _, c := range sparkModeCases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(strings.Join(c.records, "\n") + "\n")
			for _, sp := range []splitting{{workers: 1}, {workers: 4, minParallel: 1, chunkMin: 8}} {
				var stats ReadStats
				f, err := readJSONSplit([]docSpan{{data: in}}, true, Options{Mode: "permissive", Stats: &stats}, sp)
				require.NoError(t, err)
				require.Equal(t, c.schema, dataframe.SchemaString(f.Schema()))
				require.Equal(t, c.rows, rowsJSON(t, f))
				f.Release()
				require.Positive(t, stats.Malformed)

				f, err = readJSONSplit([]docSpan{{data: in}}, true, Options{Mode: ModeDropMalformed}, sp)
				require.NoError(t, err)
				require.Equal(t, c.dropped, rowsJSON(t, f))
				f.Release()

				_, err = readJSONSplit([]docSpan{{data: in}}, true, Options{Mode: ModeFailFast}, sp)
				require.Error(t, err)
			}
		})
	}
}

func TestModeOptions(t *testing.T) {
	_, err := ReadNDJSON([]byte("{}"), Options{Mode: "lenient"})
	require.EqualError(t, err, `dataframe: Options.Mode "lenient": want FAILFAST, PERMISSIVE or DROPMALFORMED`)
	_, err = ReadNDJSON([]byte("{}"), Options{Mode: ModePermissive, SampleRows: 2})
	require.EqualError(t, err, "dataframe: Options.Mode PERMISSIVE does not combine with SampleRows")
	// A document is one record; a custom column name.
	f, err := ReadDocuments([][]byte{[]byte(`{"a":1}`), []byte(`{"a":`)}, Options{Mode: ModePermissive, CorruptColumn: "_bad"})
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{`{"_bad":null,"a":1}`, `{"_bad":"{\"a\":","a":null}`}, rowsJSON(t, f))
}
