-- name: PilotageDocInsert :one
INSERT INTO pilotage_docs (id, workspace_id, title, owner, source_type, created_by, updated_by)
VALUES (@id, @workspace_id, @title, @owner, @source_type, @actor_id, @actor_id)
RETURNING *;

-- name: PilotageDocList :many
SELECT * FROM pilotage_docs WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: PilotageDocGetForUpdate :one
SELECT * FROM pilotage_docs WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: PilotageDocUpdate :one
UPDATE pilotage_docs
SET title = @title, owner = @owner, source_type = @source_type, updated_by = @actor_id, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: PilotageDocDelete :one
DELETE FROM pilotage_docs WHERE id = @id AND workspace_id = @workspace_id RETURNING *;
