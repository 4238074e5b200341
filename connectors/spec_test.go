package connectors_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

var testSet = &connectors.PropertySet{
	Connector:      "SPECTEST",
	Prefix:         "svc.spectest.",
	Open:           true,
	StrictPrefixes: []string{"paginate.", "auth."},
	Specs: []connectors.PropertySpec{
		{Name: "svc.spectest.url", Doc: "u"},
		{Name: "svc.spectest.header.", Family: true, SecretByName: true, Doc: "h"},
		{Name: "svc.spectest.paginate.next.field", Doc: "n"},
		{Name: "svc.spectest.paginate.max.pages", Kind: connectors.KindInt, Min: 1, Default: "1000", Doc: "m"},
		{Name: "svc.spectest.paginate.type", Kind: connectors.KindEnum, Enum: []string{"token", "link"}, Doc: "t"},
		{Name: "svc.spectest.timeout", Kind: connectors.KindDuration, Default: "30s", Doc: "d"},
		{Name: "svc.spectest.parse", Kind: connectors.KindBool, Default: "false", Doc: "b"},
		{Name: "svc.spectest.rate", Kind: connectors.KindDecimal, Doc: "r"},
		{Name: "svc.spectest.body", Kind: connectors.KindJSON, Doc: "j"},
		{Name: "svc.spectest.auth.token", Secret: true, Doc: "s"},
		{Name: "svc.spectest.auth.token.url", Doc: "not secret"},
		{Name: "svc.spectest.fanout.token", Doc: "not secret"},
	},
}

type specConnector struct{}

func (specConnector) Read(context.Context, *connectors.Dataset) (*dataframe.Frame, error) {
	return nil, errors.New("no")
}
func (specConnector) Properties() *connectors.PropertySet { return testSet }

func init() { connectors.Register("SPECTEST", specConnector{}) }

func TestPropertySetValidate(t *testing.T) {
	t.Parallel()
	ok := []connectors.Props{
		{},
		{"svc.spectest.url": "http://h/{svc.spectest.chanel}", "svc.spectest.chanel": "x"}, // a token, not a typo
		{"svc.spectest.baseURL": "http://h"},                                               // open set: a substitution value
		{"svc.spectest.header.X-Api-Key": "k", "svc.spectest.paginate.max.pages": "5", "svc.spectest.paginate.type": "LINK"},
		{"svc.spectest.timeout": "PT5S", "svc.spectest.parse": "true", "svc.spectest.rate": "2.5", "svc.spectest.body": `{"a":1}`},
		{"svc.spectest.body": `{"a":{svc.spectest.n}}`, "svc.spectest.n": "1"}, // checked after resolution
		{"svc.other.whatever": "x", "svc.storage.type": "SPECTEST"},
	}
	for _, p := range ok {
		require.NoError(t, testSet.Validate(p), "%v", p)
	}
	bad := []struct {
		props connectors.Props
		want  string
	}{
		{connectors.Props{"svc.spectest.paginate.next.feild": "x"}, "unknown property svc.spectest.paginate.next.feild (did you mean svc.spectest.paginate.next.field?)"},
		{connectors.Props{"svc.spectest.urll": "x"}, "unknown property svc.spectest.urll (did you mean svc.spectest.url?)"},
		{connectors.Props{"svc.spectest.heder.Authorization": "x"}, "did you mean svc.spectest.header.Authorization?"},
		{connectors.Props{"svc.spectest.paginate.whatever": "x"}, "unknown property svc.spectest.paginate.whatever (see docs/properties.md for the SPECTEST properties)"},
		{connectors.Props{"svc.spectest.paginate.max.pages": "0"}, "property svc.spectest.paginate.max.pages: 0 is below the minimum 1"},
		{connectors.Props{"svc.spectest.paginate.max.pages": "many"}, `property svc.spectest.paginate.max.pages: "many" is not an integer`},
		{connectors.Props{"svc.spectest.paginate.type": "cursor"}, `property svc.spectest.paginate.type: "cursor" is not one of token, link`},
		{connectors.Props{"svc.spectest.timeout": "soon"}, "property svc.spectest.timeout:"},
		{connectors.Props{"svc.spectest.parse": "yes please"}, "is not a boolean"},
		{connectors.Props{"svc.spectest.rate": "-1"}, "is not a non-negative decimal number"},
		{connectors.Props{"svc.spectest.body": `{"a":`}, "property svc.spectest.body: the value is not valid JSON"},
	}
	for _, tt := range bad {
		err := testSet.Validate(tt.props)
		require.Error(t, err, "%v", tt.props)
		require.Contains(t, err.Error(), tt.want)
	}
	// Every bad property is named, each once, in name order.
	err := testSet.Validate(connectors.Props{"svc.spectest.urll": "x", "svc.spectest.parse": "x"})
	require.EqualError(t, err, `property svc.spectest.parse: "x" is not a boolean (true or false); unknown property svc.spectest.urll (did you mean svc.spectest.url?)`)
	require.ErrorIs(t, err, connectors.ErrUnknownProperty)
	// A strict prefix admits only declared names, tokens or not.
	require.Error(t, testSet.Validate(connectors.Props{"svc.spectest.url": "{svc.spectest.paginate.x}", "svc.spectest.paginate.x": "1"}))
}

