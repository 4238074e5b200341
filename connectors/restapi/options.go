package restapi

import (
	"context"
	"crypto/tls"
	"net/http"

	"golang.org/x/time/rate"

	"github.com/sluicedata/sluice/dataframe"
)

// ReadOptions adjust one read from the outside: incremental loads add
// query parameters, fan-out shares a limiter, progress and state watch the
// pages. Attach them to the read's context with WithReadOptions.
type ReadOptions struct {
	// Query parameters are set on every request of the read, replacing a
	// parameter of the same name already in the URL. Defaults to none.
	Query []QueryParam
	// OnPage is called after each page arrived and passed its checks,
	// before the next request; an error stops the read with that error.
	// Defaults to none.
	OnPage func(PageInfo) error
	// Limiter paces every request of the read, replacing the one built
	// from svc.restapi.rate.limit (see NewLimiter). Defaults to that one.
	Limiter *rate.Limiter
	// SpoolDir is the directory of a streamed read's temporary spool file
	// (ReadStream; see docs/restapi.md#memory). Defaults to the system's
	// temporary directory ($TMPDIR).
	SpoolDir string
	// Allocator holds the record batches of a streamed read. Defaults to
	// dataframe's recycling stream allocator.
	Allocator dataframe.Allocator
	// TLSConfig is the TLS configuration of the read's connections (a
	// private certificate authority's roots). Defaults to the system's.
	TLSConfig *tls.Config

	// Set by a fan-out for its children: one connection pool for all, and
	// the origin a child's credentials go to (docs/restapi.md#origins).
	pool        *http.Transport
	childOrigin *origin
}

// QueryParam is one query parameter.
type QueryParam struct{ Name, Value string }

// PageInfo describes a page to ReadOptions.OnPage.
type PageInfo struct {
	Number  int         // 1-based
	URL     string      // secrets redacted
	Status  int         // HTTP status
	Header  http.Header // the response header
	Body    []byte      // the body; valid only during the call, never modify it
	Records int         // records on the page (-1 when the read does not locate them)
}

type readOptionsKey struct{}

// WithReadOptions returns ctx carrying o for the reads made with it.
func WithReadOptions(ctx context.Context, o ReadOptions) context.Context {
	return context.WithValue(ctx, readOptionsKey{}, o)
}

func readOptionsFrom(ctx context.Context) ReadOptions {
	o, _ := ctx.Value(readOptionsKey{}).(ReadOptions)
	return o
}
