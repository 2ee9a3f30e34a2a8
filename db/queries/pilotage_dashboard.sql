-- name: PilotageStatusCounts :many
-- PilotageStatusCounts counts a workspace's missions, todos and proposed actions by status, and its
-- overdue todos (due in the past, not done) as kind 'todo', status 'overdue', in one statement.
WITH ws AS (SELECT @workspace_id::uuid AS id)
SELECT 'mission'::text AS kind, m.status, count(*)::int AS n
FROM pilotage_missions m JOIN ws ON m.workspace_id = ws.id GROUP BY m.status
UNION ALL
SELECT 'todo'::text, t.status, count(*)::int FROM pilotage_todos t JOIN ws ON t.workspace_id = ws.id GROUP BY t.status
UNION ALL
SELECT 'todo'::text, 'overdue'::text, count(*)::int FROM pilotage_todos t JOIN ws ON t.workspace_id = ws.id
WHERE t.status <> 'done' AND t.due_date < now()
UNION ALL
SELECT 'action'::text, a.status, count(*)::int FROM pilotage_actions a JOIN ws ON a.workspace_id = ws.id GROUP BY a.status;

-- name: PilotageMissionListBlocked :many
SELECT * FROM pilotage_missions WHERE workspace_id = @workspace_id AND status = 'blocked' ORDER BY updated_at DESC, id;

-- name: PilotageTodoListOpen :many
-- PilotageTodoListOpen lists the todos not done, soonest due first (undated last), at most lim.
SELECT * FROM pilotage_todos WHERE workspace_id = @workspace_id AND status <> 'done'
ORDER BY due_date NULLS LAST, created_at, id
LIMIT @lim;

-- name: PilotageActionListPending :many
-- PilotageActionListPending lists the actions awaiting a person: suggested (to review) and approved (to
-- apply), oldest first, at most lim.
SELECT * FROM pilotage_actions WHERE workspace_id = @workspace_id AND status IN ('suggested', 'approved')
ORDER BY created_at, id
LIMIT @lim;

-- name: PilotageDecisionListSince :many
SELECT * FROM pilotage_decisions WHERE workspace_id = @workspace_id AND created_at >= @since ORDER BY created_at, id;
