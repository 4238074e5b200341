package restapi_test

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
)

func TestReadPayloadMode(t *testing.T) {
	t.Parallel()
	srv, rec := youtube(t)
	// records.path is ignored in payload mode.
	f, err := read(t, with(ytProps(srv.URL), "svc.restapi.records.path", "items"), nil)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{"payload"}, f.ColumnNames())
	require.Equal(t, []string{string(fixture(t, "youtube_subscriptions_by_channel_p1.json"))}, payloads(t, f))
	reqs := rec.all()
	require.Len(t, reqs, 1)
	require.Equal(t, http.MethodGet, reqs[0].Method)
	require.Equal(t, "/youtube/v3/subscriptions?part=snippet%2CcontentDetails&channelId=UCAuUUnT6oDeKwE6v1NGQxug&key="+testKey, reqs[0].URI)
}

func TestReadURLBypassesPattern(t *testing.T) {
	t.Parallel()
	srv, rec := youtube(t)
	props := with(ytProps(srv.URL), "svc.restapi.url", srv.URL+"/youtube/v3/channels?key="+testKey)
	f, err := read(t, props, nil)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{string(fixture(t, "youtube_channels_info.json"))}, payloads(t, f))
	require.Equal(t, "/youtube/v3/channels?key="+testKey, rec.all()[0].URI)
}

func TestReadUnresolvedTokenSendsNothing(t *testing.T) {
	t.Parallel()
	srv, rec := youtube(t)
	props := ytProps(srv.URL)
	delete(props, "svc.restapi.channelId")
	_, err := read(t, props, nil)
	require.ErrorIs(t, err, restapi.ErrUnresolvedToken)
	require.Contains(t, err.Error(), "{svc.restapi.channelId}")
	require.Contains(t, err.Error(), "svc.restapi.pattern.subscriptions")
	require.Contains(t, err.Error(), "yt.subs")
	require.Zero(t, rec.count(), "no request may be sent with an unresolved token")
}

func TestReadTokenCycleSendsNothing(t *testing.T) {
	t.Parallel()
	srv, rec := youtube(t)
	_, err := read(t, with(ytProps(srv.URL), "svc.restapi.apiVersion", "{svc.restapi.apiVersion}"), nil)
	require.ErrorIs(t, err, restapi.ErrTokenCycle)
	require.Zero(t, rec.count())
}

func TestReadPaginationPayloadMode(t *testing.T) {
	t.Parallel()
	srv, rec := youtube(t)
	props := with(ytProps(srv.URL),
		"svc.restapi.paginate.next.field", "nextPageToken",
		"svc.restapi.paginate.next.param", "pageToken")
	f, err := read(t, props, nil)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{
		string(fixture(t, "youtube_subscriptions_by_channel_p1.json")),
		string(fixture(t, "youtube_subscriptions_by_channel_p2.json")),
	}, payloads(t, f))
	reqs := rec.all()
	require.Len(t, reqs, 2)
	require.Equal(t, "/youtube/v3/subscriptions?part=snippet%2CcontentDetails&channelId=UCAuUUnT6oDeKwE6v1NGQxug&key="+testKey+"&pageToken=CAUQAA", reqs[1].URI)
}

func TestReadPaginationReplacesParam(t *testing.T) {
	t.Parallel()
	srv, rec := youtube(t)
	props := with(ytProps(srv.URL),
		"svc.restapi.pattern.subscriptions", "{svc.restapi.baseURL}/youtube/v3/subscriptions?pageToken=&key={svc.restapi.accessKey}&part=id",
		"svc.restapi.paginate.next.field", "nextPageToken",
		"svc.restapi.paginate.next.param", "pageToken")
	f, err := read(t, props, nil)
	require.NoError(t, err)
	defer f.Release()
	require.EqualValues(t, 2, f.NumRows())
	reqs := rec.all()
	require.Len(t, reqs, 2)
	require.Equal(t, "/youtube/v3/subscriptions?pageToken=&key="+testKey+"&part=id", reqs[0].URI)
	require.Equal(t, "/youtube/v3/subscriptions?pageToken=CAUQAA&key="+testKey+"&part=id", reqs[1].URI)
}

// pager serves pages whose next token is next(n) for request n.
func pager(t *testing.T, next func(n int) string) (string, *recorder) {
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		tok := next(n)
		if tok == "" {
			_, _ = io.WriteString(w, `{"page":`+strconv.Itoa(n)+`}`)
			return
		}
		_, _ = io.WriteString(w, `{"page":`+strconv.Itoa(n)+`,"meta":{"next":"`+tok+`"}}`)
	})
	return srv.URL, rec
}

func TestReadPaginationLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		next     func(n int) string
		props    []string
		wantRows int64
		wantErr  error
		errHas   string
		requests int
	}{
		{
			name:     "follows a dotted next field until absent",
			next:     func(n int) string { return map[int]string{1: "a", 2: "b"}[n] },
			wantRows: 3, requests: 3,
		},
		{
			name:    "a token seen twice is an error",
			next:    func(n int) string { return []string{"", "a", "b", "a", "b"}[min(n, 4)] },
			wantErr: restapi.ErrRepeatedToken, errHas: `"a" was already returned by page 1`, requests: 3,
		},
		{
			name:    "last allowed page with a next token",
			next:    func(n int) string { return "t" + strconv.Itoa(n) },
			props:   []string{"svc.restapi.paginate.max.pages", "3"},
			wantErr: restapi.ErrTooManyPages, errHas: "more than 3 pages", requests: 3,
		},
		{
			name:     "max pages reached exactly without a next token",
			next:     func(n int) string { return map[int]string{1: "a", 2: "b"}[n] },
			props:    []string{"svc.restapi.paginate.max.pages", "3"},
			wantRows: 3, requests: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, rec := pager(t, tt.next)
			props := connectors.Props{
				"svc.restapi.url":                 u + "/p",
				"svc.restapi.paginate.next.field": "meta.next",
				"svc.restapi.paginate.next.param": "cursor",
			}
			f, err := read(t, with(props, tt.props...), nil)
			require.Equal(t, tt.requests, rec.count())
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				require.Contains(t, err.Error(), tt.errHas)
				return
			}
			require.NoError(t, err)
			defer f.Release()
			require.Equal(t, tt.wantRows, f.NumRows())
		})
	}
}

func TestReadHTTPErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 3000)
	tests := []struct {
		name     string
		status   int
		body     string
		props    []string
		requests int
		errHas   []string
	}{
		{name: "404 is not retried", status: 404, body: `{"error":"not found"}`, requests: 1,
			errHas: []string{"HTTP 404 Not Found", `{"error":"not found"}`, "reading yt.subs page 1"}},
		{name: "500 is retried retry.max times", status: 500, body: "boom", props: []string{"svc.restapi.retry.max", "2"}, requests: 3,
			errHas: []string{"HTTP 500 Internal Server Error", "boom"}},
		{name: "retry.max 0", status: 502, body: "bad gateway", props: []string{"svc.restapi.retry.max", "0"}, requests: 1,
			errHas: []string{"HTTP 502"}},
		{name: "default retry.max is 3", status: 503, body: long, requests: 4,
			errHas: []string{"HTTP 503", strings.Repeat("x", 1024)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			})
			props := with(connectors.Props{
				"svc.restapi.url":            srv.URL + "/x?key=" + testKey,
				"svc.restapi.accessKey":      testKey,
				"svc.restapi.retry.wait.min": "1ms",
				"svc.restapi.retry.wait.max": "2ms",
			}, tt.props...)
			f, err := read(t, props, nil)
			require.Nil(t, f, "an error answer is never data")
			require.Error(t, err)
			var se *restapi.StatusError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tt.status, se.Status)
			require.Contains(t, err.Error(), "/x?key=***")
			for _, s := range tt.errHas {
				require.Contains(t, err.Error(), s)
			}
			require.NotContains(t, err.Error(), strings.Repeat("x", 1025), "at most 1 KiB of the body")
			require.NotContains(t, err.Error(), testKey)
			require.Equal(t, tt.requests, rec.count())
		})
	}
}

func TestReadRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fail func(w http.ResponseWriter)
	}{
		{"503 then success", func(w http.ResponseWriter) { w.WriteHeader(503) }},
		{"429 with Retry-After seconds, capped at wait.max", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(429)
		}},
		{"429 with Retry-After date", func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
			w.WriteHeader(429)
		}},
		{"connection dropped", func(w http.ResponseWriter) {
			hj, _ := w.(http.Hijacker)
			conn, _, err := hj.Hijack()
			if err == nil {
				conn.Close()
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n <= 2 {
					tt.fail(w)
					return
				}
				_, _ = io.WriteString(w, `{"ok":true}`)
			})
			// A one-hour Retry-After must be capped at wait.max, or the test times out.
			f, err := read(t, connectors.Props{
				"svc.restapi.url":            srv.URL,
				"svc.restapi.retry.wait.min": "1ms",
				"svc.restapi.retry.wait.max": "10ms",
			}, nil)
			require.NoError(t, err)
			defer f.Release()
			require.Equal(t, []string{`{"ok":true}`}, payloads(t, f))
			require.Equal(t, 3, rec.count())
		})
	}
}

func TestReadTimeout(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	_, err := read(t, connectors.Props{
		"svc.restapi.url":            srv.URL,
		"svc.restapi.timeout":        "PT0.05S",
		"svc.restapi.retry.max":      "1",
		"svc.restapi.retry.wait.min": "1ms",
		"svc.restapi.retry.wait.max": "1ms",
	}, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "timed out after 50ms (svc.restapi.timeout)")
	require.Contains(t, err.Error(), "after 2 attempts")
	require.Equal(t, 2, rec.count(), "a timeout counts as a transport error and is retried")
}

func TestReadTimeoutMidBodyIsRetried(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.Header().Set("Content-Length", "100")
			_, _ = io.WriteString(w, `{"partial":`)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		_, _ = io.WriteString(w, `{"ok":1}`)
	})
	f, err := read(t, connectors.Props{
		"svc.restapi.url":            srv.URL,
		"svc.restapi.timeout":        "1s", // long enough for the second attempt on a loaded machine
		"svc.restapi.retry.wait.min": "1ms",
		"svc.restapi.retry.wait.max": "1ms",
	}, nil)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{`{"ok":1}`}, payloads(t, f))
	require.Equal(t, 2, rec.count())
}

func TestReadOversizeBody(t *testing.T) {
	t.Parallel()
	for _, chunked := range []bool{false, true} {
		t.Run("chunked="+strconv.FormatBool(chunked), func(t *testing.T) {
			t.Parallel()
			srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				body := `{"data":"` + strings.Repeat("a", 200) + `"}`
				if !chunked {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				}
				_, _ = io.WriteString(w, body[:10])
				w.(http.Flusher).Flush()
				_, _ = io.WriteString(w, body[10:])
			})
			_, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.max.response.bytes": "100"}, nil)
			require.ErrorIs(t, err, restapi.ErrResponseTooLarge)
			require.Contains(t, err.Error(), "svc.restapi.max.response.bytes=100")
			require.Equal(t, 1, rec.count(), "an oversize body is not retried")
		})
	}
	t.Run("exactly the limit", func(t *testing.T) {
		t.Parallel()
		srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { _, _ = io.WriteString(w, "0123456789") })
		f, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.max.response.bytes": "10"}, nil)
		require.NoError(t, err)
		defer f.Release()
		require.Equal(t, []string{"0123456789"}, payloads(t, f))
	})
}

func TestReadHeaders(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { _, _ = io.WriteString(w, "{}") })
	f, err := read(t, connectors.Props{
		"svc.restapi.url":                   srv.URL,
		"svc.restapi.header.Authorization":  "Bearer " + testKey,
		"svc.restapi.header.X-Goog-Api-Key": testKey,
		"svc.restapi.header.accept":         "application/json",
		"svc.restapi.header.Host":           "api.example.test",
	}, nil)
	require.NoError(t, err)
	defer f.Release()
	h := rec.all()[0].Header
	require.Equal(t, "Bearer "+testKey, h.Get("Authorization"))
	require.Equal(t, testKey, h.Get("X-Goog-Api-Key"))
	require.Equal(t, "application/json", h.Get("Accept"))
	require.Equal(t, "api.example.test", rec.all()[0].Host)
}

func TestReadContextCancelStopsRetryWait(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 10)
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(503)
		arrived <- struct{}{}
	})
	ctx, cancel := context.WithCancel(ctxT(t))
	go func() {
		select {
		case <-arrived:
		case <-time.After(20 * time.Second):
		}
		cancel()
	}()
	_, err := connector(t).Read(ctx, &connectors.Dataset{Name: "d", Props: connectors.Props{
		"svc.restapi.url":            srv.URL,
		"svc.restapi.retry.wait.min": "1h",
		"svc.restapi.retry.wait.max": "1h",
	}})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, rec.count())
}

func TestReadBadProperties(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"svc.restapi.timeout":            "soon",
		"svc.restapi.retry.max":          "-1",
		"svc.restapi.paginate.max.pages": "0",
		"svc.restapi.max.response.bytes": "lots",
		"svc.restapi.parse.payload":      "yes please",
		"svc.restapi.retry.wait.min":     "PT",
	}
	for prop, val := range tests {
		t.Run(prop, func(t *testing.T) {
			t.Parallel()
			srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {})
			_, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, prop: val}, nil)
			require.Error(t, err)
			require.Contains(t, err.Error(), prop)
			require.Zero(t, rec.count())
		})
	}
}

