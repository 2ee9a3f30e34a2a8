-- name: ProjectInsert :one
INSERT INTO projects (id, workspace_id, name, description, deadline, template_id, created_by)
VALUES (@id, @workspace_id, @name, @description, @deadline, @template_id, @created_by)
RETURNING *;

-- name: ProjectListByWorkspace :many
SELECT * FROM projects WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: ProjectGet :one
SELECT * FROM projects WHERE id = @id AND workspace_id = @workspace_id;

-- name: ProjectLock :one
-- ProjectLock serialises changes of a project's column order. NO KEY UPDATE leaves card inserts (which
-- take KEY SHARE through their foreign key) unblocked.
SELECT id FROM projects WHERE id = @id FOR NO KEY UPDATE;

-- name: ProjectUpdate :one
UPDATE projects
SET name = coalesce(sqlc.narg('name'), name),
    description = coalesce(sqlc.narg('description'), description),
    deadline = CASE WHEN @set_deadline::boolean THEN sqlc.narg('deadline') ELSE deadline END,
    updated_at = now()
WHERE id = @id
RETURNING *;

-- name: ProjectMemberAdd :execrows
INSERT INTO project_members (project_id, user_id) VALUES (@project_id, @user_id)
ON CONFLICT DO NOTHING;

-- name: ProjectMemberRemove :execrows
DELETE FROM project_members WHERE project_id = @project_id AND user_id = @user_id;

-- name: ProjectMemberIsMember :one
SELECT EXISTS (SELECT 1 FROM project_members WHERE project_id = @project_id AND user_id = @user_id);

-- name: WorkspaceMemberByEmail :one
SELECT u.id, u.email, u.name
FROM workspace_members wm JOIN users u ON u.id = wm.user_id
WHERE wm.workspace_id = @workspace_id AND lower(u.email) = lower(@email);

-- name: WorkspaceMemberIsMember :one
SELECT EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = @workspace_id AND user_id = @user_id);

-- name: ProjectIDsOfMemberInWorkspaces :many
-- ProjectIDsOfMemberInWorkspaces lists the projects of these workspaces a user is a member of: the
-- memberships a member who leaves the workspaces loses.
SELECT p.id
FROM projects p
JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = @user_id
WHERE p.workspace_id = ANY(@workspace_ids::uuid[])
ORDER BY p.id;

-- name: ProjectDelete :one
-- ProjectDelete removes a project of a workspace; every table under it cascades (columns, cards and
-- their parts, labels, custom fields, scopes, automation rules, activities, missions, document links).
DELETE FROM projects WHERE id = @id AND workspace_id = @workspace_id
RETURNING *;

-- name: ProjectMemberIDs :many
SELECT user_id FROM project_members WHERE project_id = @project_id ORDER BY created_at, user_id;

-- name: MissionsUnfinishedByProject :many
-- MissionsUnfinishedByProject lists the missions of a project that have not settled, with their jobs,
-- so deleting the project can end the pipeline steps waiting for them and cancel their jobs.
SELECT id, job_id FROM agent_missions
WHERE project_id = @project_id AND status IN ('queued', 'running', 'awaiting_approval')
ORDER BY id
FOR UPDATE;

-- name: AttachmentsExistInProject :one
SELECT EXISTS (SELECT 1 FROM attachments a JOIN cards c ON c.id = a.card_id WHERE c.project_id = @project_id) AS has_attachments;

-- name: ProjectPageByWorkspace :many
-- ProjectPageByWorkspace is one page of a workspace's projects, oldest first: those after the keyset
-- (created_at, id) of the previous page's last (docs/pagination.md). A null archived lists them all,
-- else those archived or not.
SELECT * FROM projects
WHERE workspace_id = @workspace_id AND (created_at, id) > (@after_at::timestamptz, @after_id::uuid)
  AND (sqlc.narg('archived')::boolean IS NULL OR (archived_at IS NOT NULL) = sqlc.narg('archived')::boolean)
ORDER BY created_at, id
LIMIT @lim;

-- name: ProjectMemberList :many
-- ProjectMemberList is one page of a project's members, by the time they were added, then e-mail
-- address: those after the keyset (created_at, email) of the previous page's last.
SELECT pm.user_id, u.email, u.name, pm.created_at
FROM project_members pm JOIN users u ON u.id = pm.user_id
WHERE pm.project_id = @project_id AND (pm.created_at, u.email) > (@after_at::timestamptz, @after_email::text)
ORDER BY pm.created_at, u.email
LIMIT @lim;

-- name: ProjectSetArchived :one
-- ProjectSetArchived archives (archived_at now) or restores (archived_at null) a project of a workspace
-- that is not in that state yet; no row when it is not found or already is.
UPDATE projects
SET archived_at = CASE WHEN @archived::boolean THEN now() END, updated_at = now()
WHERE id = @id AND workspace_id = @workspace_id AND (archived_at IS NOT NULL) <> @archived::boolean
RETURNING *;
