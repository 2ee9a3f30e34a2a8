-- name: PilotageActionInsert :one
INSERT INTO pilotage_actions (id, workspace_id, action_type, explanation, payload, proposed_by, agent_mission_id)
VALUES (@id, @workspace_id, @action_type, @explanation, @payload, @proposed_by, @agent_mission_id)
RETURNING *;

-- name: PilotageActionList :many
-- PilotageActionList is one page of a workspace's actions, newest first, of one status when status is
-- given: those before the keyset (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM pilotage_actions
WHERE workspace_id = @workspace_id AND (sqlc.narg('status')::text IS NULL OR status = sqlc.narg('status')::text)
  AND (created_at, id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: PilotageActionGet :one
SELECT * FROM pilotage_actions WHERE id = @id AND workspace_id = @workspace_id;

-- name: PilotageActionReview :one
-- PilotageActionReview is the guarded suggested -> approved | rejected move: no row when the action is
-- not suggested any more (someone reviewed it first).
UPDATE pilotage_actions
SET status = @status, reviewed_by = @actor_id, reviewed_at = now(), review_reason = @reason, updated_at = now()
WHERE id = @id AND workspace_id = @workspace_id AND status = 'suggested'
RETURNING *;

-- name: PilotageActionApply :one
-- PilotageActionApply is the guarded approved -> applied move: no row when the action is not approved.
UPDATE pilotage_actions
SET status = 'applied', applied_by = @actor_id, applied_at = now(), updated_at = now()
WHERE id = @id AND workspace_id = @workspace_id AND status = 'approved'
RETURNING *;

-- name: PilotageActionSetResult :one
UPDATE pilotage_actions SET result = @result WHERE id = @id RETURNING *;
