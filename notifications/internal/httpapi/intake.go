package httpapi

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/sluicedata/sluice/notifications/internal/metrics"
	"github.com/sluicedata/sluice/notifications/queue"
	"github.com/sluicedata/sluice/notifications/source"
)

// countEnqueue counts an acknowledged delivery in its source's metrics.
func countEnqueue(m *metrics.SourceMetrics, res queue.EnqueueResult) {
	m.Received.Inc()
	switch res.Outcome {
	case queue.DiscardedDuplicate:
		m.DiscardedDuplicate.Inc()
	case queue.DiscardedObsolete:
		m.DiscardedObsolete.Inc()
	}
	if res.Outdated > 0 {
		m.Outdated.Add(float64(res.Outdated))
	}
}

// fiberHeaders reads the request's headers for a scheme or a mapping.
type fiberHeaders struct{ c *fiber.Ctx }

func (h fiberHeaders) Get(name string) string { return h.c.Get(name) }

// intake is the one pipeline every source's deliveries go through
// (docs/sidecar.md#intake-pipeline): the body was read, bounded and
// decoded by boundedBody (413, 415 for an unknown Content-Encoding), then
// media type (415) → verify with the source's scheme (401) → a provider's
// handshake (answered, nothing stored) → map to a record (400, quarantined)
// → enqueue, answering 200 once the store has committed.
func (s *API) intake(src *source.Source) fiber.Handler {
	m := s.metrics.For(src.Name)
	return func(c *fiber.Ctx) error {
		start := time.Now()
		defer func() { m.IntakeDuration.Observe(time.Since(start).Seconds()) }()
		if msg := src.RefusesMediaType(c.Get(fiber.HeaderContentType)); msg != "" {
			return jsonError(c, fiber.StatusUnsupportedMediaType, msg)
		}
		body := c.Body()
		h := fiberHeaders{c}
		now := s.now()
		if err := src.Verify(h, body, now); err != nil {
			m.Unauthenticated.Inc()
			return jsonError(c, fiber.StatusUnauthorized, err.Error())
		}
		if answer, ok := src.Challenge(body); ok {
			m.Challenges.Inc()
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
			return c.Send(answer)
		}
		if !utf8.Valid(body) {
			// Read back, the stored body and its tokens must be valid JSON text.
			body = queue.ValidUTF8(body)
			m.InvalidUTF8.Inc()
		}
		// Map copies the body: Fiber reuses its buffer after return.
		rec, err := src.Map(body, h, now)
		if err != nil {
			m.Rejected.Inc()
			s.quarantineRequest(c, src, err.Error())
			return jsonError(c, fiber.StatusBadRequest, err.Error())
		}
		ctx, cancel := context.WithTimeout(s.baseCtx, s.intakeTimeout)
		res, err := s.store.Enqueue(ctx, &rec)
		cancel()
		if errors.Is(err, queue.ErrInvalid) {
			m.Rejected.Inc()
			s.quarantineRequest(c, src, "the store refuses this notification: "+err.Error())
			return jsonError(c, fiber.StatusBadRequest, "the store refuses this notification: "+err.Error())
		}
		if err != nil {
			// Answered 503 so that the provider re-sends.
			s.metrics.Store.Failed("enqueue", true, err)
			return jsonError(c, fiber.StatusServiceUnavailable, "notification store unavailable, retry later")
		}
		s.metrics.Store.Committed()
		countEnqueue(m, res)
		// Status, not SendStatus: the contract wants an empty body.
		c.Status(fiber.StatusOK)
		return nil
	}
}
