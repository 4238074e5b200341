package functions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/internal/jsontext"
)

var jsonSamples = []string{
	`{}`, `[]`, ` {"a" : [1, -2.5e+3, true, false, null, "x\"\u00e9\\"]} `, `"s"`, `0`, `-0.5`, `1e5`, `01`, `1.`, `.5`, `-`,
	`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `[`, `{`, `"\x"`, "\"a\tb\"", `"\u12"`, `tru`, `nulls`, `{"a":1}x`, `[1 2]`,
	`{"a":{"b":{"c":[[[]]]}}}`, `1E-7`, `-01`, `[-]`, `"` + strings.Repeat("é", 3) + `"`, ``, ` `,
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range jsonSamples {
		require.Equal(t, json.Valid([]byte(s)), validJSON([]byte(s)), "%q", s)
	}
	deep := strings.Repeat("[", jsontext.DefaultMaxDepth+10) + strings.Repeat("]", jsontext.DefaultMaxDepth+10)
	require.False(t, validJSON([]byte(deep)), "nesting beyond the bound is invalid")
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Count(s, "[")+strings.Count(s, "{") > jsontext.DefaultMaxDepth {
			return
		}
		if json.Valid([]byte(s)) != validJSON([]byte(s)) {
			t.Fatalf("validJSON(%q) = %v, encoding/json says %v", s, validJSON([]byte(s)), json.Valid([]byte(s)))
		}
	})
}
