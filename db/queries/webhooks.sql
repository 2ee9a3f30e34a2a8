-- name: WebhookInsert :one
INSERT INTO webhooks (id, workspace_id, url, description, events, enabled, secret, created_by)
VALUES (@id, @workspace_id, @url, @description, @events, @enabled, @secret, @created_by)
RETURNING *;

-- name: WebhookGet :one
SELECT * FROM webhooks WHERE id = @id AND workspace_id = @workspace_id;

-- name: WebhookListByWorkspace :many
SELECT * FROM webhooks WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: WebhookUpdate :one
-- WebhookUpdate writes a webhook's fields; enabling it again starts its failure count afresh.
UPDATE webhooks SET url = @url, description = @description, events = @events, enabled = @enabled,
    consecutive_failures = CASE WHEN @enabled AND NOT enabled THEN 0 ELSE consecutive_failures END,
    disabled_reason = CASE WHEN @enabled THEN NULL ELSE disabled_reason END,
    updated_at = now()
WHERE id = @id AND workspace_id = @workspace_id
RETURNING *;

-- name: WebhookDelete :execrows
DELETE FROM webhooks WHERE id = @id AND workspace_id = @workspace_id;

-- name: WebhookRotateSecret :one
-- WebhookRotateSecret makes secret the signing secret; the one it replaces keeps signing until
-- previous_expires_at.
UPDATE webhooks SET previous_secret = secret, previous_secret_expires_at = @previous_expires_at::timestamptz,
    secret = @secret, updated_at = now()
WHERE id = @id AND workspace_id = @workspace_id
RETURNING *;

-- name: WebhookRecordSuccess :exec
UPDATE webhooks SET consecutive_failures = 0 WHERE id = @id AND consecutive_failures <> 0;

-- name: WebhookRecordFailure :one
-- WebhookRecordFailure counts a delivery that failed for good, and disables the webhook when the count
-- reaches failure_limit. disabled is true only for the failure that disabled it, so its admins are told once.
UPDATE webhooks w SET consecutive_failures = w.consecutive_failures + 1,
    enabled = w.enabled AND w.consecutive_failures + 1 < @failure_limit::int,
    disabled_reason = CASE WHEN w.enabled AND w.consecutive_failures + 1 >= @failure_limit::int THEN @reason::text ELSE w.disabled_reason END,
    updated_at = now()
FROM webhooks old
WHERE w.id = @id AND old.id = w.id
RETURNING w.workspace_id, w.url, (old.enabled AND NOT w.enabled)::boolean AS disabled;

-- name: WebhookDisable :one
-- WebhookDisable disables an enabled webhook (no row when it was not enabled).
UPDATE webhooks SET enabled = false, disabled_reason = @reason::text, updated_at = now()
WHERE id = @id AND enabled
RETURNING workspace_id, url;

-- name: WebhookDeliveriesInsert :exec
-- WebhookDeliveriesInsert records the deliveries of activities to the webhooks record_activities named,
-- in the activities' transaction; their payload is built at the first attempt.
INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_type, activity_id, next_attempt_at)
SELECT d.id, w.workspace_id, w.id, d.event_type, d.activity_id, now()
FROM (SELECT unnest(@ids::text[]) AS id, unnest(@webhook_ids::uuid[]) AS webhook_id, unnest(@event_types::text[]) AS event_type,
             unnest(@activity_ids::uuid[]) AS activity_id) AS d
JOIN webhooks w ON w.id = d.webhook_id;

-- name: WebhookDeliveryInsert :one
-- WebhookDeliveryInsert records one delivery with its payload: a test ping, an automation's or a
-- pipeline step's.
INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, url, source, event_type, activity_id, payload, next_attempt_at)
VALUES (@id, @workspace_id, sqlc.narg('webhook_id'), sqlc.narg('url'), sqlc.narg('source'), @event_type,
        sqlc.narg('activity_id'), @payload, now())
RETURNING *;

-- name: WebhookDeliveryForAttempt :one
-- WebhookDeliveryForAttempt reads a delivery with what sending it needs, in one statement: its address (a
-- pipeline step's own, else its webhook's), its webhook's state and sealed secrets (the previous one only
-- while it still signs), and, while it has no payload yet, the activity it reports (with the activity's
-- workspace: a project activity's is its project's).
SELECT d.*, coalesce(d.url, w.url)::text AS target, coalesce(w.enabled, true)::boolean AS webhook_enabled,
       coalesce(w.consecutive_failures, 0)::int AS consecutive_failures,
       w.secret, (CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END)::bytea AS previous_secret,
       (a.id IS NOT NULL)::boolean AS activity_found, coalesce(a.type, '')::text AS activity_type,
       coalesce(a.workspace_id, p.workspace_id, d.workspace_id) AS activity_workspace_id, a.project_id AS activity_project_id,
       a.card_id AS activity_card_id, a.document_id AS activity_document_id, a.actor_id AS activity_actor_id,
       a.meta AS activity_meta, a.created_at AS activity_created_at, a.seq AS activity_seq,
       (CASE WHEN a.agent_id IS NOT NULL OR u.is_service THEN 'agent' WHEN a.actor_id IS NOT NULL THEN 'person'
             ELSE 'system' END)::text AS activity_actor_type,
       a.agent_id AS activity_agent_id, coalesce(ag.name, u.name, '')::text AS activity_agent_name,
       a.on_behalf_of AS activity_on_behalf_of, coalesce(ob.name, '')::text AS activity_on_behalf_of_name
