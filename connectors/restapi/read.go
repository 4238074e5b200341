package restapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/dataframe"
)

// readConfig is the read side of a dataset's properties.
type readConfig struct {
	parse       bool
	method      string // GET or POST
	format      string // json, ndjson or csv
	recordsPath jsonPath
	okField     jsonPath // a page where it is false is an error
	errorField  jsonPath // a page where it is set is an error
	paging      *paging
}

func parseReadConfig(p connectors.Props, cfg *config) (*readConfig, error) {
	rc := &readConfig{parse: cfg.ParsePayload}
	rc.method, _ = Properties.Enum(p, PropReadMethod)
	rc.format, _ = Properties.Enum(p, PropResponseFormat)
	var err error
	if rc.recordsPath, err = pathProp(p, PropRecordsPath); err != nil {
		return nil, err
	}
	if !rc.recordsPath.isZero() && rc.format != "json" {
		return nil, fmt.Errorf("property %s applies to JSON responses, but %s=%s (each line or row is a record)", PropRecordsPath, PropResponseFormat, rc.format)
	}
	if rc.okField, err = pathProp(p, PropResponseOKField); err != nil {
		return nil, err
	}
	if rc.errorField, err = pathProp(p, PropResponseErrorField); err != nil {
		return nil, err
	}
	if isSet(p, PropReadBody) && rc.method != http.MethodPost {
		return nil, fmt.Errorf("property %s needs %s=POST", PropReadBody, PropReadMethod)
	}
	if rc.paging, err = newPaging(p, rc); err != nil {
		return nil, err
	}
	return rc, nil
}

// Read requests the dataset's URL and the pages after it (see
// docs/restapi.md). Payload mode gives one row per page with the body
// text in `payload`; parsed mode (svc.restapi.parse.payload=true) parses
// the pages into one frame with merged schemas, one row per record.
func (*Connector) Read(ctx context.Context, ds *connectors.Dataset) (*dataframe.Frame, error) {
	r, name, err := startRead(ctx, ds)
	if err != nil {
		return nil, err
	}
	defer r.close()
	return r.readWhole(ctx, name)
}

// startRead sets up a read of ds (Read, ReadStream): its reader, and the
// dataset's name for messages. The caller closes the reader.
func startRead(ctx context.Context, ds *connectors.Dataset) (*reader, string, error) {
	red := connectors.NewRedactor(ds.Props)
	name := datasetName(ds)
	r, err := newReader(ctx, ds, red)
	if err != nil {
		return nil, "", red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	return r, name, nil
}

// readWhole reads every page and builds the frame from them in memory.
func (r *reader) readWhole(ctx context.Context, name string) (*dataframe.Frame, error) {
	if err := r.readPages(ctx); err != nil {
		// "reading yt.subs page 3 (URL): …"
		return nil, r.red.Error(fmt.Errorf("reading %s %w", name, err))
	}
	f, err := r.frame(ctx)
	if err != nil {
		return nil, r.red.Error(fmt.Errorf("reading %s: %w", name, err))
	}
	return f, nil
}

// reader is one read: its configuration, client and the pages so far.
type reader struct {
	cfg   *config
	rc    *readConfig
	cl    *client
	red   *connectors.Redactor
	opts  ReadOptions
	first request
	// firstWhat names the first URL in an origin error: a fan-out child's
	// comes from the parent's values.
	firstWhat string
	pages     []*page
	// done, when set, takes each page once the paginator is through with
	// it (a spooled read writes it out and drops it, see spool.go); else
	// every page stays in pages.
	done func(p *page) error
}

func newReader(ctx context.Context, ds *connectors.Dataset, red *connectors.Redactor) (*reader, error) {
	cfg, err := parseConfig(ds.Props)
	if err != nil {
		return nil, err
	}
	rc, err := parseReadConfig(ds.Props, cfg)
	if err != nil {
		return nil, err
	}
	u, err := ResolveURL(ds.Props)
	if err != nil {
		return nil, err
	}
	r := &reader{cfg: cfg, rc: rc, red: red, opts: readOptionsFrom(ctx), firstWhat: "the URL"}
	if r.opts.Allocator == nil {
		r.opts.Allocator = ds.Allocator
	}
	r.first = request{url: r.withQuery(u)}
	if rc.method == http.MethodPost {
		if r.first.body, err = resolveBody(ds.Props); err != nil {
			return nil, err
		}
	}
	lim := r.opts.Limiter
	if lim == nil {
		if lim, err = NewLimiter(ds.Props); err != nil {
			return nil, err
		}
	}
	co := clientOptions{lim: lim, pool: r.opts.pool, tls: r.opts.TLSConfig}
	if r.opts.childOrigin != nil {
		co.origins = &origins{table: *r.opts.childOrigin, allowed: cfg.AllowedOrigins}
		r.firstWhat = "the fan-out child URL"
	}
	r.cl = newClient(cfg, ds, red, u, co)
	r.cl.reads = true
	return r, nil
}

func (r *reader) close() { r.cl.close() }

// withQuery sets ReadOptions.Query on a request URL.
func (r *reader) withQuery(u string) string {
	for _, q := range r.opts.Query {
		u = withQueryParam(u, q.Name, q.Value)
	}
	return u
}

// readPages requests page after page until the paginator says the listing
// is complete; where the first page makes the later ones addressable
// (offset and page with a total), they are requested concurrently
// (readPlanned). Its errors start with "page N" (the caller names the
// dataset before it).
func (r *reader) readPages(ctx context.Context) error {
	pg := r.rc.paging
	req := r.first
	if err := pg.p.start(&req); err != nil {
		return fmt.Errorf("page 1: %w", err)
	}
	seen := map[string]int{} // token or URL → the page that returned it
	urlIs := r.firstWhat
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("page %d: %w", n, err)
		}
		if err := r.cl.origins.check(req.url, urlIs, r.red); err != nil {
			return fmt.Errorf("page %d: %w", n, err)
		}
		urlIs = "the next-page URL"
		a, err := r.cl.do(ctx, r.rc.method, req.url, req.body)
		if err != nil {
			return fmt.Errorf("page %d: %w", n, err)
		}
		p := r.newPage(n, req, a)
		stop, err := r.arrived(p)
		if err != nil {
			return err
		}
		if stop {
			return r.pageDone(p)
		}
		more, key, what, err := pg.p.next(p, &req)
		if err != nil {
			return r.where(p, err)
		}
		if !more {
			return r.pageDone(p)
		}
		if key != "" {
			if first, dup := seen[key]; dup {
				return fmt.Errorf("page %d: %w: %s %q was already returned by page %d", n, ErrRepeatedToken, what, key, first)
			}
			seen[key] = n
		}
		if int64(n) >= pg.maxPages {
			return fmt.Errorf("page %d: %w: more than %d pages (page %d still has a next page; raise %s)", n, ErrTooManyPages, pg.maxPages, n, PropMaxPages)
		}
		if err := r.pageDone(p); err != nil {
			return err
		}
		req.url = r.withQuery(req.url)
		if ad, ok := pg.p.(addressable); ok && n == 1 && r.cfg.Concurrency > 1 {
			if reqs, ok := ad.plan(req); ok {
				for i := range reqs {
					reqs[i].url = r.withQuery(reqs[i].url)
				}
				return r.readPlanned(ctx, ad, reqs)
			}
		}
	}
}