// TestSecretsNeverShow runs every failure path with CONSOLE logging on and
// checks that the key appears in no error and no log line.
func TestSecretsNeverShow(t *testing.T) {
	t.Parallel()
	srv, _ := youtube(t)
	echo, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(500)
		_, _ = io.WriteString(w, "echo: "+r.RequestURI+" auth="+r.Header.Get("Authorization"))
	})
	base := with(ytProps(srv.URL), "svc.restapi.header.Authorization", "Bearer "+testKey+"-bearer")
	cases := map[string]connectors.Props{
		"success":          base,
		"paginated":        with(base, "svc.restapi.paginate.next.field", "nextPageToken", "svc.restapi.paginate.next.param", "pageToken"),
		"403 quoting key":  with(base, "svc.restapi.channelId", "x", "svc.restapi.accessKey", testKey+"-wrong"),
		"404":              with(base, "svc.restapi.apiVersion", "v9"),
		"500 echo":         with(base, "svc.restapi.baseURL", echo.URL),
		"connection error": with(base, "svc.restapi.baseURL", "http://127.0.0.1:1", "svc.restapi.retry.max", "1"),
		"unresolved":       with(base, "svc.restapi.pattern.subscriptions", "{svc.restapi.baseURL}/?key={svc.restapi.accessKey}&x={svc.restapi.nope}"),
		"not absolute":     with(base, "svc.restapi.baseURL", "nohost"),
		"bad property":     with(base, "svc.restapi.timeout", "x"),
		"too many pages": with(base, "svc.restapi.paginate.next.field", "nextPageToken",
			"svc.restapi.paginate.next.param", "pageToken", "svc.restapi.paginate.max.pages", "1"),
	}
	for name, props := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var log syncBuffer
			f, err := read(t, props, &log)
			if f != nil {
				f.Release()
			}
			out := log.String()
			if err != nil {
				out += "\n" + err.Error()
			}
			require.NotContains(t, out, testKey)
			require.NotContains(t, out, "k3y")
		})
	}
}

func TestConsoleLogging(t *testing.T) {
	t.Parallel()
	srv, _ := youtube(t)
	var log syncBuffer
	props := with(ytProps(srv.URL), "svc.restapi.paginate.next.field", "nextPageToken", "svc.restapi.paginate.next.param", "pageToken")
	f, err := read(t, props, &log)
	require.NoError(t, err)
	defer f.Release()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 2)
	p1 := len(fixture(t, "youtube_subscriptions_by_channel_p1.json"))
	require.Contains(t, lines[0], "restapi: GET "+srv.URL+"/youtube/v3/subscriptions?part=snippet%2CcontentDetails&channelId=UCAuUUnT6oDeKwE6v1NGQxug&key=*** 200 "+strconv.Itoa(p1)+" bytes ")
	require.Contains(t, lines[1], "&pageToken=CAUQAA 200 ")

	// Quiet without a log writer: nothing to check but that it works.
	f2, err := read(t, props, nil)
	require.NoError(t, err)
	f2.Release()
}

func TestConsoleLoggingRetries(t *testing.T) {
	t.Parallel()
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(503)
			return
		}
		_, _ = io.WriteString(w, "ok")
	})
	var log syncBuffer
	f, err := read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.retry.wait.min": "1ms"}, &log)
	require.NoError(t, err)
	f.Release()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	require.Len(t, lines, 2)
	require.Contains(t, lines[0], " 503 ")
	require.Contains(t, lines[0], "retrying")
	require.Contains(t, lines[1], " 200 2 bytes ")
	require.Contains(t, lines[1], "(retry 1)")
}

func TestErrorsWrapSentinels(t *testing.T) {
	t.Parallel()
	_, err := read(t, connectors.Props{}, nil)
	require.True(t, errors.Is(err, restapi.ErrNoURL))
}

// A secret with characters that quoting would escape is still masked.
func TestSecretWithSpecialCharactersIsMasked(t *testing.T) {
	t.Parallel()
	secret := "se\"cr\\et-\u00e9-value"
	var log syncBuffer
	_, err := read(t, connectors.Props{
		"svc.restapi.url":       "nohost/x?key={svc.restapi.accessKey}",
		"svc.restapi.accessKey": secret,
	}, &log)
	require.ErrorIs(t, err, restapi.ErrNoURL)
	require.NotContains(t, err.Error(), "cr")
	require.Contains(t, err.Error(), "key=***")
}

func TestReadGzipBodyIsDecodedAndBounded(t *testing.T) {
	t.Parallel()
	text := `{"items":[` + strings.Repeat(`{"a":"xxxxxxxxxx"},`, 200) + `{"a":"end"}]}`
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			_, _ = io.WriteString(w, text)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, text)
		_ = zw.Close()
	})
	f, err := read(t, connectors.Props{"svc.restapi.url": srv.URL}, nil)
	require.NoError(t, err)
	defer f.Release()
	require.Equal(t, []string{text}, payloads(t, f))
	require.Equal(t, "gzip", rec.all()[0].Header.Get("Accept-Encoding"))

	// The limit applies to the decoded body, however small the compressed one.
	_, err = read(t, connectors.Props{"svc.restapi.url": srv.URL, "svc.restapi.max.response.bytes": "1000"}, nil)
	require.ErrorIs(t, err, restapi.ErrResponseTooLarge)
}
