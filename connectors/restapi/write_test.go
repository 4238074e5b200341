package restapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/connectors/restapi"
	"github.com/sluicedata/sluice/dataframe"
	"github.com/sluicedata/sluice/dataframe/jsonframe"
)

func write(t *testing.T, props connectors.Props, f *dataframe.Frame, log io.Writer) (connectors.WriteResult, error) {
	t.Helper()
	w, ok := connector(t).(connectors.Writer)
	require.True(t, ok, "RESTAPI implements Writer")
	return w.Write(ctxT(t), &connectors.Dataset{Name: "api.out", Props: props, Log: log}, f)
}

func okServer(t *testing.T) (string, *recorder) {
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(http.StatusCreated) })
	return srv.URL, rec
}

func writeProps(u string, kv ...string) connectors.Props {
	return with(connectors.Props{
		"svc.restapi.url":            u + "/events?key=" + testKey,
		"svc.restapi.accessKey":      testKey,
		"svc.restapi.retry.wait.min": "1ms",
		"svc.restapi.retry.wait.max": "2ms",
	}, kv...)
}

func TestWriteUsePayload(t *testing.T) {
	t.Parallel()
	u, rec := okServer(t)
	bodies := []string{`{"a":1}`, `not json, sent as is`, `{"nested":{"b":[1,2]}}`}
	f := dataframe.Strings(nil, "payload", bodies)
	defer f.Release()
	res, err := write(t, writeProps(u, "svc.restapi.use.payload", "true"), f, nil)
	require.NoError(t, err)
	require.EqualValues(t, 3, res.Rows)
	require.EqualValues(t, 3, res.Written)
	require.Len(t, res.Results, 3)
	reqs := rec.all()
	require.Len(t, reqs, 3)
	for i, r := range reqs {
		require.Equal(t, http.MethodPost, r.Method)
		require.Equal(t, "/events?key="+testKey, r.URI)
		require.Equal(t, "application/json", r.Header.Get("Content-Type"))
		require.Equal(t, bodies[i], r.Body, "row %d", i)
		require.Equal(t, int64(i), res.Results[i].Row)
		require.Equal(t, http.StatusCreated, res.Results[i].Status)
		require.NoError(t, res.Results[i].Err)
	}
}

func TestWriteRowsAsJSONObjects(t *testing.T) {
	t.Parallel()
	u, rec := okServer(t)
	f, err := jsonframe.ReadDocument([]byte(`[
		{"id":1,"snippet":{"title":"a \"q\"","tags":["x","y"]},"payload":"p1"},
		{"id":2,"snippet":null,"payload":"p2","score":2.5}
	]`), jsonframe.Options{})
	require.NoError(t, err)
	defer f.Release()
	res, err := write(t, writeProps(u, "svc.restapi.write.mode", "put"), f, nil)
	require.NoError(t, err)
	require.EqualValues(t, 2, res.Written)
	reqs := rec.all()
	require.Len(t, reqs, 2)
	require.Equal(t, http.MethodPut, reqs[0].Method)
	require.Equal(t, `{"id":1,"payload":"p1","score":null,"snippet":{"tags":["x","y"],"title":"a \"q\""}}`, reqs[0].Body)
	require.Equal(t, `{"id":2,"payload":"p2","score":2.5,"snippet":null}`, reqs[1].Body)
}

func TestWriteUsePayloadNeedsColumn(t *testing.T) {
	t.Parallel()
	u, rec := okServer(t)
	f, err := jsonframe.ReadDocument([]byte(`{"id":1}`), jsonframe.Options{})
	require.NoError(t, err)
	defer f.Release()
	_, err = write(t, writeProps(u, "svc.restapi.use.payload", "true"), f, nil)
	require.ErrorContains(t, err, "svc.restapi.use.payload=true needs a payload column; the frame has (id)")
	require.Zero(t, rec.count())
}

func TestWriteNullPayloadStops(t *testing.T) {
	t.Parallel()
	u, rec := okServer(t)
	f, err := jsonframe.ReadDocument([]byte(`[{"payload":"a"},{"payload":null},{"payload":"c"}]`), jsonframe.Options{})
	require.NoError(t, err)
	defer f.Release()
	res, err := write(t, writeProps(u, "svc.restapi.use.payload", "true"), f, nil)
	require.ErrorContains(t, err, "wrote 1 of 3 rows; row 2 failed: the payload is null")
	require.EqualValues(t, 1, res.Written)
	require.Equal(t, 1, rec.count())
}

