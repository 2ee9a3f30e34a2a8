-- name: ScopeExistsInProject :one
SELECT EXISTS (SELECT 1 FROM scopes WHERE id = @id AND project_id = @project_id);

-- name: ScopeInsert :one
INSERT INTO scopes (id, project_id, name, description, start_date, end_date, settings)
VALUES (@id, @project_id, @name, @description, @start_date, @end_date, @settings)
RETURNING *;

-- name: ScopeListByProject :many
SELECT * FROM scopes WHERE project_id = @project_id ORDER BY created_at, id;

-- name: ScopeGet :one
SELECT * FROM scopes WHERE id = @id AND project_id = @project_id;

-- name: ScopeGetForUpdate :one
SELECT * FROM scopes WHERE id = @id AND project_id = @project_id FOR NO KEY UPDATE;

-- name: ScopeUpdate :one
UPDATE scopes
SET name = @name, description = @description, start_date = @start_date, end_date = @end_date,
    settings = @settings, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: ScopeSetView :one
UPDATE scopes SET active_view = @active_view, updated_at = now()
WHERE id = @id AND project_id = @project_id
RETURNING *;

-- name: ScopeDelete :execrows
-- ScopeDelete removes a scope; its cards (and through them their checklists, comments, labels, values
-- and relations) go with it by cascade.
DELETE FROM scopes WHERE id = @id AND project_id = @project_id;
