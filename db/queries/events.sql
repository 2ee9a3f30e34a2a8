-- name: EventsPoll :many
-- EventsPoll reads the feed positions after @after and the given earlier ones (positions the poller
-- saw missing, whose transactions may still commit), of every workspace, in position order. A project
-- activity names its workspace through its project.
SELECT a.seq, a.id, coalesce(a.workspace_id, p.workspace_id)::uuid AS workspace_id, a.project_id, a.card_id,
       a.document_id, a.actor_id, a.type, a.meta, a.created_at,
       (CASE WHEN a.agent_id IS NOT NULL OR u.is_service THEN 'agent' WHEN a.actor_id IS NOT NULL THEN 'person'
             ELSE 'system' END)::text AS actor_type,
       a.agent_id, coalesce(ag.name, u.name, '')::text AS agent_name,
       a.on_behalf_of, coalesce(ob.name, '')::text AS on_behalf_of_name
FROM activities a
LEFT JOIN projects p ON p.id = a.project_id
LEFT JOIN users u ON u.id = a.actor_id
LEFT JOIN agents ag ON ag.id = a.agent_id
LEFT JOIN users ob ON ob.id = a.on_behalf_of
WHERE a.seq > @after OR a.seq = ANY(@gaps::bigint[])
ORDER BY a.seq
LIMIT @lim;

-- name: EventsAfter :many
-- EventsAfter reads one workspace's feed between two positions (after < seq < before), in order: the
-- replay of a reader's Last-Event-ID.
SELECT a.seq, a.id, coalesce(a.workspace_id, p.workspace_id)::uuid AS workspace_id, a.project_id, a.card_id,
       a.document_id, a.actor_id, a.type, a.meta, a.created_at,
       (CASE WHEN a.agent_id IS NOT NULL OR u.is_service THEN 'agent' WHEN a.actor_id IS NOT NULL THEN 'person'
             ELSE 'system' END)::text AS actor_type,
       a.agent_id, coalesce(ag.name, u.name, '')::text AS agent_name,
       a.on_behalf_of, coalesce(ob.name, '')::text AS on_behalf_of_name
FROM activities a
LEFT JOIN projects p ON p.id = a.project_id
LEFT JOIN users u ON u.id = a.actor_id
LEFT JOIN agents ag ON ag.id = a.agent_id
LEFT JOIN users ob ON ob.id = a.on_behalf_of
WHERE a.seq > @after AND a.seq < @before
  AND (a.workspace_id = @workspace_id::uuid OR p.workspace_id = @workspace_id::uuid)
ORDER BY a.seq
LIMIT @lim;

-- name: EventsByActivityIDs :many
-- EventsByActivityIDs reads activities as feed events, by their ids, in position order.
SELECT a.seq, a.id, coalesce(a.workspace_id, p.workspace_id)::uuid AS workspace_id, a.project_id, a.card_id,
       a.document_id, a.actor_id, a.type, a.meta, a.created_at,
       (CASE WHEN a.agent_id IS NOT NULL OR u.is_service THEN 'agent' WHEN a.actor_id IS NOT NULL THEN 'person'
             ELSE 'system' END)::text AS actor_type,
       a.agent_id, coalesce(ag.name, u.name, '')::text AS agent_name,
       a.on_behalf_of, coalesce(ob.name, '')::text AS on_behalf_of_name
FROM activities a
LEFT JOIN projects p ON p.id = a.project_id
LEFT JOIN users u ON u.id = a.actor_id
LEFT JOIN agents ag ON ag.id = a.agent_id
LEFT JOIN users ob ON ob.id = a.on_behalf_of
WHERE a.id = ANY(@ids::uuid[])
ORDER BY a.seq;

-- name: EventsRecent :many
-- EventsRecent lists the positions of the last @lim rows, highest first (the poller's start: which
-- positions below the highest are still missing).
SELECT seq FROM activities ORDER BY seq DESC LIMIT @lim;

-- name: EventsCursorTime :one
-- EventsCursorTime is the time of the last activity at or before a position (no row when there is
-- none): how old a reader's cursor is.
SELECT created_at FROM activities WHERE seq <= @seq ORDER BY seq DESC LIMIT 1;

-- name: EventsHorizon :one
-- EventsHorizon is the current snapshot's oldest running transaction (xmin) and the next transaction
-- id (xmax): a position missing from a read is given up once every transaction running when it was
-- found missing has ended (xmin has passed that read's xmax) and it is still not there.
SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin,
       pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax;

-- name: EventsMissionRef :one
-- EventsMissionRef is what a mission's status change records for the feed: its workspace, project and
-- card, its agent's user (the actor), the agent and the member who started the mission.
SELECT m.workspace_id, m.project_id, m.card_id, a.user_id AS agent_user_id, a.id AS agent_id, m.created_by
FROM agent_missions m JOIN agents a ON a.id = m.agent_id
WHERE m.id = @id;
