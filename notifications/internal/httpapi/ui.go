package httpapi

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluicedata/sluice/notifications/queue"
)

// The operator page, GET /ui/ (docs/operator-ui.md): queue depth, the last
// records with filters, a record's attempts, retry and delete. Server-side
// html/template; a few lines of JS only refresh it live.

//go:embed ui
var uiFS embed.FS

var uiPage = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000")
	},
	"datep": func(t *time.Time) string {
		if t == nil {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000")
	},
	"short": func(s string) string { return queue.Excerpt(s, 80) },
}).ParseFS(uiFS, "ui/page.html"))

// uiRecords is how many records the page lists.
const uiRecords = 100

// uiFilters are the page's filters, kept across its links and actions.
var uiFilters = []string{"source", "status", "type", "objectToken"}

// csrfKey signs the page's CSRF tokens; it lives as long as the process.
var csrfKey = func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic(fmt.Sprintf("notifications: no randomness for the CSRF key: %v", err))
	}
	return k
}()

const csrfCookie = "sluice_csrf"

// csrfToken is the form token belonging to a browser's CSRF cookie.
func csrfToken(cookie string) string {
	m := hmac.New(sha256.New, csrfKey)
	m.Write([]byte("sluice-ui-csrf\x00" + cookie))
	return hex.EncodeToString(m.Sum(nil))
}

func (s *API) uiRoutes(app *fiber.App, r *routes) {
	// The page is a management tool: the same toggle (and, in
	// authenticate, the same bearer token) as /management/**.
	app.Use("/ui", func(c *fiber.Ctx) error {
		if !s.cfg.ManagementAPI {
			return jsonError(c, fiber.StatusForbidden, "management API is disabled (the operator page is part of it)")
		}
		return c.Next()
	})
	r.add(fiber.MethodGet, "/ui/static/:file", s.uiStatic)
	r.add(fiber.MethodGet, "/ui", s.uiIndex)
	r.add(fiber.MethodPost, "/ui/records/:token/:action", s.uiAction)
}

func (s *API) uiStatic(c *fiber.Ctx) error {
	name := c.Params("file")
	types := map[string]string{"ui.css": "text/css; charset=utf-8", "ui.js": "text/javascript; charset=utf-8"}
	ct, ok := types[name]
	if !ok {
		return jsonError(c, fiber.StatusNotFound, fmt.Sprintf("no file %s", strconv.Quote(name)))
	}
	b, err := uiFS.ReadFile("ui/" + name)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, ct)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return c.Send(b)
}

type uiDepth struct {
	Status queue.Status
	N      int64
}

type uiDetail struct {
	Record   queue.Record
	Attempts []queue.Attempt
	Settled  bool
}

type uiData struct {
	Depth         []uiDepth
	OldestPending string
	Filter        queue.Query
	Filtered      bool
	StatusOptions []queue.Status
	TypeOptions   []string
	SourceOptions []string
	Records       []queue.Record
	Selected      string
	Detail        *uiDetail
	CSRF          string
	Flash         string
	RefreshURL    string
	Now           string
	base          url.Values
}

// RecordURL selects a record, keeping the filters.
func (d *uiData) RecordURL(token string) string {
	q := cloneValues(d.base)
	q.Set("token", token)
	return "/ui/?" + q.Encode()
}

// ActionURL is a record's retry or delete form target, keeping the filters.
func (d *uiData) ActionURL(token, action string) string {
	return "/ui/records/" + url.PathEscape(token) + "/" + action + "?" + d.base.Encode()
}

func cloneValues(v url.Values) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// uiFlash are the outcomes an action redirects with; only these texts show.
var uiFlash = map[string]string{
	"retried":  "The record is queued again (PENDING).",
	"deleted":  "The record is deleted.",
	"settled":  "The record is SUCCESS or OUTDATED: a retry needs force and a delete is left to the cleanup job.",
	"notfound": "The record no longer exists.",
}

