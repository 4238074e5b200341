package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sluicedata/sluice/notifications/queue"
)

// Shared by both stores' attempt history, paged listing, quarantine and
// discard ledger (docs/records-api.md).

// finishLastError is the last_error a Finish writes: the new attempt's
// error (NULL after a success), else the record's as claimed.
func finishLastError(rec *queue.Record) any {
	if rec.Attempt != nil {
		return nullText(rec.Attempt.Error)
	}
	return nullText(rec.LastError)
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func checkQuery(q queue.Query) error {
	if q.Limit < 1 {
		return invalidf("page: limit %d: want at least 1", q.Limit)
	}
	if q.Status != "" && !q.Status.Valid() {
		return invalidf("page: unknown status %q", q.Status)
	}
	for _, f := range []struct{ name, v string }{{"source", q.Source}, {"type", q.Type}, {"objectToken", q.ObjectToken}} {
		if err := checkText("page: "+f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

// prepareQuarantine validates an entry and fills its defaults on a copy the
// writer may keep after the caller gave up. Postgres text refuses NUL
// bytes and invalid UTF-8: the reason and headers are made safe text, the
// body stays bytes.
func prepareQuarantine(q *queue.Quarantined, keep int, now time.Time) (*queue.Quarantined, error) {
	if q == nil {
		return nil, invalidf("quarantine: nil entry")
	}
	if keep < 1 {
		return nil, invalidf("quarantine: keep %d: want at least 1", keep)
	}
	c := *q
	if c.ReceivedAt.IsZero() {
		c.ReceivedAt = now
	}
	c.ReceivedAt = queue.Truncate(c.ReceivedAt)
	c.Body = append([]byte(nil), q.Body...)
	c.Size = len(c.Body)
	c.Reason = safeText(c.Reason)
	if c.Source == "" {
		c.Source = queue.DefaultSource
	}
	c.Source = safeText(c.Source)
	c.Headers = make(map[string]string, len(q.Headers))
	for k, v := range q.Headers {
		c.Headers[safeText(k)] = safeText(v)
	}
	return &c, nil
}

// quarantineVia is both stores' Quarantine: it checks q, hands it to the
// store's quarantine writer and fills q in as kept.
func quarantineVia(ctx context.Context, w *writer, now time.Time, q *queue.Quarantined, keep int) error {
	c, err := prepareQuarantine(q, keep, now)
	if err != nil {
		return err
	}
	res, err := w.send(ctx, &intakeReq{ctx: ctx, q: c, keep: keep, done: make(chan intakeResp, 1)})
	if err != nil {
		return err
	}
	c.ID = res.ID
	*q = *c
	return nil
}

func encodeHeaders(h map[string]string) (string, error) {
	b, err := json.Marshal(h)
	return string(b), err
}

// safeText replaces NUL bytes and invalid UTF-8 so any text can be stored.
func safeText(s string) string {
	out := []rune(s) // invalid bytes become U+FFFD
	for i, r := range out {
		if r == 0 {
			out[i] = '\uFFFD'
		}
	}
	return string(out)
}

func decodeHeaders(s string) map[string]string {
	h := map[string]string{}
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return map[string]string{"_unreadable": fmt.Sprintf("stored headers are not JSON: %v", err)}
	}
	return h
}

// ledgerEntry is one discard of a batch, for the ledger insert.
type ledgerEntry struct {
	source, token, reason, winner string
	at                            time.Time
}

// discardsOf lists the ledger entries of a batch's results, one per token
// (the last discard of a token wins, as the upsert would).
func discardsOf(reqs []*intakeReq, res []queue.EnqueueResult) []ledgerEntry {
	var out []ledgerEntry
	index := map[string]int{}
	for i := range res {
		var reason string
		switch res[i].Outcome {
		case queue.DiscardedDuplicate:
			reason = queue.ReasonDuplicate
		case queue.DiscardedObsolete:
			reason = queue.ReasonObsolete
		default:
			continue
		}
		r := reqs[i].rec
		e := ledgerEntry{source: r.Source, token: r.WebhookToken, reason: reason, winner: res[i].Winner, at: r.ReceptionDate}
		if j, ok := index[e.token]; ok {
			out[j] = e
			continue
		}
		index[e.token] = len(out)
		out = append(out, e)
	}
	return out
}

// quarantineKeep is the smallest keep of a quarantine batch.
func quarantineKeep(reqs []*intakeReq) int {
	keep := reqs[0].keep
	for _, r := range reqs[1:] {
		keep = min(keep, r.keep)
	}
	return keep
}
