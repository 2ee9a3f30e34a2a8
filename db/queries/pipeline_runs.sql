-- name: PipelineRunInsert :one
INSERT INTO pipeline_runs (id, pipeline_id, workspace_id, pipeline_name, started_by)
VALUES (@id, @pipeline_id, @workspace_id, @pipeline_name, @started_by)
RETURNING *;

-- name: PipelineRunGet :one
SELECT * FROM pipeline_runs WHERE id = @id AND pipeline_id = @pipeline_id AND workspace_id = @workspace_id;

-- name: PipelineRunGetForUpdate :one
SELECT * FROM pipeline_runs WHERE id = @id FOR UPDATE;

-- name: PipelineRunListByPipeline :many
-- PipelineRunListByPipeline is one page of a pipeline's runs, newest first: those before the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM pipeline_runs
WHERE pipeline_id = @pipeline_id AND (created_at, id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY created_at DESC, id DESC LIMIT @lim;

-- name: PipelineRunFinish :one
-- PipelineRunFinish is the guarded running -> completed|failed|cancelled move.
UPDATE pipeline_runs
SET status = @status, error = @error, finished_at = now(),
    cancelled_at = CASE WHEN @status::text = 'cancelled' THEN now() END
WHERE id = @id AND status = 'running'
RETURNING *;

-- name: PipelineRunStepsInsert :exec
INSERT INTO pipeline_run_steps (run_id, step_id, position, type, params, needs)
SELECT @run_id, s.step_id, s.position, s.type, s.params, ARRAY(SELECT jsonb_array_elements_text(s.needs))
FROM (SELECT unnest(@step_ids::text[]) AS step_id, unnest(@positions::int[]) AS position, unnest(@types::text[]) AS type,
             unnest(@params::jsonb[]) AS params, unnest(@needs::jsonb[]) AS needs) AS s;

-- name: PipelineRunStepList :many
SELECT * FROM pipeline_run_steps WHERE run_id = @run_id ORDER BY position;

-- name: PipelineRunStepListByRuns :many
SELECT * FROM pipeline_run_steps WHERE run_id = ANY(@run_ids::uuid[]) ORDER BY run_id, position;

-- name: PipelineRunStepStart :one
-- PipelineRunStepStart is the queued|running -> running move a worker makes when it takes the step;
-- no row means the step was done, skipped or cancelled meanwhile.
UPDATE pipeline_run_steps SET status = 'running', started_at = coalesce(started_at, now()), attempts = attempts + 1
WHERE run_id = @run_id AND step_id = @step_id AND status IN ('queued', 'running')
RETURNING *;

-- name: PipelineRunStepGetForUpdate :one
SELECT * FROM pipeline_run_steps WHERE run_id = @run_id AND step_id = @step_id FOR UPDATE;

-- name: PipelineRunStepFinish :execrows
-- PipelineRunStepFinish is the guarded move of a step still in progress to completed or failed: the
-- step key. No row means an earlier attempt already recorded it.
UPDATE pipeline_run_steps SET status = @status, output = @output, error = @error, finished_at = now()
WHERE run_id = @run_id AND step_id = @step_id AND status IN ('queued', 'running', 'waiting');

-- name: PipelineRunStepWait :execrows
UPDATE pipeline_run_steps SET status = 'waiting', output = @output, wait_ref = @wait_ref
WHERE run_id = @run_id AND step_id = @step_id AND status IN ('queued', 'running');

-- name: PipelineRunStepsSetStatus :exec
-- PipelineRunStepsSetStatus moves the steps named (among those not finished) to a status.
UPDATE pipeline_run_steps SET status = @status,
    finished_at = CASE WHEN @status::text IN ('skipped', 'cancelled') THEN now() END
WHERE run_id = @run_id AND step_id = ANY(@step_ids::text[]) AND status IN ('pending', 'queued', 'running', 'waiting');

-- name: PipelineRunStepsQueue :exec
-- PipelineRunStepsQueue moves steps to queued with the jobs just enqueued for them.
UPDATE pipeline_run_steps SET status = 'queued', job_id = j.job_id
FROM (SELECT unnest(@step_ids::text[]) AS step_id, unnest(@job_ids::bigint[]) AS job_id) AS j
WHERE run_id = @run_id AND pipeline_run_steps.step_id = j.step_id;

-- name: PipelineRunStepsStopAll :many
-- PipelineRunStepsStopAll moves every unfinished step of a run to skipped or cancelled and answers
-- them (with their jobs and waits, to cancel those).
UPDATE pipeline_run_steps SET status = @status, finished_at = now()
WHERE run_id = @run_id AND status IN ('pending', 'queued', 'running', 'waiting')
RETURNING *;

-- name: PipelineRunStepWaiting :many
SELECT run_id, step_id FROM pipeline_run_steps WHERE wait_ref = @wait_ref AND status = 'waiting';

-- name: PipelineRunGetByID :one
SELECT * FROM pipeline_runs WHERE id = @id;

-- name: PipelineRunListRunningByStarter :many
-- PipelineRunListRunningByStarter locks, in id order, the running runs a user started in these
-- workspaces: the runs cancelled when the user leaves them (migration 00023's index).
SELECT * FROM pipeline_runs
WHERE started_by = @started_by AND status = 'running' AND workspace_id = ANY(@workspace_ids::uuid[])
ORDER BY id
FOR UPDATE;

-- name: PipelineRunStarterMayRun :one
-- PipelineRunStarterMayRun says whether a run's starter still holds the role that starting a run needs
-- (the api's pipeline-runs-start): workspace admin, which organization owners and admins are in every
-- workspace of their organization (tenancy.EffectiveWorkspaceRoles).
SELECT EXISTS (
    SELECT 1 FROM workspace_members wm
    WHERE wm.workspace_id = @workspace_id AND wm.user_id = @user_id AND wm.role = 'admin'
    UNION ALL
    SELECT 1 FROM workspaces w
    JOIN organization_members om ON om.organization_id = w.organization_id AND om.user_id = @user_id
    WHERE w.id = @workspace_id AND om.role IN ('owner', 'admin')
) AS may_run;