func (s *API) uiIndex(c *fiber.Ctx) error {
	// Filters as in GET /webhooks/notifications; a bad one is a 400.
	q, err := s.parseQuery(c, queue.Range{})
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	if c.Query("after") != "" || c.Query("limit") != "" {
		return jsonError(c, fiber.StatusBadRequest, "the operator page shows the newest records: use GET /webhooks/notifications to page")
	}
	q.Limit, q.Newest = uiRecords, true
	ctx := c.UserContext()
	st, err := s.store.Stats(ctx)
	if err != nil {
		return s.storeError(c, err)
	}
	recs, err := s.store.Page(ctx, q)
	if errors.Is(err, queue.ErrInvalid) {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	if err != nil {
		return s.storeError(c, err)
	}
	d := &uiData{
		Filter: q, Filtered: q.Source != "" || q.Status != "" || q.Type != "" || q.ObjectToken != "",
		StatusOptions: queue.Statuses, SourceOptions: s.cfg.Sources.Names(),
		TypeOptions: []string{queue.TypeUser, queue.TypeStore, queue.TypePayment, queue.TypeTransfer, queue.TypeUnknown},
		Records:     recs, Flash: uiFlash[c.Query("done")], Now: s.now().UTC().Format("15:04:05"), base: url.Values{},
	}
	for _, name := range uiFilters {
		if v := c.Query(name); v != "" {
			d.base.Set(name, v)
		}
	}
	// The counts are the filtered source's, else the whole store's.
	depth := st.ByStatus
	if q.Source != "" {
		depth = st.BySource[q.Source]
	}
	for _, status := range queue.Statuses {
		d.Depth = append(d.Depth, uiDepth{status, depth[status]})
	}
	d.OldestPending = "—"
	if st.OldestPending != nil {
		d.OldestPending = s.now().Sub(*st.OldestPending).Truncate(time.Second).String()
	}
	refresh := cloneValues(d.base)
	if tok := c.Query("token"); tok != "" {
		if err := queue.CheckToken("token", tok); err != nil {
			return jsonError(c, fiber.StatusBadRequest, "query parameter "+err.Error())
		}
		d.Selected = tok
		refresh.Set("token", tok)
		r, err := s.store.Get(ctx, tok)
		switch {
		case err == nil:
			attempts, err := s.store.Attempts(ctx, tok)
			if err != nil && !errors.Is(err, queue.ErrNotFound) {
				return s.storeError(c, err)
			}
			d.Detail = &uiDetail{Record: r, Attempts: attempts, Settled: r.Status == queue.StatusSuccess || r.Status == queue.StatusOutdated}
		case errors.Is(err, queue.ErrNotFound):
			if d.Flash == "" {
				d.Flash = uiFlash["notfound"]
			}
		default:
			return s.storeError(c, err)
		}
	}
	refresh.Set("partial", "1")
	d.RefreshURL = "/ui/?" + refresh.Encode()

	cookie := c.Cookies(csrfCookie)
	if len(cookie) != 64 {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return err
		}
		cookie = hex.EncodeToString(b)
		c.Cookie(&fiber.Cookie{Name: csrfCookie, Value: cookie, Path: "/ui", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode})
	}
	d.CSRF = csrfToken(cookie)

	var buf bytes.Buffer
	name := "page.html"
	if c.Query("partial") != "" {
		name = "main"
	}
	if err := uiPage.ExecuteTemplate(&buf, name, d); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
	c.Set("X-Frame-Options", "DENY")
	return c.Send(buf.Bytes())
}

// uiAction is a retry or delete button: POST with the form's CSRF token,
// then back to the page.
func (s *API) uiAction(c *fiber.Ctx) error {
	cookie := c.Cookies(csrfCookie)
	want := csrfToken(cookie)
	got := c.FormValue("csrf")
	if len(cookie) != 64 || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
		return jsonError(c, fiber.StatusForbidden, "missing or invalid CSRF token: reload the operator page and try again")
	}
	token, ok, err := checkedToken(c)
	if !ok {
		return err
	}
	ctx := c.UserContext()
	done := ""
	switch c.Params("action") {
	case "retry":
		if strings.EqualFold(c.FormValue("force"), "true") {
			_, err = s.store.Requeue(ctx, token)
		} else {
			_, err = s.store.RequeueLive(ctx, token)
		}
		done = "retried"
	case "delete":
		err = s.store.RemoveLive(ctx, token)
		done = "deleted"
	default:
		return jsonError(c, fiber.StatusNotFound, fmt.Sprintf("no operator action %s", strconv.Quote(c.Params("action"))))
	}
	switch {
	case errors.Is(err, queue.ErrSettled):
		done = "settled"
	case errors.Is(err, queue.ErrNotFound):
		done = "notfound"
	case err != nil:
		return s.storeError(c, err)
	}
	q, _ := url.ParseQuery(string(c.Request().URI().QueryString()))
	back := url.Values{}
	for _, name := range uiFilters {
		if v := q.Get(name); v != "" {
			back.Set(name, v)
		}
	}
	if done != "deleted" {
		back.Set("token", token)
	}
	back.Set("done", done)
	return c.Redirect("/ui/?"+back.Encode(), fiber.StatusSeeOther)
}
