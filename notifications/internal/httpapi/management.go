package httpapi

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluicedata/sluice/notifications/queue"
)

// dtoIn is a management request body: nil fields were absent (or null).
type dtoIn struct {
	NotificationToken *string `json:"notificationToken"`
	Type              *string `json:"type"`
	Target            *string `json:"target"`
	Program           *string `json:"program"`
	RetryCounter      *int    `json:"retryCounter"`
	CreationDate      *string `json:"creationDate"`
	Status            *string `json:"status"`
	Source            *string `json:"source"`
}

func (d *dtoIn) creationDate() (*time.Time, error) {
	if d.CreationDate == nil {
		return nil, nil
	}
	t, err := queue.ParseDateTime(*d.CreationDate)
	if err != nil {
		return nil, fmt.Errorf("creationDate: %w", err)
	}
	return &t, nil
}

// record builds a new FAILED record from a POST or a list PUT body; its
// source is the body's, else src.
func (s *API) record(d *dtoIn, src string, now time.Time, keepStatus bool) (queue.Record, error) {
	if d.NotificationToken == nil || strings.TrimSpace(*d.NotificationToken) == "" {
		return queue.Record{}, errors.New(`"notificationToken" is required`)
	}
	if err := d.checkTexts(); err != nil {
		return queue.Record{}, err
	}
	now = queue.Truncate(now)
	r := queue.Record{WebhookToken: *d.NotificationToken, Status: queue.StatusFailed, ReceptionDate: now, CreationDate: now,
		Source: src}
	if d.Source != nil && *d.Source != "" {
		src, err := s.sourceParam(*d.Source)
		if err != nil {
			return queue.Record{}, fmt.Errorf("source: %w", err)
		}
		r.Source = src
	}
	if d.Target != nil {
		r.ObjectToken = *d.Target
	}
	if d.Program != nil {
		r.Program = *d.Program
	}
	switch {
	case d.Type != nil && *d.Type != "":
		r.NotificationType = typeOf(r.Source, *d.Type)
	case r.Source == queue.DefaultSource:
		r.NotificationType = queue.TypeOf(r.ObjectToken)
	}
	if d.RetryCounter != nil {
		r.RetryCounter = *d.RetryCounter
	}
	cd, err := d.creationDate()
	if err != nil {
		return queue.Record{}, err
	}
	if cd != nil {
		r.CreationDate = *cd
	}
	if keepStatus && d.Status != nil && *d.Status != "" {
		switch st := queue.Status(strings.ToUpper(*d.Status)); st {
		case queue.StatusFailed, queue.StatusRetrying:
			r.Status = st
		default:
			return queue.Record{}, fmt.Errorf("status of %q must be FAILED or RETRYING, got %q", r.WebhookToken, *d.Status)
		}
	}
	return r, nil
}

// typeOf is a type a manager sends for a record of src: HMC's types
// normalized for the HMC source, any other source's as given.
func typeOf(src, t string) string {
	if src == queue.DefaultSource {
		return normalizeType(t)
	}
	return t
}

// normalizeType upper-cases a type; anything but the known types is UNK.
func normalizeType(t string) string {
	switch u := strings.ToUpper(strings.TrimSpace(t)); u {
	case queue.TypeUser, queue.TypeStore, queue.TypePayment, queue.TypeTransfer, queue.TypeUnknown:
		return u
	}
	return queue.TypeUnknown
}

const managementBase = "/management/failed-notifications"

func (s *API) managementRoutes(app *fiber.App, r *routes) {
	app.Use("/management", func(c *fiber.Ctx) error {
		if !s.cfg.ManagementAPI {
			return jsonError(c, fiber.StatusForbidden, "management API is disabled")
		}
		return c.Next()
	})
	r.add(fiber.MethodGet, managementBase, s.mgmtList)
	r.add(fiber.MethodPost, managementBase, s.mgmtCreate)
	r.add(fiber.MethodPut, managementBase, s.mgmtReplace)
	r.add(fiber.MethodGet, managementBase+"/:token", s.mgmtGet)
	r.add(fiber.MethodPut, managementBase+"/:token", s.mgmtUpdate)
	r.add(fiber.MethodDelete, managementBase+"/:token", s.mgmtDelete)
	r.add(fiber.MethodPost, managementBase+"/:token/retry", s.mgmtRetry)
}

func tokenParam(c *fiber.Ctx) string {
	t, err := url.PathUnescape(c.Params("token"))
	if err != nil {
		return c.Params("token")
	}
	return t
}

// checkedToken is the path's token, or a 400 answer (too long, NUL, not
// UTF-8) with ok false.
func checkedToken(c *fiber.Ctx) (tok string, ok bool, err error) {
	tok = tokenParam(c)
	if cerr := queue.CheckToken("token", tok); cerr != nil {
		return "", false, jsonError(c, fiber.StatusBadRequest, "path parameter "+cerr.Error())
	}
	return tok, true, nil
}

