package jsonpath

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/internal/jsontext"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"kind":"x","nextPageToken":"CAU\u0051AA","page":{"n":3,"o":{"p":[1, 2]}},"e":"","z":null}`)
	tests := []struct {
		path  string
		raw   string
		str   string
		found bool
	}{
		{"nextPageToken", `"CAU\u0051AA"`, "CAUQAA", true},
		{"page.n", `3`, "3", true},
		{"page.o.p", `[1, 2]`, "", true},
		{"e", `""`, "", true},
		{"z", `null`, "", true},
		{"missing", ``, "", false},
		{"kind.x", ``, "", false},
	}
	for _, tt := range tests {
		raw, found, err := Lookup(doc, tt.path)
		require.NoError(t, err)
		require.Equal(t, tt.found, found, tt.path)
		require.Equal(t, tt.raw, string(raw), tt.path)
		if tt.path == "page.o.p" {
			continue
		}
		s, found, err := LookupString(doc, tt.path)
		require.NoError(t, err)
		require.Equal(t, tt.str, s, tt.path)
		require.Equal(t, tt.found && tt.path != "z", found, tt.path)
	}
	_, _, err := LookupString(doc, "page")
	require.ErrorContains(t, err, `JSON path "page" holds an object, not a scalar`)
	_, _, err = Lookup([]byte(`{"a":1,}`), "a")
	var se *jsontext.SyntaxError
	require.True(t, errors.As(err, &se))
	require.Equal(t, int64(7), se.Offset)
	_, _, err = Lookup(doc, "a..b")
	require.ErrorContains(t, err, "empty segment")
}
