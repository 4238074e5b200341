package sqlstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/storetest"
)

// TestWriterSurvivesFailures checks the writer's own guarantees with an
// apply function that fails on purpose: a failing or panicking batch is
// retried one request at a time, and nobody is left waiting.
func TestWriterSurvivesFailures(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	apply := func(_ context.Context, reqs []*intakeReq) ([]queue.EnqueueResult, error) {
		res := make([]queue.EnqueueResult, len(reqs))
		for i, r := range reqs {
			switch r.rec.WebhookToken {
			case "fail":
				return nil, boom
			case "panic":
				panic("bad request")
			}
			res[i] = queue.EnqueueResult{Outcome: queue.Stored, ID: int64(len(r.rec.WebhookToken))}
		}
		return res, nil
	}
	w := newWriter("test", apply, 8, 64, 2, time.Minute, defaultOptions().logger)
	defer w.close()
	tokens := []string{"a", "fail", "bb", "panic", "ccc", "dddd"}
	type out struct {
		res queue.EnqueueResult
		err error
	}
	results := make(chan out, len(tokens))
	for _, tok := range tokens {
		go func() {
			res, err := w.submit(storetest.Ctx(t), &queue.Record{WebhookToken: tok})
			results <- out{res, err}
		}()
	}
	stored, failed := 0, 0
	for range tokens {
		select {
		case o := <-results:
			if o.err != nil {
				require.ErrorIs(t, o.err, queue.ErrUnavailable)
				failed++
				continue
			}
			require.Equal(t, queue.Stored, o.res.Outcome)
			stored++
		case <-time.After(30 * time.Second):
			t.Fatal("a caller was left waiting")
		}
	}
	require.Equal(t, 4, stored)
	require.Equal(t, 2, failed)

	w.close()
	_, err := w.submit(storetest.Ctx(t), &queue.Record{WebhookToken: "late"})
	require.ErrorIs(t, err, queue.ErrUnavailable)
}
