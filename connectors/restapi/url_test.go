package restapi_test

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
)

func TestResolveURL(t *testing.T) {
	t.Parallel()
	base := ytProps("http://127.0.0.1:9")
	tests := []struct {
		name    string
		props   connectors.Props
		want    string
		wantErr error
		errHas  []string
	}{
		{
			name:  "pattern with tokens",
			props: base,
			want:  "http://127.0.0.1:9/youtube/v3/subscriptions?part=snippet%2CcontentDetails&channelId=UCAuUUnT6oDeKwE6v1NGQxug&key=" + testKey,
		},
		{
			name:  "other pattern chosen by url.pattern",
			props: with(base, "svc.restapi.url.pattern", "svc.restapi.pattern.channels"),
			want:  "http://127.0.0.1:9/youtube/v3/channels?id=UCAuUUnT6oDeKwE6v1NGQxug&key=" + testKey,
		},
		{
			name:  "an override of a token's property (session or runtime) is what the URL gets",
			props: with(base, "svc.restapi.channelId", "UC_other", "svc.restapi.apiVersion", "v4"),
			want:  "http://127.0.0.1:9/youtube/v4/subscriptions?part=snippet%2CcontentDetails&channelId=UC_other&key=" + testKey,
		},
		{
			name:  "url bypasses the patterns",
			props: with(base, "svc.restapi.url", "https://example.test/x?y=1"),
			want:  "https://example.test/x?y=1",
		},
		{
			name:  "tokens resolve repeatedly until none is left",
			props: with(base, "svc.restapi.baseURL", "{svc.restapi.scheme}://{svc.restapi.host}", "svc.restapi.scheme", "https", "svc.restapi.host", "api.test"),
			want:  "https://api.test/youtube/v3/subscriptions?part=snippet%2CcontentDetails&channelId=UCAuUUnT6oDeKwE6v1NGQxug&key=" + testKey,
		},
		{
			name: "values are inserted literally, not encoded",
			props: connectors.Props{
				"svc.restapi.url.pattern": "svc.restapi.pattern.q",
				"svc.restapi.pattern.q":   "http://h.test/s?q={svc.restapi.q}",
				"svc.restapi.q":           "a%20b,c+d",
			},
			want: "http://h.test/s?q=a%20b,c+d",
		},
		{
			name: "same token twice is not a cycle",
			props: connectors.Props{
				"svc.restapi.url.pattern": "svc.restapi.pattern.q",
				"svc.restapi.pattern.q":   "http://h.test/{svc.restapi.v}/{svc.restapi.v}",
				"svc.restapi.v":           "x",
			},
			want: "http://h.test/x/x",
		},
		{
			name:    "unresolved token names the token and the pattern",
			props:   with(base, "svc.restapi.pattern.subscriptions", "{svc.restapi.baseURL}/s?c={svc.restapi.channelID}"),
			wantErr: restapi.ErrUnresolvedToken,
			errHas:  []string{"{svc.restapi.channelID}", "svc.restapi.pattern.subscriptions"},
		},
		{
			name:    "unresolved token inside a token's value",
			props:   with(base, "svc.restapi.baseURL", "http://{svc.restapi.host}"),
			wantErr: restapi.ErrUnresolvedToken,
			errHas:  []string{"{svc.restapi.host}", "svc.restapi.pattern.subscriptions", "svc.restapi.baseURL"},
		},
		{
			name:    "cycle names the chain",
			props:   with(base, "svc.restapi.baseURL", "{svc.restapi.a}", "svc.restapi.a", "x{svc.restapi.b}", "svc.restapi.b", "{svc.restapi.a}"),
			wantErr: restapi.ErrTokenCycle,
			errHas:  []string{"svc.restapi.a → svc.restapi.b → svc.restapi.a"},
		},
		{
			name:    "self reference",
			props:   with(base, "svc.restapi.pattern.subscriptions", "http://h/{svc.restapi.pattern.subscriptions}"),
			wantErr: restapi.ErrTokenCycle,
			errHas:  []string{"svc.restapi.pattern.subscriptions → svc.restapi.pattern.subscriptions"},
		},
		{
			name:    "neither url nor url.pattern",
			props:   connectors.Props{"svc.restapi.baseURL": "http://h"},
			wantErr: restapi.ErrNoURL,
			errHas:  []string{"svc.restapi.url", "svc.restapi.url.pattern"},
		},
		{
			name:    "url.pattern names a missing property",
			props:   with(base, "svc.restapi.url.pattern", "svc.restapi.pattern.videos"),
			wantErr: restapi.ErrNoURL,
			errHas:  []string{"svc.restapi.pattern.videos", "not set"},
		},
		{
			name:    "relative URL",
			props:   connectors.Props{"svc.restapi.url": "/youtube/v3"},
			wantErr: restapi.ErrNoURL,
			errHas:  []string{"svc.restapi.url", "not an absolute URL"},
		},
		{
			name:    "other scheme",
			props:   connectors.Props{"svc.restapi.url": "ftp://h/x"},
			wantErr: restapi.ErrNoURL,
			errHas:  []string{`scheme "ftp"`},
		},
		{
			name:    "unclosed brace",
			props:   connectors.Props{"svc.restapi.url.pattern": "svc.restapi.pattern.p", "svc.restapi.pattern.p": "http://h/{svc.restapi.x"},
			wantErr: restapi.ErrNoURL,
			errHas:  []string{"without a closing"},
		},
		{
			name:    "stray closing brace",
			props:   connectors.Props{"svc.restapi.url": "http://h/a}b"},
			wantErr: restapi.ErrNoURL,
			errHas:  []string{"braces"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := restapi.ResolveURL(tt.props)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				for _, s := range tt.errHas {
					require.Contains(t, err.Error(), s)
				}
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestResolveURLUnresolvedTokenDetails(t *testing.T) {
	t.Parallel()
	_, err := restapi.ResolveURL(connectors.Props{
		"svc.restapi.url.pattern": "svc.restapi.pattern.x",
		"svc.restapi.pattern.x":   "http://h/{svc.restapi.missing}",
	})
	var ute *restapi.UnresolvedTokenError
	require.True(t, errors.As(err, &ute))
	require.Equal(t, "svc.restapi.missing", ute.Token)
	require.Equal(t, "svc.restapi.pattern.x", ute.Pattern)
	require.Equal(t, "unresolved token {svc.restapi.missing} in svc.restapi.pattern.x: no property svc.restapi.missing is set", err.Error())
}

func TestResolveURLExponentialTemplateIsBounded(t *testing.T) {
	t.Parallel()
	p := connectors.Props{"svc.restapi.url.pattern": "svc.restapi.pattern.x", "svc.restapi.pattern.x": "http://h/{svc.restapi.t0}"}
	for i := 0; i < 40; i++ {
		p["svc.restapi.t"+strconv.Itoa(i)] = "{svc.restapi.t" + strconv.Itoa(i+1) + "}{svc.restapi.t" + strconv.Itoa(i+1) + "}"
	}
	p["svc.restapi.t40"] = "ab"
	_, err := restapi.ResolveURL(p)
	require.ErrorIs(t, err, restapi.ErrNoURL)
	require.Contains(t, err.Error(), "more than")
}

// FuzzResolveURL: whatever the template and values, resolution does not
// panic, and a success is an absolute http(s) URL with no brace left.
func FuzzResolveURL(f *testing.F) {
	f.Add("{svc.restapi.baseURL}/v3/s?c={svc.restapi.c}&key={svc.restapi.accessKey}", "http://127.0.0.1:1", "UCx", "k")
	f.Add("{svc.restapi.a}", "{svc.restapi.c}", "{svc.restapi.a}", "")
	f.Add("http://h/{svc.restapi.missing}", "", "", "")
	f.Add("http://h/{", "}", "{}", "{{")
	f.Add("{svc.restapi.baseURL}{svc.restapi.baseURL}", "{svc.restapi.c}{svc.restapi.c}", "http://x", "%zz")
	f.Add("ftp://h/x", "", "", "")
	f.Fuzz(func(t *testing.T, pattern, baseURL, c, key string) {
		props := connectors.Props{
			"svc.restapi.url.pattern": "svc.restapi.pattern.f",
			"svc.restapi.pattern.f":   pattern,
			"svc.restapi.baseURL":     baseURL,
			"svc.restapi.c":           c,
			"svc.restapi.a":           "{svc.restapi.baseURL}",
			"svc.restapi.accessKey":   key,
		}
		got, err := restapi.ResolveURL(props)
		if err != nil {
			if !errors.Is(err, restapi.ErrUnresolvedToken) && !errors.Is(err, restapi.ErrTokenCycle) && !errors.Is(err, restapi.ErrNoURL) {
				t.Fatalf("error outside the documented sentinels: %v", err)
			}
			return
		}
		if strings.ContainsAny(got, "{}") {
			t.Fatalf("braces left in %q", got)
		}
		u, perr := url.Parse(got)
		if perr != nil || (strings.ToLower(u.Scheme) != "http" && strings.ToLower(u.Scheme) != "https") || u.Host == "" {
			t.Fatalf("not an absolute http(s) URL: %q (%v)", got, perr)
		}
	})
}
