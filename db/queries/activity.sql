-- name: ActivityInsert :one
-- ActivityInsert records an activity and answers, in the same round trip, which of the given
-- automation triggers have an enabled rule in the project (so jobs are enqueued only for those).
INSERT INTO activities (id, project_id, card_id, actor_id, type, meta, recipients, notify_members)
VALUES (@id, @project_id, @card_id, @actor_id, @type, @meta, @recipients, @notify_members)
RETURNING id, ARRAY(SELECT DISTINCT r.trigger FROM automation_rules r
                    WHERE r.project_id = @project_id AND r.enabled AND r.trigger = ANY(@triggers::text[]))::text[] AS listening;

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