FROM webhook_deliveries d
LEFT JOIN webhooks w ON w.id = d.webhook_id
LEFT JOIN activities a ON a.id = d.activity_id AND d.payload IS NULL
LEFT JOIN projects p ON p.id = a.project_id
LEFT JOIN users u ON u.id = a.actor_id
LEFT JOIN agents ag ON ag.id = a.agent_id
LEFT JOIN users ob ON ob.id = a.on_behalf_of
WHERE d.id = @id;

-- name: WebhookActivityType :one
SELECT type FROM activities WHERE id = @id;

-- name: WebhookDeliveryRecordAttempt :one
-- WebhookDeliveryRecordAttempt records one attempt of a pending delivery and its outcome, and keeps the
-- payload built at the first attempt.
UPDATE webhook_deliveries SET attempts = attempts + 1, payload = coalesce(payload, sqlc.narg('payload')::bytea), status = @status, response_status = sqlc.narg('response_status'),
    response_body = sqlc.narg('response_body'), duration_ms = @duration_ms, error = sqlc.narg('error'),
    next_attempt_at = sqlc.narg('next_attempt_at'), last_attempt_at = now()
WHERE id = @id AND status = 'pending'
RETURNING *;

-- name: WebhookDeliveryGiveUp :exec
-- WebhookDeliveryGiveUp ends a pending delivery without an attempt (its webhook is gone or disabled).
UPDATE webhook_deliveries SET status = 'failed', error = @error::text, next_attempt_at = NULL
WHERE id = @id AND status = 'pending';

-- name: WebhookDeliveryListByWebhook :many
-- WebhookDeliveryListByWebhook lists a webhook's deliveries newest first (ids are time-ordered), those
-- older than before (a first page passes a bound above every id).
SELECT d.* FROM webhook_deliveries d
JOIN webhooks w ON w.id = d.webhook_id AND w.workspace_id = @workspace_id
WHERE d.webhook_id = @webhook_id AND d.id < @before::text
ORDER BY d.id DESC
LIMIT @lim;

-- name: WebhookDeliveryRedeliver :one
-- WebhookDeliveryRedeliver makes a finished delivery of the webhook pending again (no row when it is
-- still pending or not the webhook's).
UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = now(), error = NULL, redelivered_at = now()
FROM webhooks w
WHERE d.id = @id AND d.webhook_id = @webhook_id AND w.id = d.webhook_id AND w.workspace_id = @workspace_id
  AND d.status <> 'pending'
RETURNING d.*;

-- name: WebhookDeliveryGetForUpdate :one
-- WebhookDeliveryGetForUpdate reads and locks a delivery of the webhook, for a redelivery to decide what
-- to do with it while no attempt records its outcome.
SELECT d.* FROM webhook_deliveries d
JOIN webhooks w ON w.id = d.webhook_id AND w.workspace_id = @workspace_id
WHERE d.id = @id AND d.webhook_id = @webhook_id
FOR UPDATE OF d;

-- name: WebhookDeliveryHasten :one
-- WebhookDeliveryHasten says a pending delivery's next attempt is now (a redelivery asked for it); its
-- retry window and attempt count stay.
UPDATE webhook_deliveries SET next_attempt_at = now()
WHERE id = @id AND status = 'pending'
RETURNING *;

-- name: WorkspaceAdminIDs :many
SELECT user_id FROM workspace_members WHERE workspace_id = @workspace_id AND role = 'admin' ORDER BY user_id;

-- name: WebhookDeliveriesDeleteFinished :execrows
-- WebhookDeliveriesDeleteFinished deletes at most lim finished deliveries whose last event (made, last
-- attempted, redelivered) is before @before, oldest first (webhook_deliveries_finished_idx): one batch of
-- the retention sweep. Rows a redelivery holds are skipped; the outer conditions are checked again on
-- the row deleted, so one made pending meanwhile stays.
DELETE FROM webhook_deliveries d
WHERE d.id IN (SELECT o.id FROM webhook_deliveries o
               WHERE o.status <> 'pending' AND greatest(o.created_at, o.last_attempt_at, o.redelivered_at) < @before::timestamptz
               ORDER BY greatest(o.created_at, o.last_attempt_at, o.redelivered_at)
               LIMIT @lim
               FOR UPDATE SKIP LOCKED)
  AND d.status <> 'pending' AND greatest(d.created_at, d.last_attempt_at, d.redelivered_at) < @before::timestamptz;
