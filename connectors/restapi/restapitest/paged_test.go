package restapitest

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
)

// The fasthttp server of the benchmarks answers every request exactly as
// the net/http one of the tests: same status, header fields and body.
func TestServeFastAnswersAsServeHTTP(t *testing.T) {
	t.Parallel()
	for _, kind := range Kinds {
		for _, loop := range []bool{false, true} {
			l := &Listing{Kind: kind, Sizes: []int{3, 3, 3, -1, 1}, Loop: loop, Total: loop}
			std := httptest.NewServer(l)
			t.Cleanup(std.Close)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			fast := &fasthttp.Server{Handler: l.ServeFast}
			go func() { _ = fast.Serve(ln) }()
			t.Cleanup(func() { _ = fast.Shutdown() })
			fastURL := "http://" + ln.Addr().String()
			for i := -1; i <= len(l.Sizes); i++ {
				q := pageQuery(kind, i, l.Per())
				want := get(t, std.URL, q)
				got := get(t, fastURL, q)
				got.link = strings.ReplaceAll(got.link, strings.TrimPrefix(fastURL, "http://"), strings.TrimPrefix(std.URL, "http://"))
				require.Equal(t, want, got, "%s loop=%v page %d (%s)", kind, loop, i, q)
				require.NotEmpty(t, want.body)
			}
		}
	}
}

type answer struct {
	status                  int
	contentType, next, link string
	length                  int64
	body                    string
}

func get(t *testing.T, base, query string) answer {
	t.Helper()
	resp, err := http.Get(base + "/items?" + query)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("X-Next"), resp.Header.Get("Link"), resp.ContentLength, string(b)}
}

// pageQuery is the query that asks for 0-based page i (-1: the first
// request, without parameters).
func pageQuery(kind string, i, per int) string {
	if i < 0 {
		return ""
	}
	n := strconv.Itoa(i)
	switch kind {
	case "token-body", "token-header":
		return "cursor=c" + n
	case "token-record":
		return "after=r" + strconv.Itoa(i-1) + "-0"
	case "next_url", "link":
		return "p=" + n
	case "offset":
		return "offset=" + strconv.Itoa(i*per) + "&limit=" + strconv.Itoa(per)
	}
	return "page=" + strconv.Itoa(i+1)
}
