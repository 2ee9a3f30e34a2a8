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

-- name: PilotageDocPage :many
-- PilotageDocPage is one page of the workspace's docs in creation order: those after the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md).
SELECT * FROM pilotage_docs
WHERE workspace_id = @workspace_id AND (created_at, id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY created_at, id
LIMIT @lim;
