package restapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	v, ok := connector(t).(connectors.Validator)
	require.True(t, ok, "RESTAPI implements Validator")
	payload := []connectors.Field{{Name: "payload", Type: "string", Nullable: true}}
	good := connectors.Props{
		"svc.storage.type":        "RESTAPI",
		"svc.restapi.url.pattern": "svc.restapi.pattern.x",
		// Tokens are not resolved at CREATE: the channel may come from SET later.
		"svc.restapi.pattern.x": "{svc.restapi.baseURL}/x?c={svc.restapi.channelId}",
	}
	tests := []struct {
		name   string
		fields []connectors.Field
		props  connectors.Props
		errHas string
	}{
		{name: "no columns", props: good},
		{name: "payload string", fields: payload, props: good},
		{name: "PAYLOAD STRING (names are case-insensitive)", fields: []connectors.Field{{Name: "PAYLOAD", Type: "STRING"}}, props: good},
		{name: "all typed properties", fields: payload, props: with(good,
			"svc.restapi.write.mode", "put", "svc.restapi.timeout", "PT10S", "svc.restapi.retry.max", "0",
			"svc.restapi.retry.wait.min", "10ms", "svc.restapi.retry.wait.max", "1m", "svc.restapi.paginate.max.pages", "5",
			"svc.restapi.max.response.bytes", "1024", "svc.restapi.parse.payload", "true", "svc.restapi.use.payload", "false",
			"svc.restapi.header.X-Api-Key", "k")},
		{name: "other column", fields: []connectors.Field{{Name: "id", Type: "long"}}, props: good,
			errHas: "RESTAPI tables have exactly one column, payload string (or none, which means the same); got (id long)"},
		{name: "payload of another type", fields: []connectors.Field{{Name: "payload", Type: "binary"}}, props: good,
			errHas: "got (payload binary)"},
		{name: "two columns", fields: append(payload, connectors.Field{Name: "x", Type: "string"}), props: good,
			errHas: "got (payload string, x string)"},
		{name: "write mode", props: with(good, "svc.restapi.write.mode", "DELETE"), errHas: "svc.restapi.write.mode"},
		{name: "timeout", props: with(good, "svc.restapi.timeout", "ten seconds"), errHas: "svc.restapi.timeout"},
		{name: "zero timeout", props: with(good, "svc.restapi.timeout", "0s"), errHas: "svc.restapi.timeout: must be positive"},
		{name: "retry max", props: with(good, "svc.restapi.retry.max", "three"), errHas: "svc.restapi.retry.max"},
		{name: "negative retry max", props: with(good, "svc.restapi.retry.max", "-1"), errHas: "svc.restapi.retry.max"},
		{name: "wait min", props: with(good, "svc.restapi.retry.wait.min", "-1s"), errHas: "svc.restapi.retry.wait.min"},
		{name: "wait max below min", props: with(good, "svc.restapi.retry.wait.min", "10s", "svc.restapi.retry.wait.max", "1s"), errHas: "svc.restapi.retry.wait.max"},
		{name: "max pages", props: with(good, "svc.restapi.paginate.max.pages", "0"), errHas: "svc.restapi.paginate.max.pages"},
		{name: "max bytes", props: with(good, "svc.restapi.max.response.bytes", "1e9"), errHas: "svc.restapi.max.response.bytes"},
		{name: "parse payload", props: with(good, "svc.restapi.parse.payload", "maybe"), errHas: "svc.restapi.parse.payload"},
		{name: "use payload", props: with(good, "svc.restapi.use.payload", "2"), errHas: "svc.restapi.use.payload"},
		{name: "header name", props: with(good, "svc.restapi.header.Bad Name", "x"), errHas: "svc.restapi.header.Bad Name"},
		{name: "header value with a line break is not quoted", props: with(good, "svc.restapi.header.Authorization", "Bearer "+testKey+"\r\nX: y"),
			errHas: "svc.restapi.header.Authorization: the value contains a line break"},
		{name: "near miss", props: with(good, "svc.restapi.paginate.next.feild", "nextPageToken"),
			errHas: "unknown property svc.restapi.paginate.next.feild (did you mean svc.restapi.paginate.next.field?)"},
		{name: "near miss outside a known prefix", props: with(good, "svc.restapi.timeot", "5s"),
			errHas: "unknown property svc.restapi.timeot (did you mean svc.restapi.timeout?)"},
		{name: "a token close to a known name is a substitution value", props: with(good,
			"svc.restapi.pattern.x", "{svc.restapi.baseURL}/x?u={svc.restapi.uri}", "svc.restapi.uri", "a")},
		{name: "unknown name under a known prefix", props: with(good, "svc.restapi.auth.kind", "bearer"),
			errHas: "unknown property svc.restapi.auth.kind"},
		{name: "auth type", props: with(good, "svc.restapi.auth.type", "digest"), errHas: `svc.restapi.auth.type: "digest" is not one of bearer, basic, api_key, oauth2`},
		{name: "rate limit", props: with(good, "svc.restapi.rate.limit", "fast"), errHas: "svc.restapi.rate.limit"},
		{name: "declared properties of other helpers are accepted", props: with(good,
			"svc.restapi.incremental.cursor", "updated_at", "svc.restapi.incremental.param", "since", "svc.restapi.parse.payload", "true",
			"svc.restapi.primary.key", "id", "svc.restapi.fanout.concurrency", "8", "svc.restapi.fanout.token", "svc.restapi.channelId",
			"svc.restapi.fanout.from", "yt.channels", "svc.restapi.fanout.column", "id")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := v.Validate(tt.fields, tt.props)
			if tt.errHas == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.errHas)
			require.NotContains(t, err.Error(), testKey)
		})
	}
}

// FuzzValidate: any property set is accepted or rejected without a panic,
// and a rejection never quotes the secret.
func FuzzValidate(f *testing.F) {
	f.Add("svc.restapi.paginate.next.feild", "next", "svc.restapi.paginate.type", "offset")
	f.Add("svc.restapi.auth.type", "oauth2", "svc.restapi.auth.token.url", "http://h/t")
	f.Add("svc.restapi.read.body", `{"a":{svc.restapi.x}}`, "svc.restapi.response.format", "csv")
	f.Add("svc.restapi.records.path", `a\.b..c`, "svc.restapi.rate.limit", "1e400")
	v := connector(f).(connectors.Validator)
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		p := connectors.Props{"svc.restapi.url": "http://127.0.0.1/x", "svc.restapi.auth.token": testKey, k1: v1, k2: v2}
		if err := v.Validate(nil, p); err != nil && strings.Contains(err.Error(), testKey) {
			t.Fatalf("the error quotes the secret: %v", err)
		}
	})
}
