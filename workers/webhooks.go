package workers

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/jobs"
)

// WebhookDeliveryWorker makes one attempt of a webhook delivery (webhook.Engine.Attempt). A failed
// attempt within the retry window snoozes the job until the next one, so the delivery, not River's
// attempt count, decides when to stop; the delivery's id, its webhook-id, stays the same throughout.
type WebhookDeliveryWorker struct {
	river.WorkerDefaults[jobs.WebhookDeliveryArgs]
	deps Deps
}

// Timeout bounds one attempt: the request's own timeout and the writes around it.
func (w *WebhookDeliveryWorker) Timeout(*river.Job[jobs.WebhookDeliveryArgs]) time.Duration {
	return 30 * time.Second
}

// Work implements river.Worker.
func (w *WebhookDeliveryWorker) Work(ctx context.Context, job *river.Job[jobs.WebhookDeliveryArgs]) error {
	wait, err := w.deps.Webhooks.Attempt(ctx, job.Args.DeliveryID)
	if err != nil {
		return err
	}
	if wait > 0 {
		return river.JobSnooze(wait)
	}
	return nil
}

// WebhookDeliverySweepWorker deletes the finished webhook deliveries older than their retention
// (webhook.Engine.SweepDeliveries), in batches.
type WebhookDeliverySweepWorker struct {
	river.WorkerDefaults[jobs.WebhookDeliverySweepArgs]
	deps Deps
}

// webhookSweepBatch is how many deliveries one statement of the sweep deletes.
const webhookSweepBatch = 1000

// Work implements river.Worker.
func (w *WebhookDeliverySweepWorker) Work(ctx context.Context, _ *river.Job[jobs.WebhookDeliverySweepArgs]) error {
	n, err := w.deps.Webhooks.SweepDeliveries(ctx, webhookSweepBatch)
	if n > 0 {
		w.deps.Logger.InfoContext(ctx, "old webhook deliveries deleted", "deliveries", n)
	}
	return err
}