func TestWriteFirstFailureStops(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 3 {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"error":"row rejected","key":"`+r.URL.Query().Get("key")+`"}`)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	f := dataframe.Strings(nil, "payload", []string{"1", "2", "3", "4", "5"})
	defer f.Release()
	var log syncBuffer
	res, err := write(t, writeProps(srv.URL, "svc.restapi.use.payload", "true"), f, &log)
	require.Error(t, err)
	require.Contains(t, err.Error(), "writing api.out: wrote 2 of 5 rows; row 3 failed: POST "+srv.URL+"/events?key=***: HTTP 422 Unprocessable Entity: ")
	require.Contains(t, err.Error(), `"row rejected"`)
	require.NotContains(t, err.Error(), testKey)
	require.NotContains(t, log.String(), testKey)
	var se *restapi.StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 422, se.Status)
	require.EqualValues(t, 5, res.Rows)
	require.EqualValues(t, 2, res.Written)
	require.Len(t, res.Results, 3)
	require.Equal(t, []int{200, 200, 422}, []int{res.Results[0].Status, res.Results[1].Status, res.Results[2].Status})
	require.Error(t, res.Results[2].Err)
	require.Equal(t, 3, rec.count(), "rows after the failed one are not sent")
	require.Len(t, strings.Split(strings.TrimSpace(log.String()), "\n"), 3, "one CONSOLE line per request")
}

func TestWriteRetryPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		mode     string
		fail     func(w http.ResponseWriter)
		failures int // answers before the server recovers
		requests int
		ok       bool
	}{
		{name: "POST not retried on 500", mode: "POST", fail: status(500, ""), failures: 1, requests: 1},
		{name: "POST not retried on 503 without Retry-After", mode: "POST", fail: status(503, ""), failures: 1, requests: 1},
		{name: "POST retried on 503 with Retry-After", mode: "post", fail: status(503, "1"), failures: 2, requests: 3, ok: true},
		{name: "POST retried on 429 with Retry-After", mode: "POST", fail: status(429, "0"), failures: 1, requests: 2, ok: true},
		{name: "POST not retried on 502 even with Retry-After", mode: "POST", fail: status(502, "1"), failures: 1, requests: 1},
		{name: "POST not retried after a dropped connection", mode: "POST", fail: drop, failures: 1, requests: 1},
		{name: "PUT retried on 500", mode: "PUT", fail: status(500, ""), failures: 3, requests: 4, ok: true},
		{name: "PUT gives up after retry.max", mode: "Put", fail: status(500, ""), failures: 10, requests: 4},
		{name: "PUT retried after a dropped connection", mode: "PUT", fail: drop, failures: 1, requests: 2, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if n <= tt.failures {
					tt.fail(w)
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			f := dataframe.Strings(nil, "payload", []string{`{"n":1}`})
			defer f.Release()
			res, err := write(t, writeProps(srv.URL, "svc.restapi.use.payload", "true", "svc.restapi.write.mode", tt.mode), f, nil)
			require.Equal(t, tt.requests, rec.count())
			for _, r := range rec.all() {
				require.Equal(t, strings.ToUpper(tt.mode), r.Method)
				require.Equal(t, `{"n":1}`, r.Body)
			}
			if tt.ok {
				require.NoError(t, err)
				require.EqualValues(t, 1, res.Written)
				return
			}
			require.ErrorContains(t, err, "wrote 0 of 1 rows; row 1 failed: ")
			require.Zero(t, res.Written)
		})
	}
}

func status(code int, retryAfter string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(code)
	}
}

func drop(w http.ResponseWriter) {
	hj, _ := w.(http.Hijacker)
	if conn, _, err := hj.Hijack(); err == nil {
		conn.Close()
	}
}

func TestWritePOSTRetriesAFailedDial(t *testing.T) {
	t.Parallel()
	f := dataframe.Strings(nil, "payload", []string{"{}"})
	defer f.Release()
	_, err := write(t, writeProps("http://127.0.0.1:1", "svc.restapi.use.payload", "true", "svc.restapi.retry.max", "2"), f, nil)
	require.ErrorContains(t, err, "wrote 0 of 1 rows; row 1 failed: POST http://127.0.0.1:1/events?key=***: after 3 attempts: ")
	require.ErrorContains(t, err, "connection refused")
}

func TestWritePOSTTimeoutNotRetried(t *testing.T) {
	t.Parallel()
	srv, rec := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	f := dataframe.Strings(nil, "payload", []string{"{}"})
	defer f.Release()
	_, err := write(t, writeProps(srv.URL, "svc.restapi.use.payload", "true", "svc.restapi.timeout", "50ms"), f, nil)
	require.ErrorContains(t, err, "timed out")
	require.Equal(t, 1, rec.count(), "the server may have acted on the POST: no retry")
}

func TestWriteBadMode(t *testing.T) {
	t.Parallel()
	u, rec := okServer(t)
	f := dataframe.Strings(nil, "payload", []string{"{}"})
	defer f.Release()
	_, err := write(t, writeProps(u, "svc.restapi.write.mode", "PATCH"), f, nil)
	require.ErrorContains(t, err, `property svc.restapi.write.mode: "PATCH" is not one of POST, PUT`)
	require.Zero(t, rec.count())
}

func TestWriteEmptyFrame(t *testing.T) {
	t.Parallel()
	u, rec := okServer(t)
	f := dataframe.Strings[string](nil, "payload", nil)
	defer f.Release()
	res, err := write(t, writeProps(u, "svc.restapi.use.payload", "true"), f, nil)
	require.NoError(t, err)
	require.Zero(t, res.Rows)
	require.Zero(t, rec.count())
}

func TestWriteUnresolvedTokenSendsNothing(t *testing.T) {
	t.Parallel()
	u, rec := okServer(t)
	f := dataframe.Strings(nil, "payload", []string{"{}"})
	defer f.Release()
	props := connectors.Props{
		"svc.restapi.url.pattern":  "svc.restapi.pattern.post",
		"svc.restapi.pattern.post": u + "/{svc.restapi.topic}",
	}
	_, err := write(t, props, f, nil)
	require.ErrorIs(t, err, restapi.ErrUnresolvedToken)
	require.ErrorContains(t, err, "writing api.out: unresolved token {svc.restapi.topic} in svc.restapi.pattern.post")
	require.Zero(t, rec.count())
}
