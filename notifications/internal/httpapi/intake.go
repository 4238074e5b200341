package httpapi

import (
	"context"
	"errors"

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

// intake is POST /webhook(s)/notifications: parse, enqueue, answer 200 once
// the store has committed.
func (s *API) intake(c *fiber.Ctx) error {
	// queue.ParseDelivery copies the body: Fiber reuses its buffer after return.
	rec, err := queue.ParseDelivery(c.Body(), s.now())
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
		s.log.Error("enqueue failed; answering 503 so the provider re-sends",
			"webhookToken", rec.WebhookToken, "error", err)
		return jsonError(c, fiber.StatusServiceUnavailable, "notification store unavailable, retry later")
	}
	s.countEnqueue(res)
	// Status, not SendStatus: the contract wants an empty body.
	c.Status(fiber.StatusOK)
	return nil
}
