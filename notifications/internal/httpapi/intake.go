package httpapi

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/sluicedata/sluice/notifications/queue"
)

// countEnqueue counts an acknowledged delivery in the metrics.
func (s *API) countEnqueue(res queue.EnqueueResult) {
	s.metrics.Received.Inc()
	switch res.Outcome {
	case queue.DiscardedDuplicate:
		s.metrics.DiscardedDuplicate.Inc()
	case queue.DiscardedObsolete:
		s.metrics.DiscardedObsolete.Inc()
	}
	if res.Outdated > 0 {
		s.metrics.Outdated.Add(float64(res.Outdated))
	}
}

// intake is POST /webhook(s)/notifications: verify, parse, enqueue, answer
// 200 once the store has committed. The body was read, bounded and
// decoded by boundedBody.
func (s *API) intake(c *fiber.Ctx) error {
	start := time.Now()
	defer func() { s.metrics.IntakeDuration.Observe(time.Since(start).Seconds()) }()
	body := c.Body()
	if len(s.cfg.WebhookSecrets) > 0 {
		if err := s.verifySignature(c, body); err != nil {
			s.metrics.Unauthenticated.Inc()
			return jsonError(c, fiber.StatusUnauthorized, err.Error())
		}
	}
	if !utf8.Valid(body) {
		// Read back, the stored body and its tokens must be valid JSON text.
		body = queue.ValidUTF8(body)
		s.metrics.InvalidUTF8.Inc()
	}
	// queue.ParseDelivery copies the body: Fiber reuses its buffer after return.
	rec, err := queue.ParseDelivery(body, s.now())
	if err != nil {
		s.metrics.Rejected.Inc()
		s.quarantineRequest(c, err.Error())
		return jsonError(c, fiber.StatusBadRequest, err.Error())
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, s.intakeTimeout)
	res, err := s.store.Enqueue(ctx, &rec)
	cancel()
	if errors.Is(err, queue.ErrInvalid) {
		s.metrics.Rejected.Inc()
		s.quarantineRequest(c, "the store refuses this notification: "+err.Error())
		return jsonError(c, fiber.StatusBadRequest, "the store refuses this notification: "+err.Error())
	}
	if err != nil {
		// Answered 503 so that the provider re-sends.
		s.metrics.Store.Failed("enqueue", true, err)
		return jsonError(c, fiber.StatusServiceUnavailable, "notification store unavailable, retry later")
	}
	s.metrics.Store.Committed()
	s.countEnqueue(res)
	// Status, not SendStatus: the contract wants an empty body.
	c.Status(fiber.StatusOK)
	return nil
}
