-- name: MissionInsert :one
INSERT INTO agent_missions (id, workspace_id, agent_id, project_id, card_id, source, objective, max_steps, created_by)
VALUES (@id, @workspace_id, @agent_id, @project_id, @card_id, @source, @objective, @max_steps, @created_by)
RETURNING *;

-- name: MissionSetJob :exec
UPDATE agent_missions SET job_id = @job_id WHERE id = @id;

-- name: MissionCountSince :one
SELECT count(*)::int FROM agent_missions WHERE agent_id = @agent_id AND created_at > @since;

-- name: MissionGet :one
SELECT * FROM agent_missions WHERE id = @id AND workspace_id = @workspace_id;

-- name: MissionGetByID :one
SELECT * FROM agent_missions WHERE id = @id;

-- name: MissionGetForUpdate :one
SELECT * FROM agent_missions WHERE id = @id FOR UPDATE;

-- name: MissionListByAgent :many
-- MissionListByAgent is one page of an agent's missions, newest first: those before the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM agent_missions
WHERE agent_id = @agent_id AND (created_at, id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY created_at DESC, id DESC LIMIT @lim;

-- name: MissionListByWorkspace :many
-- MissionListByWorkspace is one page of a workspace's missions, newest first, filtered by the arguments
-- that are not null (status, agent, card): those before the keyset (created_at, id) of the previous
-- page's last (docs/pagination.md).
SELECT * FROM agent_missions
WHERE workspace_id = @workspace_id
  AND (sqlc.narg('status')::text IS NULL OR status = sqlc.narg('status'))
  AND (sqlc.narg('agent_id')::uuid IS NULL OR agent_id = sqlc.narg('agent_id'))
  AND (sqlc.narg('card_id')::uuid IS NULL OR card_id = sqlc.narg('card_id'))
  AND (created_at, id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY created_at DESC, id DESC LIMIT @lim;

-- name: MissionStart :one
-- MissionStart is the guarded queued -> running move a worker makes when it takes the mission.
UPDATE agent_missions SET status = 'running', started_at = now()
WHERE id = @id AND status = 'queued'
RETURNING *;

-- name: MissionSetSteps :execrows
-- MissionSetSteps records how many model turns ran; no row means the mission is no longer running.
UPDATE agent_missions SET steps = greatest(steps, @steps::int) WHERE id = @id AND status = 'running';

-- name: MissionAddAction :exec
UPDATE agent_missions SET actions = actions + 1 WHERE id = @id;

-- name: MissionFinish :one
UPDATE agent_missions
SET status = @status, error = @error,
    finished_at = CASE WHEN @status::text IN ('completed', 'failed', 'stopped', 'expired') THEN now() ELSE finished_at END
WHERE id = @id AND status = 'running'
RETURNING *;

-- name: MissionStop :one
-- MissionStop is the guarded move of an unfinished mission to stopped (a person's stop or cancel, the
-- member who started it leaving, its budget): its question, if any, is dropped.
UPDATE agent_missions
SET status = 'stopped', stop_reason = @stop_reason, cancelled_at = now(), finished_at = now(), question = NULL,
    input_deadline = NULL
WHERE id = @id AND workspace_id = @workspace_id
  AND status IN ('queued', 'running', 'awaiting_approval', 'awaiting_input', 'stale')
RETURNING *;

-- name: MissionListActiveByCreator :many
-- MissionListActiveByCreator lists the unfinished missions a user started directly in these workspaces
-- (not a pipeline's), in id order, the order their locks are taken in: what a member who leaves the
-- workspaces has stopped (agent_missions_active_creator_idx).
SELECT id, workspace_id FROM agent_missions
WHERE created_by = @created_by AND workspace_id = ANY(@workspace_ids::uuid[]) AND source <> 'pipeline'
  AND status IN ('queued', 'running', 'awaiting_approval', 'awaiting_input', 'stale')
ORDER BY id;

-- name: MissionAsk :one
-- MissionAsk is the guarded running -> awaiting_input move of a mission whose model asked a question:
-- the question, its deadline and the conversation to resume from are kept on the row.
UPDATE agent_missions
SET status = 'awaiting_input', question = @question, input_deadline = @input_deadline, conversation = @conversation
WHERE id = @id AND status = 'running'
RETURNING *;

-- name: MissionResume :one
-- MissionResume puts a mission waiting for an answer (its conversation then holds the answer) or a stale
-- one back to running under a new job.
UPDATE agent_missions
SET status = 'running', question = NULL, input_deadline = NULL,
    conversation = coalesce(sqlc.narg('conversation')::jsonb, conversation), job_id = @job_id
WHERE id = @id AND status = @from_status
RETURNING *;

-- name: MissionReclaimStale :one
-- MissionReclaimStale is a worker coming back to a mission marked stale meanwhile: running again.
UPDATE agent_missions SET status = 'running' WHERE id = @id AND status = 'stale'
RETURNING *;

-- name: MissionExpireInput :one
-- MissionExpireInput ends a mission whose question went unanswered past its deadline.
UPDATE agent_missions SET status = 'expired', finished_at = now(), error = 'the question went unanswered'
WHERE id = @id AND status = 'awaiting_input' AND input_deadline <= now()
RETURNING *;

-- name: MissionMarkStale :many
-- MissionMarkStale marks stale the running missions (of in-process agents; an MCP client's claim has its
-- own expiry) whose last event is older than @before.
UPDATE agent_missions m SET status = 'stale'
WHERE m.status = 'running' AND m.claimed_by IS NULL
  AND coalesce((SELECT e.created_at FROM stream_events e WHERE e.stream_id = m.id ORDER BY e.seq DESC LIMIT 1),
                m.started_at, m.created_at) < @before::timestamptz
RETURNING *;

-- name: MissionCompleteIfSettled :one
-- MissionCompleteIfSettled completes a mission awaiting approval once no proposal is pending.
UPDATE agent_missions m SET status = 'completed', finished_at = now()
WHERE m.id = @id AND m.status = 'awaiting_approval'
  AND NOT EXISTS (SELECT 1 FROM agent_proposals p WHERE p.mission_id = m.id AND p.status = 'pending')
RETURNING *;

-- name: MissionStepGet :one
SELECT * FROM mission_steps WHERE mission_id = @mission_id AND step_key = @step_key;

-- name: MissionStepInsert :execrows
INSERT INTO mission_steps (mission_id, step_key, seq, tool, args, outcome, result)
VALUES (@mission_id, @step_key, (SELECT count(*)::int + 1 FROM mission_steps s WHERE s.mission_id = @mission_id), @tool, @args, @outcome, @result)
ON CONFLICT (mission_id, step_key) DO NOTHING;

-- name: MissionStepList :many
SELECT * FROM mission_steps WHERE mission_id = @mission_id ORDER BY seq;

-- name: ProposalInsert :one
INSERT INTO agent_proposals (id, mission_id, workspace_id, step_key, tool, args, explanation)
VALUES (@id, @mission_id, @workspace_id, @step_key, @tool, @args, @explanation)
RETURNING *;

-- name: ProposalGet :one
SELECT * FROM agent_proposals WHERE id = @id AND workspace_id = @workspace_id;

-- name: ProposalDecide :one
UPDATE agent_proposals SET status = @status, reason = @reason, decided_by = @decided_by, decided_at = now()
WHERE id = @id AND status = 'pending'
RETURNING *;

-- name: ProposalsRejectPending :exec
UPDATE agent_proposals SET status = 'rejected', reason = @reason, decided_by = @decided_by, decided_at = now()
WHERE mission_id = @mission_id AND status = 'pending';

-- name: ProposalListByMission :many
SELECT * FROM agent_proposals WHERE mission_id = @mission_id ORDER BY created_at, id;

-- name: ProposalListPending :many
SELECT * FROM agent_proposals WHERE workspace_id = @workspace_id AND status = 'pending' ORDER BY created_at, id LIMIT @lim;

-- name: ProposalPendingCount :one
SELECT count(*)::int FROM agent_proposals WHERE mission_id = @mission_id AND status = 'pending';

-- name: MissionColumnName :one
SELECT name FROM columns WHERE id = @id;

-- name: MissionListQueuedMcp :many
-- MissionListQueuedMcp lists a workspace's queued missions of mcpOnly agents, oldest first.
SELECT m.* FROM agent_missions m JOIN agents a ON a.id = m.agent_id
WHERE m.workspace_id = @workspace_id AND m.status = 'queued' AND a.mcp_only
  AND (sqlc.narg(agent_id)::uuid IS NULL OR m.agent_id = sqlc.narg(agent_id)::uuid)
ORDER BY m.created_at, m.id
LIMIT @lim;

-- name: MissionClaim :one
-- MissionClaim is the guarded queued -> running move of an MCP client taking an mcpOnly agent's mission.
UPDATE agent_missions m
SET status = 'running', started_at = coalesce(m.started_at, now()), claimed_by = @claimed_by,
    claim_expires_at = @claim_expires_at, claim_seq = m.claim_seq + 1
FROM agents a
WHERE m.id = @id AND m.workspace_id = @workspace_id AND m.status = 'queued' AND a.id = m.agent_id AND a.mcp_only
RETURNING m.*;

-- name: MissionClaimExtend :exec
UPDATE agent_missions SET claim_expires_at = @claim_expires_at WHERE id = @id;

-- name: MissionClaimRelease :one
-- MissionClaimRelease puts a claimed mission whose holder went silent back in the queue.
UPDATE agent_missions
SET status = 'queued', claimed_by = NULL, claim_expires_at = NULL
WHERE id = @id AND status = 'running' AND claim_seq = @claim_seq AND claim_expires_at <= now()
RETURNING *;
