-- name: PipelineInsert :one
INSERT INTO pipelines (id, workspace_id, name, description, steps, enabled, created_by)
VALUES (@id, @workspace_id, @name, @description, @steps, @enabled, @created_by)
RETURNING *;

-- name: PipelineGet :one
SELECT * FROM pipelines WHERE id = @id AND workspace_id = @workspace_id;

-- name: PipelineGetForShare :one
-- PipelineGetForShare reads a pipeline for a run's start; an update waits for the start to commit.
SELECT * FROM pipelines WHERE id = @id AND workspace_id = @workspace_id FOR SHARE;

-- name: PipelineGetForUpdate :one
SELECT * FROM pipelines WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: PipelineListByWorkspace :many
SELECT * FROM pipelines WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: PipelineUpdate :one
UPDATE pipelines SET name = @name, description = @description, steps = @steps, enabled = @enabled, updated_at = now()
WHERE id = @id AND workspace_id = @workspace_id
RETURNING *;

-- name: PipelineDelete :execrows
DELETE FROM pipelines WHERE id = @id AND workspace_id = @workspace_id;
