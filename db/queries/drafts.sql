-- name: DraftInsert :one
INSERT INTO project_drafts (id, workspace_id, name, description, context_documents, team_members, created_by)
VALUES (@id, @workspace_id, @name, @description, @context_documents, @team_members, @created_by)
RETURNING *;

-- name: DraftListByWorkspace :many
-- DraftListByWorkspace is one page of a workspace's drafts, newest first: those before the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM project_drafts
WHERE workspace_id = @workspace_id AND (created_at, id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: DraftGet :one
SELECT * FROM project_drafts WHERE id = @id AND workspace_id = @workspace_id;

-- name: DraftGetByID :one
SELECT * FROM project_drafts WHERE id = @id;

-- name: DraftGetForUpdate :one
SELECT * FROM project_drafts WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: DraftDelete :execrows
DELETE FROM project_drafts WHERE id = @id AND workspace_id = @workspace_id;

-- name: DraftStartRefine :one
-- DraftStartRefine records a round's answers and starts a refinement run; no row when the draft is not
-- in a status that allows it.
UPDATE project_drafts
SET status = 'refining', answers = @answers, questions = '[]', error = NULL, run = run + 1, updated_at = now()
WHERE id = @id AND status IN ('framing', 'refined', 'failed')
RETURNING *;

-- name: DraftStartRoadmap :one
-- DraftStartRoadmap starts a roadmap run; no row when the draft is not in a status that allows it.
UPDATE project_drafts
SET status = 'generating', error = NULL, run = run + 1, updated_at = now()
WHERE id = @id AND status IN ('framing', 'refined', 'roadmap_ready', 'failed')
RETURNING *;

-- name: DraftFinishRefine :one
-- DraftFinishRefine stores a refinement run's questions, once: only the run that is still working.
UPDATE project_drafts
SET status = 'refined', questions = @questions, rounds = least(rounds + 1, @max_rounds::int), updated_at = now()
WHERE id = @id AND status = 'refining' AND run = @run
RETURNING *;

-- name: DraftFinishRoadmap :one
-- DraftFinishRoadmap stores a roadmap run's roadmap, once: only the run that is still working.
UPDATE project_drafts
SET status = 'roadmap_ready', roadmap = @roadmap, updated_at = now()
WHERE id = @id AND status = 'generating' AND run = @run
RETURNING *;

-- name: DraftFail :one
-- DraftFail records why a run failed, once: only the run that is still working.
UPDATE project_drafts
SET status = 'failed', error = @error, updated_at = now()
WHERE id = @id AND status IN ('refining', 'generating') AND run = @run
RETURNING *;

-- name: DraftMarkExecuted :one
UPDATE project_drafts
SET status = 'executed', project_id = @project_id, executed_at = now(), updated_at = now()
WHERE id = @id AND status = 'roadmap_ready'
RETURNING *;

-- name: DraftRecordAnswers :one
-- DraftRecordAnswers keeps the answers of the last round (no more questions come).
UPDATE project_drafts SET answers = @answers, questions = '[]', updated_at = now()
WHERE id = @id AND status = 'refined'
RETURNING *;

-- name: DraftLockKey :one
-- DraftLockKey keeps a draft from being deleted until commit (an event appended to its stream).
SELECT id FROM project_drafts WHERE id = @id FOR KEY SHARE;

-- name: DraftSetRoadmap :one
-- DraftSetRoadmap stores a roadmap a person edited; the caller holds the draft's lock and checked its status.
UPDATE project_drafts SET roadmap = @roadmap, updated_at = now() WHERE id = @id RETURNING *;
