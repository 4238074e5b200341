package notifications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sluicedata/sluice/connectors"
	"github.com/sluicedata/sluice/notifications/queue"
)

// attemptOf describes one processing attempt of rec, whose status the
// outcome has already set, for its history (docs/records-api.md#attempts).
func (s *runner) attemptOf(rec *Record, start time.Time, took time.Duration, status int, err error) *queue.Attempt {
	a := &queue.Attempt{At: queue.Truncate(start), DurationMS: took.Milliseconds(), HTTPStatus: status}
	switch rec.Status {
	case queue.StatusSuccess:
		a.Outcome = queue.OutcomeSuccess
	case queue.StatusRetrying:
		a.Outcome = queue.OutcomeRetrying
	default:
		a.Outcome = queue.OutcomeFailed
	}
	var de *DownstreamError
	if errors.As(err, &de) {
		a.HTTPStatus = de.StatusCode
	}
	if err != nil {
		// Redacted before it is cut, so that no secret survives half-cut.
		msg := connectors.NewRedactor(s.cfg.Secrets).String(err.Error())
		a.Error = queue.Excerpt(msg, queue.MaxAttemptError)
	}
	return a
}

// expireKept removes quarantined bodies and discard ledger entries past
// their retention (the cleanup job).
func (s *runner) expireKept(ctx context.Context, now time.Time) error {
	q, err := s.store.CleanupQuarantine(ctx, now.AddDate(0, 0, -s.cfg.QuarantineRetentionDays))
	if err != nil {
		return fmt.Errorf("expiring quarantined bodies: %w", err)
	}
	l, err := s.store.CleanupLedger(ctx, now.AddDate(0, 0, -s.cfg.LedgerRetentionDays))
	if err != nil {
		return fmt.Errorf("expiring the discard ledger: %w", err)
	}
	if q+l > 0 {
		s.log.Info("cleanup expired kept entries", "quarantined", q, "ledger", l)
	}
	return nil
}
