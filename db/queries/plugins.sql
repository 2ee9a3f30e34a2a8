-- name: WorkspacePluginInsert :one
INSERT INTO workspace_plugins (workspace_id, plugin_id, settings, installed_by)
VALUES (@workspace_id, @plugin_id, @settings, @installed_by)
ON CONFLICT (workspace_id, plugin_id) DO NOTHING
RETURNING *;

-- name: WorkspacePluginList :many
SELECT * FROM workspace_plugins WHERE workspace_id = @workspace_id ORDER BY plugin_id;

-- name: WorkspacePluginGet :one
SELECT * FROM workspace_plugins WHERE workspace_id = @workspace_id AND plugin_id = @plugin_id;

-- name: WorkspacePluginUpdate :one
UPDATE workspace_plugins SET settings = @settings, updated_at = now()
WHERE workspace_id = @workspace_id AND plugin_id = @plugin_id
RETURNING *;

-- name: WorkspacePluginDelete :execrows
DELETE FROM workspace_plugins WHERE workspace_id = @workspace_id AND plugin_id = @plugin_id;

-- name: WorkspaceMemberEmails :many
-- WorkspaceMemberEmails lists a workspace's members (people and agents' service users alike).
SELECT u.id, u.email FROM workspace_members m JOIN users u ON u.id = m.user_id
WHERE m.workspace_id = @workspace_id AND NOT u.is_service ORDER BY u.id;
