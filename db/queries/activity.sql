-- name: ActivitiesRecord :exec
-- ActivitiesRecord records activities and enqueues their jobs in one statement: each notification
-- fan-out job always, each automation job only when an enabled rule of its project listens to its
-- trigger (an empty trigger means always). Jobs are written as River job rows, the way River's
-- insert-only clients for other languages write them (see docs/decisions.md); their arguments, kind,
-- queue, priority and attempts come from the Go job types (db.jobRowOf).
WITH acts AS (
    INSERT INTO activities (id, project_id, card_id, actor_id, type, meta, recipients, notify_members)
    SELECT a.id, a.project_id, nullif(a.card_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members
    FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@project_ids::uuid[]) AS project_id,
                 unnest(@card_ids::text[]) AS card_id, unnest(@actor_ids::text[]) AS actor_id,
                 unnest(@types::text[]) AS type, unnest(@metas::jsonb[]) AS meta,
                 unnest(@recipients::jsonb[]) AS recipients, unnest(@notify_members::boolean[]) AS notify_members) a
)
INSERT INTO river_job (args, kind, queue, priority, max_attempts)
SELECT j.args, j.kind, j.queue, j.priority, j.max_attempts
FROM (SELECT unnest(@job_args::jsonb[]) AS args, unnest(@job_kinds::text[]) AS kind,
             unnest(@job_queues::text[]) AS queue, unnest(@job_priorities::smallint[]) AS priority,
             unnest(@job_max_attempts::smallint[]) AS max_attempts, unnest(@job_projects::uuid[]) AS project_id,
             unnest(@job_triggers::text[]) AS trigger) j
WHERE j.trigger = ''
   OR EXISTS (SELECT 1 FROM automation_rules r WHERE r.project_id = j.project_id AND r.enabled AND r.trigger = j.trigger);

-- name: NotificationFanOut :execrows
-- NotificationFanOut notifies, for one activity, the project's members and its extra recipients except
-- the actor, in one statement. The unique (activity, user) key makes a retried job a no-op.
INSERT INTO notifications (id, user_id, activity_id, created_at)
SELECT gen_random_uuid(), r.user_id, a.id, a.created_at
FROM activities a
CROSS JOIN LATERAL (
    SELECT pm.user_id FROM project_members pm WHERE pm.project_id = a.project_id AND a.notify_members
    UNION
    SELECT unnest(a.recipients)
) r
WHERE a.id = @activity_id AND r.user_id IS DISTINCT FROM a.actor_id
ON CONFLICT (activity_id, user_id) DO NOTHING;

-- name: NotificationList :many
SELECT n.id, n.user_id, n.read_at, n.created_at, a.type, a.actor_id, a.meta, a.card_id, a.project_id,
       a.created_at AS activity_created_at
FROM notifications n JOIN activities a ON a.id = n.activity_id
WHERE n.user_id = @user_id AND (NOT @unread_only::boolean OR n.read_at IS NULL)
ORDER BY n.created_at DESC, n.id DESC
LIMIT @lim;

-- name: NotificationCountUnread :one
SELECT count(*)::int FROM notifications WHERE user_id = @user_id AND read_at IS NULL;

-- name: NotificationMarkRead :one
UPDATE notifications SET read_at = coalesce(read_at, now())
WHERE id = @id AND user_id = @user_id
RETURNING id, read_at;

-- name: NotificationMarkAllRead :execrows
UPDATE notifications SET read_at = now() WHERE user_id = @user_id AND read_at IS NULL;
