-- name: ActivitiesRecord :many
-- ActivitiesRecord records activities and answers which of the (project, trigger) pairs an enabled
-- automation rule listens to, as 'project/trigger' keys, and which activities someone other than their
-- actor would hear of, as 'notify/<activity id>' keys (migration 00027). Empty project, workspace, card,
-- document, actor, agent and on-behalf-of ids stand for none (migration 00041 added the last two).
SELECT record_activities::text FROM record_activities(@ids::uuid[], @project_ids::text[], @workspace_ids::text[],
    @card_ids::text[], @document_ids::text[], @actor_ids::text[], @types::text[], @metas::jsonb[], @recipients::jsonb[],
    @notify_members::boolean[], @trigger_projects::uuid[], @triggers::text[], @agent_ids::text[],
    @on_behalf_ofs::text[]);

-- name: NotificationFanOut :execrows
-- NotificationFanOut notifies, for one activity, the project's members and its extra recipients except
-- the actor, in one statement. Only those who can still read what the activity is about when the job
-- runs are notified: members of the project's workspace (of the activity's own workspace for a
-- workspace-level one, a document review) and owners and admins of its organization, who act as admin
-- in every workspace. Someone removed between the change and its job hears nothing of it. The unique
-- (activity, user) key makes a retried job a no-op.
INSERT INTO notifications (id, user_id, activity_id, created_at)
SELECT gen_random_uuid(), r.user_id, a.id, a.created_at
FROM activities a
LEFT JOIN projects p ON p.id = a.project_id
JOIN workspaces w ON w.id = coalesce(a.workspace_id, p.workspace_id)
CROSS JOIN LATERAL (
    SELECT pm.user_id FROM project_members pm WHERE pm.project_id = a.project_id AND a.notify_members
    UNION
    SELECT unnest(a.recipients)
) r
WHERE a.id = @activity_id AND r.user_id IS DISTINCT FROM a.actor_id
  AND (EXISTS (SELECT 1 FROM workspace_members wm WHERE wm.workspace_id = w.id AND wm.user_id = r.user_id)
       OR EXISTS (SELECT 1 FROM organization_members om
                  WHERE om.organization_id = w.organization_id AND om.user_id = r.user_id AND om.role IN ('owner', 'admin')))
ON CONFLICT (activity_id, user_id) DO NOTHING;

-- name: NotificationList :many
SELECT n.id, n.user_id, n.read_at, n.created_at, a.type, a.actor_id, a.meta, a.card_id, a.project_id,
       a.created_at AS activity_created_at, a.workspace_id, a.document_id
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

-- name: NotificationPage :many
-- NotificationPage is one page of a user's notifications, newest first: those before the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md). Each names who acted (their name
-- now, empty for the system) and what it is about: the title the activity recorded, else (activities
-- recorded before card changes kept their card's title) the card's or document's title now, and the
-- workspace it happened in (a project's activity records only its project).
SELECT n.id, n.user_id, n.read_at, n.created_at, a.type, a.actor_id, a.meta, a.card_id, a.project_id,
       a.created_at AS activity_created_at, a.workspace_id, a.document_id,
       coalesce(u.name, '')::text AS actor_name,
       coalesce(nullif(a.meta->>'title', ''), c.title, d.title, '')::text AS subject_title,
       p.workspace_id AS project_workspace_id,
       (CASE WHEN a.agent_id IS NOT NULL OR u.is_service THEN 'agent' WHEN a.actor_id IS NOT NULL THEN 'person'
             ELSE 'system' END)::text AS actor_type,
       a.agent_id, coalesce(ag.name, u.name, '')::text AS agent_name,
       a.on_behalf_of, coalesce(ob.name, '')::text AS on_behalf_of_name
FROM notifications n JOIN activities a ON a.id = n.activity_id
LEFT JOIN users u ON u.id = a.actor_id
LEFT JOIN agents ag ON ag.id = a.agent_id
LEFT JOIN users ob ON ob.id = a.on_behalf_of
LEFT JOIN cards c ON c.id = a.card_id
LEFT JOIN documents d ON d.id = a.document_id
LEFT JOIN projects p ON p.id = a.project_id
WHERE n.user_id = @user_id AND (NOT @unread_only::boolean OR n.read_at IS NULL)
  AND (n.created_at, n.id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY n.created_at DESC, n.id DESC
LIMIT @lim;

-- name: ActivityPageByCard :many
-- ActivityPageByCard is one page of a card's history, newest first: the activities recorded about the
-- card in its project, before the keyset (created_at, id) of the previous page's last
-- (docs/pagination.md), with the actor's name (empty when the actor is gone or there is none), and when an
-- agent acted, the agent (by its name now, else its service user's) and the person it acted for.
SELECT a.id, a.type, a.actor_id, coalesce(u.name, '')::text AS actor_name, a.meta, a.created_at,
       (CASE WHEN a.agent_id IS NOT NULL OR u.is_service THEN 'agent' WHEN a.actor_id IS NOT NULL THEN 'person'
             ELSE 'system' END)::text AS actor_type,
       a.agent_id, coalesce(ag.name, u.name, '')::text AS agent_name,
       a.on_behalf_of, coalesce(ob.name, '')::text AS on_behalf_of_name
FROM activities a LEFT JOIN users u ON u.id = a.actor_id
LEFT JOIN agents ag ON ag.id = a.agent_id
LEFT JOIN users ob ON ob.id = a.on_behalf_of
WHERE a.card_id = @card_id AND a.project_id = @project_id
  AND (a.created_at, a.id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY a.created_at DESC, a.id DESC
LIMIT @lim;
