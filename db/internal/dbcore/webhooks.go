package dbcore

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/pilot-dev/pilot/db/internal/dbsqlc"
	"github.com/pilot-dev/pilot/jobs"
)

// ActivityWebhookDisabled is recorded when a webhook is disabled by its failures (or a 410 answer): it
// notifies the workspace's admins, its explicit recipients.
const ActivityWebhookDisabled = "webhook_disabled"

// webhookKeyPrefix starts the keys record_activities answers for the webhooks an activity goes to:
// "webhook/<webhookId>/<activityId>".
const webhookKeyPrefix = "webhook/"

// NewWebhookDeliveryID makes a delivery's id, its webhook-id header: msg_ and a UUIDv7 in hex, so ids
// sort in the order they were made.
func NewWebhookDeliveryID() string { return "msg_" + strings.ReplaceAll(NewID(), "-", "") }

// WebhookDeliveryJob is the job that sends delivery id. Its attempts are counted on the delivery, which
// snoozes the job between them, so River's own attempt limit is never what ends it.
func WebhookDeliveryJob(id string) river.InsertManyParams {
	return river.InsertManyParams{Args: jobs.WebhookDeliveryArgs{DeliveryID: id},
		InsertOpts: &river.InsertOpts{Queue: jobs.QueueWebhooks}}
}

// webhookDeliveries records one delivery per webhook key of listening (the activities of p going to
// the webhooks that listen to them) and answers their jobs, for the caller to insert with the
// activities' other jobs. Without such a key it makes no statement at all.
func webhookDeliveries(ctx context.Context, tx pgx.Tx, p *dbsqlc.ActivitiesRecordParams,
	listening []string) ([]river.InsertManyParams, error) {
	var d dbsqlc.WebhookDeliveriesInsertParams
	for _, key := range listening {
		rest, ok := strings.CutPrefix(key, webhookKeyPrefix)
		if !ok {
			continue
		}
		webhookID, activityID, _ := strings.Cut(rest, "/")
		for i, id := range p.Ids {
			if id == activityID {
				d.EventTypes = append(d.EventTypes, p.Types[i])
				break
			}
		}
		d.Ids, d.WebhookIds, d.ActivityIds = append(d.Ids, NewWebhookDeliveryID()), append(d.WebhookIds, webhookID),
			append(d.ActivityIds, activityID)
	}
	if len(d.Ids) == 0 {
		return nil, nil
	}
	if err := Queries(tx).WebhookDeliveriesInsert(ctx, d); err != nil {
		return nil, Wrap(err, "record webhook deliveries")
	}
	out := make([]river.InsertManyParams, len(d.Ids))
	for i, id := range d.Ids {
		out[i] = WebhookDeliveryJob(id)
	}
	return out, nil
}

// EnqueueActivityJobs enqueues, in one River insert, the jobs recording rec caused: its notification
// and automation jobs (Jobs) and one delivery job per webhook listening answered, after recording those
// deliveries. With no webhook listening it is Enqueue(Jobs(listening)).
func (c *Core) EnqueueActivityJobs(ctx context.Context, tx pgx.Tx, rec ActivityRecord, listening []string) error {
	hooks, err := webhookDeliveries(ctx, tx, &rec.Params, listening)
	if err != nil {
		return err
	}
	return c.Enqueue(ctx, tx, append(rec.Jobs(listening), hooks...))
}