// maxRetryCounter bounds retryCounter in management bodies.
const maxRetryCounter = 1000

func checkRetryCounter(n *int) error {
	if n != nil && (*n < 0 || *n > maxRetryCounter) {
		return fmt.Errorf("retryCounter must be between 0 and %d, got %d", maxRetryCounter, *n)
	}
	return nil
}

// checkTexts refuses management fields no store could keep as given.
func (d *dtoIn) checkTexts() error {
	for _, f := range []struct {
		name string
		v    *string
	}{{"notificationToken", d.NotificationToken}, {"target", d.Target}, {"program", d.Program}, {"type", d.Type}, {"source", d.Source}} {
		if f.v == nil {
			continue
		}
		if err := queue.CheckToken(f.name, *f.v); err != nil {
			return err
		}
	}
	return checkRetryCounter(d.RetryCounter)
}

// halPage is the Spring-HATEOAS-shaped page.
type halPage struct {
	Embedded map[string][]queue.DTO    `json:"_embedded"`
	Links    map[string]map[string]any `json:"_links"`
	Page     pageInfo                  `json:"page"`
}

type pageInfo struct {
	Size          int   `json:"size"`
	TotalElements int64 `json:"totalElements"`
	TotalPages    int64 `json:"totalPages"`
	Number        int   `json:"number"`
}

func queryInt(c *fiber.Ctx, name string, def, min, max int) (int, error) {
	v := c.Query(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("query parameter %q must be an integer, got %q", name, v)
	}
	if n < min || n > max {
		return 0, fmt.Errorf("query parameter %q must be between %d and %d, got %d", name, min, max, n)
	}
	return n, nil
}

func (s *API) mgmtList(c *fiber.Ctx) error {
	page, err := queryInt(c, "page", 0, 0, 1<<30)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	size, err := queryInt(c, "size", 20, 1, 1000)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	for _, q := range []string{"target", "type", "source"} {
		if err := queue.CheckToken(q, c.Query(q)); err != nil {
			return jsonError(c, fiber.StatusBadRequest, "query parameter "+err.Error())
		}
	}
	f := queue.FailedFilter{Target: c.Query("target")}
	if v := c.Query("source"); v != "" {
		if f.Source, err = s.sourceParam(v); err != nil {
			return jsonError(c, fiber.StatusBadRequest, `query parameter "source": `+err.Error())
		}
	}
	if t := c.Query("type"); t != "" {
		// HMC's rule (an unknown type matches UNK) holds where only HMC
		// records can match: for the HMC source, or with no other source.
		f.Type = t
		if f.Source == queue.DefaultSource || (f.Source == "" && len(s.cfg.Sources.All()) == 1) {
			f.Type = normalizeType(t)
		} else if u := strings.ToUpper(t); normalizeType(u) == u {
			f.Type = u
		}
	}
	recs, total, err := s.store.ListFailed(c.UserContext(), f, page*size, size)
	if err != nil {
		return s.storeError(c, err)
	}
	items := make([]queue.DTO, len(recs))
	for i := range recs {
		items[i] = queue.ToDTO(&recs[i])
	}
	totalPages := (total + int64(size) - 1) / int64(size)
	link := func(p int64) map[string]any {
		q := url.Values{}
		q.Set("page", strconv.FormatInt(p, 10))
		q.Set("size", strconv.Itoa(size))
		if f.Type != "" {
			q.Set("type", c.Query("type"))
		}
		if f.Target != "" {
			q.Set("target", f.Target)
		}
		if f.Source != "" {
			q.Set("source", f.Source)
		}
		return map[string]any{"href": c.BaseURL() + managementBase + "/?" + q.Encode()}
	}
	last := max(totalPages-1, 0)
	links := map[string]map[string]any{
		"self":  link(int64(page)),
		"first": link(0),
		"last":  link(last),
	}
	if int64(page) < last {
		links["next"] = link(int64(page) + 1)
	}
	if page > 0 {
		links["prev"] = link(min(int64(page)-1, last))
	}
	return c.JSON(halPage{
		Embedded: map[string][]queue.DTO{"failed-notifications": items},
		Links:    links,
		Page:     pageInfo{Size: size, TotalElements: total, TotalPages: totalPages, Number: page},
	})
}

func (s *API) mgmtGet(c *fiber.Ctx) error {
	tok, ok, err := checkedToken(c)
	if !ok {
		return err
	}
	r, err := s.store.Get(c.UserContext(), tok)
	if err != nil {
		return s.mgmtStoreError(c, err)
	}
	return c.JSON(queue.ToDTO(&r))
}