func (r *reader) newPage(n int, req request, a answer) *page {
	p := &page{number: n, url: req.url, status: a.status, header: a.header, body: a.body,
		format: r.rc.format, recordsPath: r.rc.recordsPath}
	r.pages = append(r.pages, p)
	return p
}

// where prefixes an error with the page it is about.
func (r *reader) where(p *page, err error) error {
	return fmt.Errorf("page %d (%s): %w", p.number, r.red.String(p.url), err)
}

// arrived runs what every page goes through once its answer is in: the
// page checks, ReadOptions.OnPage, and the stop conditions every type
// shares (stop: the listing ends with p).
func (r *reader) arrived(p *page) (stop bool, err error) {
	if err := r.checkPage(p); err != nil {
		return false, r.where(p, err)
	}
	if r.opts.OnPage != nil {
		recs := -1
		if p.recs != nil && p.recs.count() == nil {
			recs = p.recs.n
		}
		info := PageInfo{Number: p.number, URL: r.red.String(p.url), Status: p.status, Header: p.header, Body: p.body, Records: recs}
		if err := r.opts.OnPage(info); err != nil {
			return false, r.where(p, err)
		}
	}
	stop, err = r.rc.paging.stopsAfter(p)
	if err != nil {
		return false, r.where(p, err)
	}
	return stop, nil
}

// readPlanned reads the planned pages 2, 3, … (reqs) with up to
// svc.restapi.concurrency requests in flight, and takes them in page
// order, so rows come out as a page-by-page read gives them: a request is
// started only when the page svc.restapi.concurrency places before it has
// been taken, which bounds the bodies held. The rate limit paces every
// request (one pacer). See docs/restapi.md#concurrency.
func (r *reader) readPlanned(ctx context.Context, ad addressable, reqs []request) error {
	pg := r.rc.paging
	more := false // pages beyond max.pages
	if int64(len(reqs)+1) > pg.maxPages {
		reqs, more = reqs[:pg.maxPages-1], true
	}
	type result struct {
		a    answer
		err  error
		done chan struct{}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // runs before wg.Wait: requests still in flight stop
	results := make([]*result, len(reqs))
	started := 0
	startUpTo := func(limit int) {
		for ; started < limit; started++ {
			res, req := &result{done: make(chan struct{})}, reqs[started]
			results[started] = res
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(res.done)
				res.a, res.err = r.cl.do(ctx, r.rc.method, req.url, req.body)
			}()
		}
	}
	for i, req := range reqs {
		n := i + 2
		if err := r.cl.origins.check(req.url, "the next-page URL", r.red); err != nil {
			return fmt.Errorf("page %d: %w", n, err)
		}
		startUpTo(min(i+r.cfg.Concurrency, len(reqs)))
		res := results[i]
		<-res.done
		results[i] = nil
		if res.err != nil {
			return fmt.Errorf("page %d: %w", n, res.err)
		}
		p := r.newPage(n, req, res.a)
		stop, err := r.arrived(p)
		if err != nil {
			return err
		}
		if !stop {
			if stop, err = ad.checkPlanned(p); err != nil {
				return r.where(p, err)
			}
		}
		if stop || i == len(reqs)-1 && !more {
			return r.pageDone(p)
		}
		if i == len(reqs)-1 {
			return fmt.Errorf("page %d: %w: more than %d pages (page %d still has a next page; raise %s)", n, ErrTooManyPages, pg.maxPages, n, PropMaxPages)
		}
		if err := r.pageDone(p); err != nil {
			return err
		}
	}
	return nil
}

// pageDone hands a page the paginator is through with to r.done, which
// takes it (and its body) off the read.
func (r *reader) pageDone(p *page) error {
	if r.done == nil {
		return nil
	}
	if err := r.done(p); err != nil {
		return err
	}
	r.pages = r.pages[:len(r.pages)-1]
	return nil
}

// checkPage applies the page checks: an error reported inside a 2xx
// (response.ok.field, response.error.field), and, in parsed mode with
// records.path, that the path holds an array or null.
func (r *reader) checkPage(p *page) error {
	body := trimJSONSpace(p.body)
	if len(body) == 0 || r.rc.format != "json" {
		if r.rc.parse && r.rc.format != "json" {
			_, err := p.records() // CSV syntax is checked page by page
			return err
		}
		return nil
	}
	if !r.rc.okField.isZero() {
		ok, set, err := r.rc.okField.lookupBool(body)
		if err != nil {
			return fmt.Errorf("%s: %w", PropResponseOKField, err)
		}
		if set && !ok {
			return fmt.Errorf("%w: %s %s is false: %s", ErrResponseError, PropResponseOKField, r.rc.okField.text, quoteExcerpt(limitBytes(body, errBodyLimit)))
		}
	}
	if !r.rc.errorField.isZero() {
		raw, found, err := r.rc.errorField.lookup(body)
		if err != nil {
			return fmt.Errorf("%s: %w", PropResponseErrorField, err)
		}
		if v := string(trimJSONSpace(raw)); found && v != "null" && v != "[]" && v != "{}" && v != `""` && v != "false" {
			return fmt.Errorf("%w: %s %s is set: %s", ErrResponseError, PropResponseErrorField, r.rc.errorField.text, quoteExcerpt(limitBytes(raw, errBodyLimit)))
		}
	}
	if r.rc.parse && !r.rc.recordsPath.isZero() {
		if _, err := p.records(); err != nil {
			return err
		}
	}
	return nil
}

func limitBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// resolveBody is svc.restapi.read.body with its {svc.…} tokens resolved as
// in URLs; other braces are the JSON's own. The result must be JSON.
func resolveBody(p connectors.Props) ([]byte, error) {
	tmpl, ok := p[PropReadBody]
	if !ok || strings.TrimSpace(tmpl) == "" {
		return []byte("{}"), nil
	}
	res := resolver{props: p, root: PropReadBody, done: map[string]string{}}
	var b strings.Builder
	for {
		i := strings.Index(tmpl, "{svc.")
		if i < 0 {
			b.WriteString(tmpl)
			break
		}
		end := strings.IndexByte(tmpl[i:], '}')
		if end < 0 {
			b.WriteString(tmpl)
			break
		}
		tok := tmpl[i+1 : i+end]
		b.WriteString(tmpl[:i])
		if _, ok := p[tok]; !ok {
			return nil, &UnresolvedTokenError{Token: tok, Pattern: PropReadBody, In: PropReadBody}
		}
		v, err := res.resolve(tok, []string{PropReadBody})
		if err != nil {
			return nil, err
		}
		b.WriteString(v)
		tmpl = tmpl[i+end+1:]
	}
	out := []byte(b.String())
	if !jsonValid(out) {
		return nil, fmt.Errorf("property %s: after its tokens are resolved the body is not valid JSON", PropReadBody)
	}
	return out, nil
}
