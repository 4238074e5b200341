package notifications

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/sluicedata/sluice/connectors"
)

// attemptOf describes one processing attempt of rec, whose status the
// outcome has already set, for its history (docs/records-api.md#attempts).
func (s *Service) attemptOf(rec *Record, start time.Time, took time.Duration, err error) *Attempt {
	a := &Attempt{At: Truncate(start), DurationMS: took.Milliseconds()}
	switch rec.Status {
	case StatusSuccess:
		a.Outcome = OutcomeSuccess
	case StatusRetrying:
		a.Outcome = OutcomeRetrying
	default:
		a.Outcome = OutcomeFailed
	}
	var de *DownstreamError
	if errors.As(err, &de) {
		a.HTTPStatus = de.StatusCode
	}
	if err != nil {
		// Redacted before it is cut, so that no secret survives half-cut.
		a.Error = excerpt(s.secrets().String(err.Error()), MaxAttemptError)
	}
	return a
}

// secrets masks the configured credentials wherever they appear: the API
// token, the SMTP password, and the userinfo and secret query values of
// the downstream URLs.
func (s *Service) secrets() *connectors.Redactor {
	return connectors.NewRedactor(map[string]string{
		"conn.marketplace.url": s.cfg.MarketplaceURL,
		"provider.api.url":     s.cfg.ProviderAPIURL,
		"conn.api.token":       s.cfg.APIToken,
		"conn.mail.password":   s.cfg.Mail.Password,
	})
}

// excerpt cuts s to at most n bytes on a rune boundary, marking the cut.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// expireKept removes quarantined bodies and discard ledger entries past
// their retention (the cleanup job).
func (s *Service) expireKept(ctx context.Context, now time.Time) error {
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

// queryBool reads an optional boolean query parameter.
func queryBool(c *fiber.Ctx, name string) (bool, error) {
	v := strings.TrimSpace(c.Query(name))
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("query parameter %q must be true or false, got %s", name, strconv.Quote(excerpt(v, 64)))
	}
	return b, nil
}

// settledMessage is the 409 of a retry or delete of a SUCCESS or OUTDATED
// record.
func settledMessage(err error, token string) string {
	status := Status("SUCCESS or OUTDATED")
	var se *SettledError
	if errors.As(err, &se) {
		status = se.Status
	}
	return fmt.Sprintf("notification %s is %s: a retry needs ?force=true; a delete is left to the cleanup job",
		strconv.Quote(token), status)
}
