package connectors_test

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
)

func TestIsSecretKey(t *testing.T) {
	t.Parallel()
	secret := []string{
		"svc.restapi.accessKey", "svc.restapi.KEY", "svc.restapi.apiToken", "svc.restapi.client.secret",
		"svc.db.PassWord", "svc.restapi.header.Authorization", "svc.restapi.header.authorization",
		"svc.restapi.header.X-Api-Key", "svc.restapi.refresh_token",
	}
	plain := []string{"svc.restapi.url", "svc.restapi.baseURL", "svc.restapi.pattern.subscriptions",
		"svc.restapi.paginate.next.field", "svc.restapi.channelId", "svc.storage.type"}
	for _, k := range secret {
		require.True(t, connectors.IsSecretKey(k), k)
	}
	for _, k := range plain {
		require.False(t, connectors.IsSecretKey(k), k)
	}
}

func TestRedactedProps(t *testing.T) {
	t.Parallel()
	p := connectors.Props{"svc.restapi.accessKey": "abc123", "svc.restapi.url": "http://h", "svc.restapi.token": ""}
	r := p.Redacted()
	require.Equal(t, connectors.Props{"svc.restapi.accessKey": "***", "svc.restapi.url": "http://h", "svc.restapi.token": ""}, r)
	require.Equal(t, "abc123", p["svc.restapi.accessKey"], "the original is untouched")
	require.Equal(t, "***", connectors.RedactValue("db.password", "pw"))
	require.Equal(t, "x", connectors.RedactValue("db.user", "x"))
}

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := connectors.NewRedactor(
		connectors.Props{
			"svc.restapi.accessKey":            "AIzaKEY123",
			"svc.restapi.header.Authorization": "Bearer tok-456",
			"svc.restapi.baseURL":              "http://api.test",
		},
		map[string]string{"svc.restapi.secret": "AIzaKEY123-longer", "svc.restapi.key2": "AIzaKEY123"},
	)
	tests := []struct{ in, want string }{
		{"http://api.test/x?key=AIzaKEY123&a=1", "http://api.test/x?key=***&a=1"},
		{"header Bearer tok-456 sent", "header *** sent"},
		{"the token tok-456 alone", "the token *** alone"},
		{"AIzaKEY123-longer is masked whole", "*** is masked whole"},
		{"AIzaKEY123AIzaKEY123", "******"},
		{"nothing here", "nothing here"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, r.String(tt.in))
	}

	var nilR *connectors.Redactor
	require.Equal(t, "AIzaKEY123", nilR.String("AIzaKEY123"))
	require.Nil(t, r.Error(nil))

	base := errors.New("GET http://api.test/?key=AIzaKEY123: refused")
	err := r.Error(fmt.Errorf("reading d: %w", base))
	require.EqualError(t, err, "reading d: GET http://api.test/?key=***: refused")
	require.ErrorIs(t, err, base, "errors.Is still sees the original chain")

	clean := errors.New("no secret in here")
	require.Same(t, clean, r.Error(clean), "an error without secrets is returned as is")

	empty := connectors.NewRedactor(connectors.Props{"svc.restapi.url": "http://h"})
	require.Same(t, base, empty.Error(base))
}

func ExampleRedactor() {
	props := connectors.Props{
		"svc.restapi.url":                  "https://api.test/v3/items?key=AIza-123",
		"svc.restapi.accessKey":            "AIza-123",
		"svc.restapi.header.Authorization": "Bearer eyJhbGci",
	}
	r := connectors.NewRedactor(props)
	fmt.Println(r.String(props["svc.restapi.url"]))
	fmt.Println(r.String("sent Authorization: Bearer eyJhbGci"))
	fmt.Println(props.Redacted()["svc.restapi.header.Authorization"])
	// Output:
	// https://api.test/v3/items?key=***
	// sent Authorization: ***
	// ***
}

func TestRedactorMasksEncodedForms(t *testing.T) {
	t.Parallel()
	secret := `k/e+y "1"<&>`
	r := connectors.NewRedactor(connectors.Props{"svc.restapi.accessKey": secret, "svc.restapi.header.Authorization": "Bearer a/b"})
	for _, s := range []string{
		secret,
		url.QueryEscape(secret), // k%2Fe%2By+%221%22%3C%26%3E
		url.PathEscape(secret),
		`k/e+y \"1\"\u003c\u0026\u003e`, // as encoding/json writes it
		"a%2Fb",
	} {
		out := r.String("echo: " + s + " end")
		require.Equal(t, "echo: *** end", out, s)
	}
}

// A value made of references alone is no secret: it shows as written, and
// a redactor does not mask it; a literal secret still is masked.
func TestReferencesAreNotSecrets(t *testing.T) {
	t.Parallel()
	require.Equal(t, "${env:GITHUB_TOKEN}", connectors.RedactValue("svc.restapi.auth.token", "${env:GITHUB_TOKEN}"))
	require.Equal(t, "${file:/run/secrets/a}${env:B}", connectors.RedactValue("svc.x.password", "${file:/run/secrets/a}${env:B}"))
	require.Equal(t, connectors.Mask, connectors.RedactValue("svc.restapi.auth.token", "Bearer ${env:X}"), "literal text with a reference")
	require.Equal(t, connectors.Mask, connectors.RedactValue("svc.restapi.auth.token", "$${env:X}"), "an escaped reference is literal text")
	red := connectors.NewRedactor(map[string]string{"svc.restapi.auth.token": "${env:GITHUB_TOKEN}", "svc.restapi.auth.password": "hunter2"})
	require.Equal(t, "token ${env:GITHUB_TOKEN}, password ***", red.String("token ${env:GITHUB_TOKEN}, password hunter2"))
}

// go-sql-driver/mysql's own DSN (user:pw@tcp(host:port)/db), which
// svc.jdbc.url takes, carries its password too (docs/jdbc.md#urls).
func TestRedactorMySQLDSN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"jr_pw:S3cretPw!@tcp(127.0.0.1:3306)/jr_x":    "jr_pw:***@tcp(127.0.0.1:3306)/jr_x",
		"u:p@ss:w0rd@unix(/run/mysqld.sock)/db?tls=1": "u:***@unix(/run/mysqld.sock)/db?tls=1",
		"nopw@tcp(h:3306)/db":                         "nopw@tcp(h:3306)/db",
		"u:@tcp(h:3306)/db":                           "u:@tcp(h:3306)/db",
	} {
		r := connectors.NewRedactor(connectors.Props{"svc.jdbc.url": in})
		require.Equal(t, want, r.String(in), in)
	}
}
