package propref

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
)

var testSource = Source{
	LookupEnv: func(name string) (string, bool) {
		v, ok := map[string]string{"TOKEN": "s3cret", "HOST": "api.example.com", "EMPTY": ""}[name]
		return v, ok
	},
	ReadFile: func(path string) ([]byte, error) {
		switch path {
		case "key.txt":
			return []byte("from-file\n"), nil
		case "crlf.txt":
			return []byte("two\nlines\r\n"), nil
		case "twice.txt":
			return []byte("x\n\n"), nil
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	},
}

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, err string }{
		{in: "plain", want: "plain"},
		{in: "${env:TOKEN}", want: "s3cret"},
		{in: "https://${env:HOST}/v1?k=${env:TOKEN}", want: "https://api.example.com/v1?k=s3cret"},
		{in: "${env:EMPTY}", want: ""},
		{in: "${file:key.txt}", want: "from-file"},
		{in: "${file:crlf.txt}", want: "two\nlines"},
		{in: "${file:twice.txt}", want: "x\n", err: ""},
		{in: "costs $${env:TOKEN} and ${env:TOKEN}", want: "costs ${env:TOKEN} and s3cret"},
		{in: "$ and {} and $x", want: "$ and {} and $x"},
		{in: "${env:UNSET}", err: "reference ${env:UNSET}: environment variable UNSET is not set"},
		{in: "${file:nope.txt}", err: "reference ${file:nope.txt}: open nope.txt: file does not exist"},
		{in: "${HOME}", err: "reference ${HOME}: a reference is ${env:NAME} or ${file:PATH} (write $${ for a literal ${)"},
		{in: "${env:}", err: "${env:} names nothing"},
		{in: "x ${env:TOKEN", err: "reference ${env:TOKEN: not closed by }"},
	} {
		got, err := Resolve(tc.in, testSource)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			require.True(t, errors.Is(err, ErrReference), tc.in)
			require.NotContains(t, err.Error(), "s3cret")
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestHasAndOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in        string
		has, only bool
	}{
		{"plain", false, false},
		{"", false, false},
		{"${env:A}", true, true},
		{"${env:A}${file:/run/secrets/b}", true, true},
		{"Bearer ${env:A}", true, false},
		{"$${env:A}", false, false},
		{"${nope:A}", true, false},
		{"${env:A", true, false},
	} {
		require.Equal(t, tc.has, Has(tc.in), tc.in)
		require.Equal(t, tc.only, Only(tc.in), tc.in)
	}
}

func TestEscapeScansBackAsLiteral(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "plain", "${env:TOKEN}", "a $${b} ${c", "$$${x}", "${"} {
		esc := Escape(in)
		require.False(t, Has(esc), in)
		got, err := Resolve(esc, testSource)
		require.NoError(t, err, in)
		require.Equal(t, in, got, in)
	}
}
