-- name: ScopeExistsInProject :one
SELECT EXISTS (SELECT 1 FROM scopes WHERE id = @id AND project_id = @project_id);
