package restapi

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBackoff(t *testing.T) {
	t.Parallel()
	min, max := 100*time.Millisecond, time.Second
	hdr := func(v string) *http.Response {
		return &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": []string{v}}}
	}
	now := time.Now()
	tests := []struct {
		name    string
		attempt int
		resp    *http.Response
		want    time.Duration
	}{
		{"first retry waits min", 0, nil, min},
		{"doubles", 1, nil, 200 * time.Millisecond},
		{"doubles again", 2, nil, 400 * time.Millisecond},
		{"capped at max", 10, nil, max},
		{"huge attempt does not overflow", 1000, nil, max},
		{"status without Retry-After", 1, &http.Response{StatusCode: 503, Header: http.Header{}}, 200 * time.Millisecond},
		{"Retry-After seconds wins", 0, hdr("0"), 0},
		{"Retry-After seconds capped", 0, hdr("120"), max},
		{"Retry-After date in the past", 3, hdr(now.Add(-time.Hour).UTC().Format(http.TimeFormat)), 0},
		{"Retry-After date capped", 0, hdr(now.Add(time.Hour).UTC().Format(http.TimeFormat)), max},
		{"unparseable Retry-After falls back", 1, hdr("soon"), 200 * time.Millisecond},
		{"negative Retry-After falls back", 0, hdr("-3"), min},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, backoff(min, max, tt.attempt, tt.resp))
		})
	}
	require.Zero(t, backoff(0, max, 3, nil), "wait.min 0 means no wait, not wait.max")
	require.Equal(t, time.Duration(1<<62), backoff(time.Duration(1<<61), time.Duration(1<<62), 5, nil), "no overflow")
}

func TestRetryAfterDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	d, ok := retryAfter("Wed, 01 May 2024 10:00:30 GMT", now)
	require.True(t, ok)
	require.Equal(t, 30*time.Second, d)
	d, ok = retryAfter(" 7 ", now)
	require.True(t, ok)
	require.Equal(t, 7*time.Second, d)
	_, ok = retryAfter("", now)
	require.False(t, ok)
}

func TestWithQueryParam(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, param, value, want string }{
		{"http://h/p", "pageToken", "CAUQAA", "http://h/p?pageToken=CAUQAA"},
		{"http://h/p?", "pageToken", "CAUQAA", "http://h/p?pageToken=CAUQAA"},
		{"http://h/p?part=snippet%2Cid&key=k", "pageToken", "CAUQAA", "http://h/p?part=snippet%2Cid&key=k&pageToken=CAUQAA"},
		{"http://h/p?pageToken=old&part=a%2Cb", "pageToken", "new", "http://h/p?pageToken=new&part=a%2Cb"},
		{"http://h/p?a=1&pageToken=x&b=2&pageToken=y", "pageToken", "z", "http://h/p?a=1&pageToken=z&b=2"},
		{"http://h/p?page%54oken=old", "pageToken", "n", "http://h/p?pageToken=n"},
		{"http://h/p?pageTokenX=1", "pageToken", "n", "http://h/p?pageTokenX=1&pageToken=n"},
		{"http://h/p?flag&x=1", "c", "a b/c+d=&", "http://h/p?flag&x=1&c=a+b%2Fc%2Bd%3D%26"},
		{"http://h/p?x=1#frag", "c", "2", "http://h/p?x=1&c=2#frag"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, withQueryParam(tt.in, tt.param, tt.value), tt.in)
	}
}

func TestNextToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		doc, field string
		want       string
		ok         bool
		err        string
	}{
		{doc: `{"nextPageToken":"CAUQAA"}`, field: "nextPageToken", want: "CAUQAA", ok: true},
		{doc: `{"meta":{"next":"a\u0062\"c"}}`, field: "meta.next", want: `ab"c`, ok: true},
		{doc: `{"next":42}`, field: "next", want: "42", ok: true},
		{doc: `{"next":-1.5e3}`, field: "next", want: "-1.5e3", ok: true},
		{doc: `{"next":""}`, field: "next"},
		{doc: `{"next":null}`, field: "next"},
		{doc: `{"other":1}`, field: "next"},
		{doc: `{"meta":"x"}`, field: "meta.next"},
		{doc: `[1,2]`, field: "next"},
		{doc: `{"next":{"a":1}}`, field: "next", err: "next is an object, not a string or a number"},
		{doc: `{"next":[1]}`, field: "next", err: "is an array"},
		{doc: `{"next":true}`, field: "next", err: "is a boolean"},
		{doc: `{"next":`, field: "next", err: "invalid JSON at byte offset"},
	}
	for _, tt := range tests {
		path, err := parsePath(tt.field)
		require.NoError(t, err)
		got, _, ok, err := path.lookupScalar([]byte(tt.doc))
		if tt.err != "" {
			require.ErrorContains(t, err, tt.err, tt.doc)
			continue
		}
		require.NoError(t, err, tt.doc)
		require.Equal(t, tt.ok, ok, tt.doc)
		require.Equal(t, tt.want, got, tt.doc)
	}
}

func TestParseConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := parseConfig(nil)
	require.NoError(t, err)
	require.Equal(t, &config{
		WriteMode:        "POST",
		Header:           http.Header{},
		Timeout:          30 * time.Second,
		RetryMax:         3,
		RetryWaitMin:     time.Second,
		RetryWaitMax:     30 * time.Second,
		MaxResponseBytes: 268435456,
		AllowedOrigins:   map[origin]bool{},
		Concurrency:      4,
	}, c)
	rc, err := parseReadConfig(nil, c)
	require.NoError(t, err)
	require.Equal(t, "none", rc.paging.typ)

	_, err = parseConfig(map[string]string{"svc.restapi.timeout": "x", "svc.restapi.retry.max": "y"})
	require.EqualError(t, err, `property svc.restapi.retry.max: "y" is not an integer; property svc.restapi.timeout: "x" is not a duration (use 10s or PT10S)`)
}

// FuzzWithQueryParam: for any URL that parses, the result parses too, carries
// the parameter exactly once with the token as its value, and keeps every
// other parameter.
func FuzzWithQueryParam(f *testing.F) {
	f.Add("http://h/p?part=snippet%2Cid&pageToken=old&key=k", "pageToken", "CAUQAA")
	f.Add("http://h/p", "c", "a b/c+d=&#")
	f.Add("http://h/p?x=1#frag", "x", "")
	f.Add("http://h/p?%zz=1", "p", "1")
	f.Fuzz(func(t *testing.T, raw, param, value string) {
		before, err := url.Parse(raw)
		if err != nil || param == "" {
			return
		}
		oldQ, err := url.ParseQuery(before.RawQuery)
		if err != nil {
			return // a query that does not decode is kept byte for byte; nothing to compare
		}
		got := withQueryParam(raw, param, value)
		after, err := url.Parse(got)
		if err != nil {
			t.Fatalf("withQueryParam(%q) = %q does not parse: %v", raw, got, err)
		}
		q, err := url.ParseQuery(after.RawQuery)
		if err != nil {
			t.Fatalf("query of %q does not decode: %v", got, err)
		}
		if vs := q[param]; len(vs) != 1 || vs[0] != value {
			t.Fatalf("withQueryParam(%q, %q, %q) = %q: %s=%q", raw, param, value, got, param, vs)
		}
		for k, vs := range oldQ {
			if k != param && len(q[k]) != len(vs) {
				t.Fatalf("withQueryParam(%q) = %q lost parameter %q", raw, got, k)
			}
		}
	})
}