func TestPropertySetGetters(t *testing.T) {
	t.Parallel()
	p := connectors.Props{"svc.spectest.paginate.type": "Link", "svc.spectest.rate": " 0.5 "}
	n, err := testSet.Int(p, "svc.spectest.paginate.max.pages")
	require.NoError(t, err)
	require.EqualValues(t, 1000, n)
	d, err := testSet.Duration(p, "svc.spectest.timeout")
	require.NoError(t, err)
	require.Equal(t, "30s", d.String())
	e, err := testSet.Enum(p, "svc.spectest.paginate.type")
	require.NoError(t, err)
	require.Equal(t, "link", e)
	r, err := testSet.Decimal(p, "svc.spectest.rate")
	require.NoError(t, err)
	require.Equal(t, 0.5, r)
	require.Panics(t, func() { testSet.Value(p, "svc.spectest.undeclared") })
}

func TestDeclaredSecrets(t *testing.T) {
	t.Parallel()
	require.True(t, connectors.IsSecretKey("svc.spectest.auth.token"))
	require.False(t, connectors.IsSecretKey("svc.spectest.auth.token.url"), "declared not secret though it says token")
	require.False(t, connectors.IsSecretKey("svc.spectest.fanout.token"))
	require.True(t, connectors.IsSecretKey("svc.spectest.header.X-Auth-User"), "a header family member named like a secret")
	require.False(t, connectors.IsSecretKey("svc.spectest.header.Accept"))
	require.True(t, connectors.IsSecretKey("svc.spectest.accessKey"), "an undeclared name falls back on its words")
	red := connectors.NewRedactor(map[string]string{"svc.spectest.auth.token": "s3cr3t-value", "svc.spectest.fanout.token": "svc.spectest.channel"})
	require.Equal(t, "a *** b svc.spectest.channel", red.String("a s3cr3t-value b svc.spectest.channel"))
}

func TestWritePropertiesMarkdown(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	require.NoError(t, connectors.WritePropertiesMarkdown(&b))
	require.Contains(t, b.String(), "## SPECTEST")
	require.Contains(t, b.String(), "| `svc.spectest.paginate.max.pages` | int ≥ 1 | `1000` |  | m |")
	require.Contains(t, b.String(), "| `svc.spectest.auth.token` | string | — | yes | s |")
	require.Contains(t, b.String(), "| `svc.spectest.header.<name>` | string | — | by name | h |")
}

// FuzzPropertySetValidate: any property set is either accepted or rejected
// with an error that names a property of the set and never quotes a secret.
func FuzzPropertySetValidate(f *testing.F) {
	f.Add("svc.spectest.paginate.next.feild", "x", "svc.spectest.url", "{svc.spectest.a}")
	f.Add("svc.spectest.auth.token", "topsecretvalue", "svc.spectest.paginate.max.pages", "-3")
	f.Add("svc.spectest.heder.X", "", "svc.spectest.body", "{")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		p := connectors.Props{k1: v1, k2: v2, "svc.spectest.auth.token": "topsecretvalue"}
		err := testSet.Validate(p)
		if err == nil {
			return
		}
		msg := err.Error()
		if strings.Contains(msg, "topsecretvalue") {
			t.Fatalf("error quotes a secret: %s", msg)
		}
		named := false
		for k := range p {
			if strings.HasPrefix(k, testSet.Prefix) && strings.Contains(msg, k) {
				named = true
			}
		}
		if !named {
			t.Fatalf("error names no property: %s", msg)
		}
	})
}

// A ${env:…}/${file:…} reference is checked once resolved: before that a
// typed value counts as its default, or, without one, leaves the set
// incomplete; string values stay as written.
func TestPropertySetUnresolved(t *testing.T) {
	t.Parallel()
	p := connectors.Props{
		"svc.spectest.timeout":    "${env:T}",
		"svc.spectest.auth.token": "${env:TOK}",
		"svc.spectest.parse":      "true",
	}
	require.NoError(t, testSet.Validate(p), "a reference is not a value of the wrong kind")
	out, complete := testSet.Unresolved(p)
	require.True(t, complete)
	require.Equal(t, connectors.Props{"svc.spectest.timeout": "30s", "svc.spectest.auth.token": "${env:TOK}", "svc.spectest.parse": "true"}, out)
	require.Equal(t, "${env:T}", p["svc.spectest.timeout"], "p itself is unchanged")

	_, complete = testSet.Unresolved(connectors.Props{"svc.spectest.paginate.type": "${env:KIND}"})
	require.False(t, complete, "an enum without a default")
}