func (s *API) mgmtCreate(c *fiber.Ctx) error {
	var in dtoIn
	if err := decodeJSON(c.Body(), &in); err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	rec, err := s.record(&in, queue.DefaultSource, s.now(), false)
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	if err := s.store.Insert(c.UserContext(), &rec); err != nil {
		return s.mgmtStoreError(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(queue.ToDTO(&rec))
}

func (s *API) mgmtUpdate(c *fiber.Ctx) error {
	tok, ok, err := checkedToken(c)
	if !ok {
		return err
	}
	var in dtoIn
	if err := decodeJSON(c.Body(), &in); err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	p := queue.Patch{ObjectToken: in.Target, Program: in.Program, RetryCounter: in.RetryCounter}
	if err := in.checkTexts(); err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	if in.Type != nil {
		// The record's source decides how its type is read.
		cur, err := s.store.Get(c.UserContext(), tok)
		if err != nil {
			return s.mgmtStoreError(c, err)
		}
		t := typeOf(cur.SourceName(), *in.Type)
		p.NotificationType = &t
	}
	cd, err := in.creationDate()
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	p.CreationDate = cd
	r, err := s.store.Update(c.UserContext(), tok, p)
	if err != nil {
		return s.mgmtStoreError(c, err)
	}
	return c.JSON(queue.ToDTO(&r))
}

func (s *API) mgmtReplace(c *fiber.Ctx) error {
	var in []dtoIn
	if err := decodeJSON(c.Body(), &in); err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	now := s.now()
	recs := make([]queue.Record, len(in))
	seen := make(map[string]bool, len(in))
	for i := range in {
		// A record kept by the list keeps its source unless the item names one.
		src := queue.DefaultSource
		if in[i].NotificationToken != nil && in[i].Source == nil && queue.CheckToken("notificationToken", *in[i].NotificationToken) == nil {
			if cur, err := s.store.Get(c.UserContext(), *in[i].NotificationToken); err == nil {
				src = cur.SourceName()
			} else if !errors.Is(err, queue.ErrNotFound) {
				return s.mgmtStoreError(c, err)
			}
		}
		r, err := s.record(&in[i], src, now, true)
		if err != nil {
			return jsonError(c, fiber.StatusBadRequest, fmt.Sprintf("item %d: %v", i, err))
		}
		if seen[r.WebhookToken] {
			return jsonError(c, fiber.StatusBadRequest, fmt.Sprintf("item %d: notificationToken %q is repeated", i, r.WebhookToken))
		}
		seen[r.WebhookToken] = true
		recs[i] = r
	}
	if err := s.store.ReplaceFailed(c.UserContext(), recs); err != nil {
		return s.mgmtStoreError(c, err)
	}
	out := make([]queue.DTO, len(recs))
	for i := range recs {
		out[i] = queue.ToDTO(&recs[i])
	}
	return c.JSON(out)
}

func (s *API) mgmtDelete(c *fiber.Ctx) error {
	tok, ok, err := checkedToken(c)
	if !ok {
		return err
	}
	// SUCCESS and OUTDATED records are the cleanup job's (409).
	if err := s.store.RemoveLive(c.UserContext(), tok); err != nil {
		return s.mgmtStoreError(c, err)
	}
	c.Status(fiber.StatusOK)
	return nil
}

func (s *API) mgmtRetry(c *fiber.Ctx) error {
	tok, ok, err := checkedToken(c)
	if !ok {
		return err
	}
	force, err := queryBool(c, "force")
	if err != nil {
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	// A SUCCESS or OUTDATED record is re-queued only with force=true (409).
	requeue := s.store.RequeueLive
	if force {
		requeue = s.store.Requeue
	}
	r, err := requeue(c.UserContext(), tok)
	if err != nil {
		return s.mgmtStoreError(c, err)
	}
	return c.JSON(queue.ToDTO(&r))
}

func (s *API) mgmtStoreError(c *fiber.Ctx, err error) error {
	switch {
	case errors.Is(err, queue.ErrNotFound):
		return jsonError(c, fiber.StatusNotFound, fmt.Sprintf("notification %q not found", tokenParam(c)))
	case errors.Is(err, queue.ErrExists):
		return jsonError(c, fiber.StatusConflict, "a notification with that notificationToken already exists")
	case errors.Is(err, queue.ErrInvalid):
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	case errors.Is(err, queue.ErrDuplicate):
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	case errors.Is(err, queue.ErrConflict):
		return jsonError(c, fiber.StatusConflict, err.Error())
	case errors.Is(err, queue.ErrSettled):
		return jsonError(c, fiber.StatusConflict, settledMessage(err, tokenParam(c)))
	}
	return s.storeError(c, err)
}
