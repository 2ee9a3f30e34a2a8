// Package webhook is the engine of outbound webhooks: a workspace's subscriptions to its activities
// (address, event types, sealed signing secrets), their deliveries (one row per message, the same
// webhook-id for every attempt), and the attempt a worker makes of each: signed per the Standard
// Webhooks specification, retried with exponential backoff and jitter within a window, the webhook
// disabled after a run of failed deliveries or a 410 answer, internal addresses refused in production.
//
// An activity's deliveries are inserted with the activity, in its transaction (dbcore's
// RecordActivities, from the keys record_activities answers), so a change that commits is delivered at
// least once and one that rolls back never. Pings, automation actions and pipeline steps insert theirs
// through Enqueue.
package webhook
