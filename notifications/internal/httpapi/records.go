package httpapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/internal/suggest"
	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/source"
)

// The records API: one record with its attempts (or its discard), the
// paged listing and the quarantine (docs/records-api.md).

// Paging bounds of GET /webhooks/notifications and the quarantine listing.
const (
	defaultPageLimit       = 1000
	maxPageLimit           = 10000
	defaultQuarantineLimit = 100
	maxQuarantineLimit     = 1000
	quarantineExcerpt      = 256
)

func (s *API) recordRoutes(app *fiber.App, r *routes) {
	for _, p := range []string{"/webhook/notifications", "/webhooks/notifications"} {
		r.add(fiber.MethodGet, p+"/:token", s.getRecord)
	}
	r.add(fiber.MethodGet, "/management/quarantine", s.listQuarantine)
	r.add(fiber.MethodGet, "/management/quarantine/:id", s.getQuarantined)
	r.add(fiber.MethodDelete, "/management/quarantine/:id", s.deleteQuarantined)
	r.add(fiber.MethodPost, "/management/quarantine/:id/reparse", s.reparse)
}

// attemptJSON is an attempt's wire form.
type attemptJSON struct {
	Attempt    int     `json:"attempt"`
	At         *string `json:"at"`
	Outcome    string  `json:"outcome"`
	HTTPStatus *int    `json:"httpStatus"`
	DurationMS int64   `json:"durationMs"`
	Error      *string `json:"error"`
}

func toAttemptJSON(a queue.Attempt) attemptJSON {
	j := attemptJSON{Attempt: a.Attempt, At: queue.DateText(a.At), Outcome: a.Outcome, DurationMS: a.DurationMS}
	if a.HTTPStatus != 0 {
		j.HTTPStatus = &a.HTTPStatus
	}
	if a.Error != "" {
		j.Error = &a.Error
	}
	return j
}

// discardJSON is a ledger entry's wire form.
type discardJSON struct {
	Source string  `json:"source"`
	Token  string  `json:"token"`
	Reason string  `json:"reason"`
	Winner string  `json:"winner"`
	At     *string `json:"at"`
}

// recordDetail is the record's JSON with lastError and attempts appended.
func recordDetail(r *queue.Record, attempts []queue.Attempt) ([]byte, error) {
	rec := queue.AppendRecordJSON(make([]byte, 0, 512), r)
	var lastErr *string
	if r.LastError != "" {
		lastErr = &r.LastError
	}
	list := make([]attemptJSON, len(attempts))
	for i, a := range attempts {
		list[i] = toAttemptJSON(a)
	}
	extra, err := marshalNoHTMLEscape(struct {
		LastError *string       `json:"lastError"`
		Attempts  []attemptJSON `json:"attempts"`
	}{lastErr, list})
	if err != nil {
		return nil, err
	}
	// {record…} + {"lastError":…} → {record…,"lastError":…}
	return append(append(rec[:len(rec)-1], ','), extra[1:]...), nil
}

// getRecord is GET /webhooks/notifications/{token}: the record with its
// attempts, or the discard ledger's entry of a discarded delivery.
func (s *API) getRecord(c *fiber.Ctx) error {
	token, ok, err := checkedToken(c)
	if !ok {
		return err
	}
	ctx := c.UserContext()
	r, err := s.store.Get(ctx, token)
	if errors.Is(err, queue.ErrNotFound) {
		d, derr := s.store.Discarded(ctx, token)
		if errors.Is(derr, queue.ErrNotFound) {
			return jsonError(c, fiber.StatusNotFound, fmt.Sprintf("notification %s not found (neither stored nor discarded)", strconv.Quote(token)))
		}
		if derr != nil {
			return s.storeError(c, derr)
		}
		return c.JSON(fiber.Map{"discarded": discardJSON{Source: d.Source, Token: d.Token, Reason: d.Reason, Winner: d.Winner,
			At: queue.DateText(d.At)}})
	}
	if err != nil {
		return s.storeError(c, err)
	}
	attempts, err := s.store.Attempts(ctx, token)
	if err != nil && !errors.Is(err, queue.ErrNotFound) { // deleted meanwhile: no attempts
		return s.storeError(c, err)
	}
	body, err := recordDetail(&r, attempts)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}

// textParam reads a query parameter that must be valid UTF-8 without NUL.
func textParam(c *fiber.Ctx, name string) (string, error) {
	v := c.Query(name)
	if !utf8.ValidString(v) || strings.IndexByte(v, 0) >= 0 {
		return "", fmt.Errorf("query parameter %q must be UTF-8 text without NUL characters", name)
	}
	return v, nil
}

// parseQuery reads the listing's filters and paging parameters.
func (s *API) parseQuery(c *fiber.Ctx, r queue.Range) (queue.Query, error) {
	q := queue.Query{Range: r}
	var err error
	if q.Limit, err = queryInt(c, "limit", defaultPageLimit, 1, maxPageLimit); err != nil {
		return q, err
	}
	for _, name := range []string{"source", "status", "type", "objectToken", "after"} {
		v, err := textParam(c, name)
		if err != nil {
			return q, err
		}
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		switch name {
		case "source":
			if q.Source, err = s.sourceParam(v); err != nil {
				return q, fmt.Errorf("query parameter \"source\": %w", err)
			}
		case "status":
			q.Status = queue.Status(strings.ToUpper(v))
			if !q.Status.Valid() {
				return q, fmt.Errorf("query parameter \"status\" must be one of PENDING, RETRYING, SUCCESS, FAILED, OUTDATED, got %s", strconv.Quote(queue.Excerpt(v, 64)))
			}
		case "type":
			// Any value (a source's types are its provider's); HMC's
			// types in any case.
			q.Type = v
			if u := strings.ToUpper(v); normalizeType(u) == u {
				q.Type = u
			}
			if err := queue.CheckToken("type", v); err != nil {
				return q, fmt.Errorf("query parameter %w", err)
			}
		case "objectToken":
			q.ObjectToken = v
		case "after":
			cur, err := decodeCursor(v)
			if err != nil {
				return q, err
			}
			q.After = &cur
		}
	}
	return q, nil
}

// sourceParam checks a source filter: a configured source's name.
func (s *API) sourceParam(v string) (string, error) {
	if _, ok := s.cfg.Sources.Get(v); ok {
		return v, nil
	}
	names := s.cfg.Sources.Names()
	return "", fmt.Errorf("no source %s%s (sources: %s)", strconv.Quote(queue.Excerpt(v, 64)),
		suggest.Phrase(v, names), strings.Join(names, ", "))
}

// A cursor is opaque to clients: base64url of "<receptionMs>.<id>".
func encodeCursor(r *queue.Record) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%d.%d", r.ReceptionDate.UnixMilli(), r.ID))
}

func decodeCursor(v string) (queue.Cursor, error) {
	bad := fmt.Errorf("query parameter \"after\" is not a cursor this API returned (use the \"Next\" header or the Link rel=\"next\" URL)")
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return queue.Cursor{}, bad
	}
	msText, idText, ok := strings.Cut(string(raw), ".")
	if !ok {
		return queue.Cursor{}, bad
	}
	msv, err1 := strconv.ParseInt(msText, 10, 64)
	id, err2 := strconv.ParseInt(idText, 10, 64)
	if err1 != nil || err2 != nil || id < 0 {
		return queue.Cursor{}, bad
	}
	return queue.Cursor{Reception: time.UnixMilli(msv).UTC(), ID: id}, nil
}

// listRange is GET /webhooks/notifications: the records received within
// from–to, a page at a time (docs/records-api.md#paging).
func (s *API) listRange(c *fiber.Ctx) error {
	r, err := parseRange(c, true)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	q, err := s.parseQuery(c, r)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	limit := q.Limit
	q.Limit++ // one more tells whether a next page exists
	recs, err := s.store.Page(c.UserContext(), q)
	if errors.Is(err, queue.ErrInvalid) {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	if err != nil {
		return s.storeError(c, err)
	}
	if len(recs) > limit {
		recs = recs[:limit]
		next := encodeCursor(&recs[limit-1])
		c.Set("Next", next)
		c.Set(fiber.HeaderLink, fmt.Sprintf(`<%s>; rel="next"`, nextURL(c, "after", next)))
	}
	buf := make([]byte, 0, 64+len(recs)*300)
	buf = append(buf, '[')
	for i := range recs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = queue.AppendRecordJSON(buf, &recs[i])
	}
	buf = append(buf, ']')
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(buf)
}

// nextURL is the request's URL with param set to value.
func nextURL(c *fiber.Ctx, param, value string) string {
	q, err := url.ParseQuery(string(c.Request().URI().QueryString()))
	if err != nil {
		q = url.Values{}
	}
	q.Set(param, value)
	return c.BaseURL() + c.Path() + "?" + q.Encode()
}

// quarantinedJSON is a quarantine entry's wire form: the listing carries
// an excerpt, the single entry the whole body.
type quarantinedJSON struct {
	ID         int64             `json:"id"`
	Source     string            `json:"source"`
	ReceivedAt *string           `json:"receivedAt"`
	Reason     string            `json:"reason"`
	Headers    map[string]string `json:"headers"`
	Size       int               `json:"size"`
	Excerpt    *string           `json:"excerpt,omitempty"`
	Body       *string           `json:"body,omitempty"`
	BodyBase64 *string           `json:"bodyBase64,omitempty"`
}

func toQuarantinedJSON(q *queue.Quarantined, full bool) quarantinedJSON {
	j := quarantinedJSON{ID: q.ID, Source: q.Source, ReceivedAt: queue.DateText(q.ReceivedAt), Reason: q.Reason,
		Headers: q.Headers, Size: q.Size}
	text := strings.ToValidUTF8(string(q.Body), "\uFFFD")
	if !full {
		j.Excerpt = &text
		return j
	}
	b64 := base64.StdEncoding.EncodeToString(q.Body)
	j.BodyBase64 = &b64
	if utf8.Valid(q.Body) {
		j.Body = &text
	}
	return j
}

func (s *API) listQuarantine(c *fiber.Ctx) error {
	limit, err := queryInt(c, "limit", defaultQuarantineLimit, 1, maxQuarantineLimit)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	var before int64
	if v := strings.TrimSpace(c.Query("after")); v != "" {
		raw, derr := base64.RawURLEncoding.DecodeString(v)
		n, perr := strconv.ParseInt(string(raw), 10, 64)
		if derr != nil || perr != nil || n < 1 {
			return jsonError(c, fiber.StatusBadRequest, `query parameter "after" is not a cursor this API returned (use "next")`)
		}
		before = n
	}
	list, err := s.store.ListQuarantine(c.UserContext(), before, limit+1, quarantineExcerpt)
	if err != nil {
		return s.storeError(c, err)
	}
	var next *string
	if len(list) > limit {
		list = list[:limit]
		n := base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(list[limit-1].ID, 10)))
		next = &n
		c.Set(fiber.HeaderLink, fmt.Sprintf(`<%s>; rel="next"`, nextURL(c, "after", n)))
	}
	items := make([]quarantinedJSON, len(list))
	for i := range list {
		items[i] = toQuarantinedJSON(&list[i], false)
	}
	return c.JSON(fiber.Map{"items": items, "next": next})
}

// quarantineID reads the {id} path parameter.
func quarantineID(c *fiber.Ctx) (int64, error) {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("quarantine id must be a positive integer, got %s", strconv.Quote(queue.Excerpt(c.Params("id"), 64)))
	}
	return id, nil
}

func (s *API) quarantineStoreError(c *fiber.Ctx, id int64, err error) error {
	if errors.Is(err, queue.ErrNotFound) {
		return jsonError(c, fiber.StatusNotFound, fmt.Sprintf("no quarantined body %d", id))
	}
	return s.storeError(c, err)
}

func (s *API) getQuarantined(c *fiber.Ctx) error {
	id, err := quarantineID(c)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	q, err := s.store.GetQuarantined(c.UserContext(), id)
	if err != nil {
		return s.quarantineStoreError(c, id, err)
	}
	return c.JSON(toQuarantinedJSON(&q, true))
}

func (s *API) deleteQuarantined(c *fiber.Ctx) error {
	id, err := quarantineID(c)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	if err := s.store.RemoveQuarantined(c.UserContext(), id); err != nil {
		return s.quarantineStoreError(c, id, err)
	}
	return c.JSON(fiber.Map{"deleted": id})
}

// reparse is POST /management/quarantine/{id}/reparse: intake runs again
// on the kept body, or on the corrected body the request carries. Once
// the delivery is stored (or discarded) the entry is removed; a body that
// is still refused leaves it as it was.
func (s *API) reparse(c *fiber.Ctx) error {
	id, err := quarantineID(c)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	ctx := c.UserContext()
	q, err := s.store.GetQuarantined(ctx, id)
	if err != nil {
		return s.quarantineStoreError(c, id, err)
	}
	src, ok := s.cfg.Sources.Get(q.Source)
	if !ok {
		return jsonError(c, fiber.StatusConflict, fmt.Sprintf("quarantined body %d came in through source %s, which is not configured now",
			id, strconv.Quote(q.Source)))
	}
	body := q.Body
	if len(c.Body()) > 0 {
		body = c.Body() // Map copies it
	}
	// The signature was checked when the body came in (or the body is an
	// operator's correction): the map stage runs again, with the headers
	// kept.
	rec, err := src.Map(body, storedHeaders(q.Headers), s.now())
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, fmt.Sprintf("quarantined body %d is still refused: %v", id, err))
	}
	res, err := s.store.Enqueue(ctx, &rec)
	if errors.Is(err, queue.ErrInvalid) {
		return jsonError(c, fiber.StatusBadRequest, fmt.Sprintf("quarantined body %d is still refused: %v", id, err))
	}
	if err != nil {
		return s.storeError(c, err)
	}
	countEnqueue(s.metrics.For(src.Name), res)
	if err := s.store.RemoveQuarantined(ctx, id); err != nil && !errors.Is(err, queue.ErrNotFound) {
		s.log.Warn("reparse: the delivery is stored but its quarantine entry stays", "id", id, "error", err)
	}
	out := fiber.Map{"webhookToken": rec.WebhookToken, "source": src.Name, "outcome": outcomeName(res.Outcome)}
	if res.Winner != "" {
		out["winner"] = res.Winner
	}
	return c.JSON(out)
}

func outcomeName(o queue.Outcome) string {
	switch o {
	case queue.DiscardedDuplicate:
		return queue.ReasonDuplicate
	case queue.DiscardedObsolete:
		return queue.ReasonObsolete
	}
	return "stored"
}

// storedHeaders reads quarantined headers by name, case-insensitively.
type storedHeaders map[string]string

func (h storedHeaders) Get(name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// quarantineRequest keeps a body intake refused with 400, with its headers
// minus credentials and signatures. A failure is logged only: the answer
// stays the 400.
func (s *API) quarantineRequest(c *fiber.Ctx, src *source.Source, reason string) {
	hdr := map[string]string{}
	c.Request().Header.VisitAll(func(k, v []byte) {
		name := string(k)
		switch strings.ToLower(name) {
		case "authorization", "proxy-authorization", "cookie", "x-sluice-signature", "x-sluice-timestamp":
			return
		}
		lower := strings.ToLower(name)
		if connectors.IsSecretKey(name) || strings.Contains(lower, "signature") || strings.Contains(lower, "hmac") ||
			src.IsSignatureHeader(name) {
			return
		}
		if prev, ok := hdr[name]; ok {
			v = append([]byte(prev+", "), v...)
		}
		hdr[name] = string(v)
	})
	q := &queue.Quarantined{ReceivedAt: s.now(), Source: src.Name, Reason: reason, Headers: hdr, Body: c.Body()}
	ctx, cancel := context.WithTimeout(s.baseCtx, 5*time.Second)
	defer cancel()
	// A full disk under a flood of bad bodies must not flood the log:
	// failures are logged once a minute with a count, and mark the store
	// down like any failed commit (/health).
	if err := s.store.Quarantine(ctx, q, s.cfg.QuarantineMax); err != nil {
		s.metrics.Store.Failed("quarantine a refused body", true, err)
		return
	}
	s.metrics.Store.Committed()
}

// queryBool reads an optional boolean query parameter.
func queryBool(c *fiber.Ctx, name string) (bool, error) {
	v := strings.TrimSpace(c.Query(name))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("query parameter %q must be true or false, got %s", name, strconv.Quote(queue.Excerpt(v, 64)))
	}
	return b, nil
}

// settledMessage is the 409 of a retry or delete of a SUCCESS or OUTDATED
// record.
func settledMessage(err error, token string) string {
	status := queue.Status("SUCCESS or OUTDATED")
	var se *queue.SettledError
	if errors.As(err, &se) {
		status = se.Status
	}
	return fmt.Sprintf("notification %s is %s: a retry needs ?force=true; a delete is left to the cleanup job",
		strconv.Quote(token), status)
}
