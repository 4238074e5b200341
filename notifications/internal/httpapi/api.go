package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/valyala/fasthttp"

	"github.com/sluicedata/sluice/notifications/queue"
)

// errorBody is every error answer: {"errorMessage":"…"}.
type errorBody struct {
	ErrorMessage string `json:"errorMessage"`
}

func jsonError(c *fiber.Ctx, status int, msg string) error {
	return c.Status(status).JSON(errorBody{ErrorMessage: msg})
}

func (s *API) newApp() *fiber.App {
	app := fiber.New(fiber.Config{
		AppName:               "sluice-sidecar",
		BodyLimit:             s.cfg.MaxBodyBytes,
		StreamRequestBody:     true, // bodies are read, bounded and decoded by readBody
		CaseSensitive:         true, // so that no spelling of a path slips past the auth and toggle checks
		StrictRouting:         false,
		DisableStartupMessage: true,
		Prefork:               false,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          5 * time.Minute, // dataset exports stream for a while
		IdleTimeout:           2 * time.Minute,
		ErrorHandler:          s.errorHandler,
		JSONEncoder:           marshalNoHTMLEscape,
	})
	app.Server().HeaderReceived = s.markTooLarge
	app.Use(s.boundedBody)
	app.Use(s.authenticate)
	r := &routes{app: app}
	s.routes = r
	// Every source's intake (docs/sidecar.md#sources); the HMC source also
	// answers on HMC's singular path.
	s.intakePaths = map[string]bool{}
	for _, src := range s.cfg.Sources.All() {
		paths := []string{src.Path}
		if src.Name == queue.DefaultSource {
			paths = append(paths, "/webhook/notifications")
		}
		for _, p := range paths {
			r.add(fiber.MethodPost, p, s.intake(src))
			s.intakePaths[p] = true
		}
	}
	for _, p := range []string{"/webhook/notifications", "/webhooks/notifications"} {
		r.add(fiber.MethodGet, p, s.listRange)
		r.add(fiber.MethodDelete, p, s.deleteRange)
	}
	r.add(fiber.MethodPost, "/job/process-notifications", func(c *fiber.Ctx) error {
		s.jobs.TriggerProcessing()
		c.Status(fiber.StatusAccepted) // empty body, as HMC
		return nil
	})
	r.add(fiber.MethodPost, "/job/cleanup-notifications", func(c *fiber.Ctx) error {
		s.jobs.TriggerCleanup()
		c.Status(fiber.StatusAccepted)
		return nil
	})
	r.add(fiber.MethodGet, "/health", s.health)
	r.add(fiber.MethodGet, "/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(s.metrics.Reg, promhttp.HandlerOpts{})))
	r.add(fiber.MethodGet, "/datasets/notifications", s.dataset)
	s.recordRoutes(app, r)
	s.uiRoutes(app, r)
	s.managementRoutes(app, r)
	// Fiber answers a method it does not know (PROPFIND) with plain text
	// before any route runs: such requests are answered here.
	next := app.Server().Handler
	app.Server().Handler = func(ctx *fasthttp.RequestCtx) {
		if !slices.Contains(fiber.DefaultMethods, string(ctx.Method())) {
			allow := r.allowed(string(ctx.Path()))
			status, msg := fiber.StatusNotFound, fmt.Sprintf("no endpoint %s %s", quoteHeader(string(ctx.Method())), quoteHeader(string(ctx.Path())))
			if len(allow) > 0 {
				status = fiber.StatusMethodNotAllowed
				msg = notAllowedMessage(string(ctx.Method()), string(ctx.Path()), strings.Join(allow, ", "))
				ctx.Response.Header.Set(fiber.HeaderAllow, strings.Join(allow, ", "))
			}
			b, _ := marshalNoHTMLEscape(errorBody{ErrorMessage: msg})
			ctx.SetStatusCode(status)
			ctx.SetContentType(fiber.MIMEApplicationJSON)
			ctx.SetBody(b)
			return
		}
		next(ctx)
	}
	app.Use(func(c *fiber.Ctx) error {
		if allow := r.allowed(c.Path()); len(allow) > 0 {
			return methodNotAllowed(c, allow)
		}
		return jsonError(c, fiber.StatusNotFound, fmt.Sprintf("no endpoint %s %s", quoteHeader(c.Method()), quoteHeader(c.Path())))
	})
	return app
}

// methodNotAllowed answers 405 with Allow.
func methodNotAllowed(c *fiber.Ctx, allow []string) error {
	list := strings.Join(allow, ", ")
	c.Set(fiber.HeaderAllow, list)
	return jsonError(c, fiber.StatusMethodNotAllowed, notAllowedMessage(c.Method(), c.Path(), list))
}

func notAllowedMessage(method, path, allow string) string {
	return fmt.Sprintf("method %s is not allowed on %s (allowed: %s)", quoteHeader(method), quoteHeader(path), allow)
}

// routes registers handlers and remembers each path's methods, so that an
// unknown method on a known path is a 405 with Allow.
type routes struct {
	app   *fiber.App
	paths []routePath
}

type routePath struct {
	segs    []string // ":x" matches any one segment
	methods []string
}

func splitPath(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

func (r *routes) add(method, path string, h fiber.Handler) {
	r.app.Add(method, path, h)
	if method == fiber.MethodGet {
		r.app.Add(fiber.MethodHead, path, h)
	}
	segs := splitPath(path)
	for i := range r.paths {
		if slices.Equal(r.paths[i].segs, segs) {
			r.paths[i].methods = append(r.paths[i].methods, method)
			return
		}
	}
	r.paths = append(r.paths, routePath{segs: segs, methods: []string{method}})
}

// allowed lists the methods of the registered paths matching path, sorted.
func (r *routes) allowed(path string) []string {
	segs := splitPath(path)
	var out []string
	for _, rp := range r.paths {
		if len(rp.segs) != len(segs) {
			continue
		}
		match := true
		for i, s := range rp.segs {
			if !strings.HasPrefix(s, ":") && s != segs[i] {
				match = false
				break
			}
		}
		if match {
			out = append(out, rp.methods...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// errorHandler maps Fiber's errors (413 from BodyLimit, 405, …) to the
// JSON error body.
func (s *API) errorHandler(c *fiber.Ctx, err error) error {
	code := fiber.StatusInternalServerError
	msg := "internal error"
	var fe *fiber.Error
	if errors.As(err, &fe) {
		code = fe.Code
		msg = fe.Message
	}
	if code == fiber.StatusRequestEntityTooLarge {
		msg = fmt.Sprintf("body larger than CONN_MAX_BODY_BYTES (%d bytes)", s.cfg.MaxBodyBytes)
	}
	if code == fiber.StatusBadRequest && strings.Contains(msg, "error when reading request") {
		// fasthttp's message quotes the raw request bytes: not echoed.
		msg = "malformed HTTP request: the request line or a header could not be parsed"
	}
	if code >= 500 {
		s.log.Error("request failed", "method", c.Method(), "path", c.Path(), "error", err)
	}
	return jsonError(c, code, msg)
}

// authenticate requires the bearer token (when configured) on every
// endpoint but intake and /health.
func (s *API) authenticate(c *fiber.Ctx) error {
	if s.cfg.APIToken == "" {
		return c.Next()
	}
	p := strings.TrimSuffix(c.Path(), "/")
	if p == "/health" || (c.Method() == fiber.MethodPost && s.intakePaths[p]) {
		return c.Next()
	}
	auth := c.Get(fiber.HeaderAuthorization)
	// The scheme is case-insensitive (RFC 9110 §11.1).
	ok := len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ")
	got := ""
	if ok {
		got = auth[7:]
	}
	// Hashing first makes the comparison constant-time in the length too.
	want := sha256.Sum256([]byte(s.cfg.APIToken))
	have := sha256.Sum256([]byte(strings.TrimSpace(got)))
	if !ok || subtle.ConstantTimeCompare(want[:], have[:]) != 1 {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="sluice"`)
		return jsonError(c, fiber.StatusUnauthorized, "missing or invalid bearer token (Authorization: Bearer <CONN_API_TOKEN>)")
	}
	return c.Next()
}

func (s *API) health(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(s.baseCtx, 3*time.Second)
	defer cancel()
	if reason, since, down := s.metrics.Store.Down(); down {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "DOWN",
			"reason": "the store cannot commit since " + queue.FormatDate(since) + ": " + queue.TruncateText(reason, 300)})
	}
	if err := s.store.Ping(ctx); err != nil {
		s.metrics.Store.Failed("ping", false, err)
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "DOWN",
			"reason": "the store does not answer: " + queue.TruncateText(err.Error(), 300)})
	}
	out := fiber.Map{"status": "UP"}
	if open := s.jobs.OpenBreakers(); len(open) > 0 {
		b := fiber.Map{}
		for host, until := range open {
			b[host] = fiber.Map{"state": "OPEN", "until": queue.FormatDate(until)}
		}
		out["downstream"] = b
	}
	return c.JSON(out)
}

// parseRange reads from/to. With required, both must be present.
func parseRange(c *fiber.Ctx, required bool) (queue.Range, error) {
	var r queue.Range
	for _, b := range []struct {
		name string
		dst  **time.Time
	}{{"from", &r.From}, {"to", &r.To}} {
		v := c.Query(b.name)
		if strings.TrimSpace(v) == "" {
			if required {
				return r, fmt.Errorf("query parameter %q is required (ISO-8601 date-time, e.g. 2024-05-01T10:00:00Z)", b.name)
			}
			continue
		}
		t, err := queue.ParseDateTime(v)
		if err != nil {
			return r, fmt.Errorf("query parameter %q: %w", b.name, err)
		}
		*b.dst = &t
	}
	if r.From != nil && r.To != nil && r.From.After(*r.To) {
		return r, fmt.Errorf("[From] date [%s] can not be later than [To] date [%s]", hmcDate(*r.From), hmcDate(*r.To))
	}
	return r, nil
}

func (s *API) deleteRange(c *fiber.Ctx) error {
	r, err := parseRange(c, true)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	n, err := s.store.Delete(c.UserContext(), r)
	if err != nil {
		return s.storeError(c, err)
	}
	return c.JSON(fiber.Map{"deleted": n})
}

// storeError answers a store failure: 503 when unavailable, else 500; the
// detail goes to the log only.
func (s *API) storeError(c *fiber.Ctx, err error) error {
	s.metrics.Store.Failed(c.Method()+" "+c.Route().Path, c.Method() != fiber.MethodGet, err)
	if errors.Is(err, queue.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
		return jsonError(c, fiber.StatusServiceUnavailable, "notification store unavailable, retry later")
	}
	return jsonError(c, fiber.StatusInternalServerError, "notification store error")
}

// marshalNoHTMLEscape keeps '&' in HAL links and '<' in messages readable:
// the API's JSON is never embedded in HTML.
func marshalNoHTMLEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeJSON decodes a request body strictly enough to name what is wrong.
func decodeJSON(body []byte, v any) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		return errors.New("empty body: want JSON")
	}
	// A JSON null would decode to nothing at all: for the list PUT that
	// would silently delete every FAILED and RETRYING record.
	if strings.TrimSpace(string(body)) == "null" {
		return errors.New("body is JSON null: want a JSON object (or, for the list PUT, an array)")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("malformed JSON: %s", queue.DescribeJSONError(err))
	}
	return nil
}

// hmcDate formats t as HMC's error messages do: yyyy-MM-ddTHH:mm:ss, UTC.
func hmcDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }
