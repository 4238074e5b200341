package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
)

// from is a delivery of a source, typed as its provider names types.
func from(source, token, object, typ string, created time.Time) *queue.Record {
	r := Delivery(token, object, created)
	r.Source, r.NotificationType = source, typ
	return r
}

// runSources checks webhook sources (docs/sidecar.md#sources): every
// record, discard and quarantined body keeps its source; the obsolete and
// supersede rules compare records of one source; tokens are unique across
// sources; the listings filter by source.
func runSources(t *testing.T, tg Target, open opener) {
	t.Run("SourceKept", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		enqueue(t, s, Delivery("wbh-hmc", "usr-1", T0))
		r := from("stripe", "evt_1", "pi_1", "payment_intent.succeeded", T0)
		r.Program = ""
		res := enqueue(t, s, r)
		require.Equal(t, queue.Stored, res.Outcome)
		require.Equal(t, "stripe", r.Source, "the record as stored")
		got := mustGet(t, s, "evt_1")
		require.Equal(t, "stripe", got.Source)
		require.Equal(t, "payment_intent.succeeded", got.NotificationType, "a source's type is kept as sent")
		require.Empty(t, got.Program)
		require.Equal(t, queue.DefaultSource, mustGet(t, s, "wbh-hmc").Source, "no source is the HMC source")

		// A source's delivery without a type keeps none: HMC's derivation is
		// the HMC source's.
		untyped := from("github", "d-1", "", "", T0)
		enqueue(t, s, untyped)
		require.Empty(t, mustGet(t, s, "d-1").NotificationType)

		recs, err := s.Page(Ctx(t), queue.Query{Source: "stripe", Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []string{"evt_1"}, tokens(recs))
		recs, err = s.Page(Ctx(t), queue.Query{Source: queue.DefaultSource, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []string{"wbh-hmc"}, tokens(recs))
		var scanned []string
		require.NoError(t, s.Scan(Ctx(t), queue.Range{}, func(r *queue.Record) error {
			scanned = append(scanned, r.Source)
			return nil
		}))
		require.Equal(t, []string{queue.DefaultSource, "stripe", "github"}, scanned)
		claimed, err := s.Claim(Ctx(t), T0.Add(time.Hour), 10)
		require.NoError(t, err)
		for _, c := range claimed {
			require.NotEmpty(t, c.Source, c.WebhookToken)
		}
	})

	t.Run("RulesArePerSource", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		typ := "customer.updated"
		enqueue(t, s, from("stripe-eu", "eu-1", "cus_1", typ, T0))
		// Later, from another source: supersedes nothing there.
		require.Equal(t, queue.Stored, enqueue(t, s, from("stripe-us", "us-1", "cus_1", typ, T0.Add(time.Hour))).Outcome)
		require.Equal(t, queue.StatusPending, mustGet(t, s, "eu-1").Status)
		// Earlier than us-1, but in its own source the newest: stored.
		res := enqueue(t, s, from("stripe-eu", "eu-2", "cus_1", typ, T0.Add(time.Minute)))
		require.Equal(t, queue.Stored, res.Outcome)
		require.Equal(t, 1, res.Outdated)
		require.Equal(t, queue.StatusOutdated, mustGet(t, s, "eu-1").Status)
		require.Equal(t, queue.StatusPending, mustGet(t, s, "us-1").Status)
		// Older than eu-2 in its source: obsolete, eu-2 the winner.
		res = enqueue(t, s, from("stripe-eu", "eu-0", "cus_1", typ, T0.Add(-time.Minute)))
		require.Equal(t, queue.DiscardedObsolete, res.Outcome)
		require.Equal(t, "eu-2", res.Winner)
		d, err := s.Discarded(Ctx(t), "eu-0")
		require.NoError(t, err)
		require.Equal(t, queue.Discard{Source: "stripe-eu", Token: "eu-0", Reason: queue.ReasonObsolete, Winner: "eu-2", At: T0}, d)
	})

	t.Run("TokensAreUniqueAcrossSources", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		enqueue(t, s, from("acme", "msg_1", "", "invoice.paid", T0))
		res := enqueue(t, s, from("other", "msg_1", "", "invoice.paid", T0))
		require.Equal(t, queue.DiscardedDuplicate, res.Outcome)
		require.Equal(t, "acme", mustGet(t, s, "msg_1").Source)
		d, err := s.Discarded(Ctx(t), "msg_1")
		require.NoError(t, err)
		require.Equal(t, "other", d.Source, "the ledger names the source of the discarded delivery")
	})

	t.Run("ManagementKeepsSource", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		for _, r := range []*queue.Record{from("acme", "f-acme", "", "invoice.failed", T0), Delivery("f-hmc", "pmt-1", T0)} {
			r.Status = queue.StatusFailed
			require.NoError(t, s.Insert(Ctx(t), r))
		}
		recs, total, err := s.ListFailed(Ctx(t), queue.FailedFilter{Source: "acme"}, 0, 10)
		require.NoError(t, err)
		require.EqualValues(t, 1, total)
		require.Equal(t, []string{"f-acme"}, tokens(recs))
		recs, total, err = s.ListFailed(Ctx(t), queue.FailedFilter{Source: "acme", Type: "invoice.failed"}, 0, 10)
		require.NoError(t, err)
		require.EqualValues(t, 1, total)
		require.Len(t, recs, 1)
		// The list replace keeps what each item says, its source too.
		keep := mustGet(t, s, "f-acme")
		keep.RetryCounter = 2
		require.NoError(t, s.ReplaceFailed(Ctx(t), []queue.Record{keep}))
		got := mustGet(t, s, "f-acme")
		require.Equal(t, "acme", got.Source)
		require.Equal(t, 2, got.RetryCounter)
		r, err := s.Requeue(Ctx(t), "f-acme")
		require.NoError(t, err)
		require.Equal(t, "acme", r.Source)
	})

	t.Run("QuarantineKeepsSource", func(t *testing.T) {
		t.Parallel()
		s, _ := open(t, Options{})
		q := &queue.Quarantined{Source: "acme", Reason: "bad", Headers: map[string]string{"Webhook-Id": "msg_1"}, Body: []byte("{")}
		require.NoError(t, s.Quarantine(Ctx(t), q, 10))
		hmc := &queue.Quarantined{Reason: "bad", Body: []byte("[")}
		require.NoError(t, s.Quarantine(Ctx(t), hmc, 10))
		got, err := s.GetQuarantined(Ctx(t), q.ID)
		require.NoError(t, err)
		require.Equal(t, "acme", got.Source)
		list, err := s.ListQuarantine(Ctx(t), 0, 10, 10)
		require.NoError(t, err)
		require.Len(t, list, 2)
		require.Equal(t, queue.DefaultSource, list[0].Source)
		require.Equal(t, "acme", list[1].Source)
	})
}
