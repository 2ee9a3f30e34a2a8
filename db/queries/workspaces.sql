-- name: WorkspaceInsert :one
INSERT INTO workspaces (id, organization_id, name, slug, owner_id, is_personal)
VALUES (@id, @organization_id, @name, @slug, @owner_id, @is_personal)
RETURNING *;

-- name: WorkspaceMemberUpsert :exec
INSERT INTO workspace_members (workspace_id, user_id, role, pilotage_role)
VALUES (@workspace_id, @user_id, @role, @pilotage_role)
ON CONFLICT (workspace_id, user_id) DO NOTHING;

-- name: WorkspaceListAccessible :many
-- WorkspaceListAccessible lists the workspaces of an organization a user may open: all of them for the
-- organization's owner and admins, the ones they belong to for members.
SELECT w.*, wm.role AS member_role, wm.pilotage_role AS member_pilotage_role
FROM workspaces w
LEFT JOIN workspace_members wm ON wm.workspace_id = w.id AND wm.user_id = @user_id
WHERE w.organization_id = @organization_id
  AND (@org_admin::boolean OR wm.user_id IS NOT NULL)
ORDER BY w.created_at, w.id;

-- name: WorkspaceGetByID :one
SELECT * FROM workspaces WHERE id = @id;

-- name: WorkspaceMemberList :many
-- WorkspaceMemberList is one page of a workspace's members, by the time they joined, then e-mail
-- address: those after the keyset (created_at, email) of the previous page's last.
SELECT wm.user_id, wm.role, wm.pilotage_role, u.email, u.name, wm.created_at
FROM workspace_members wm
JOIN users u ON u.id = wm.user_id
WHERE wm.workspace_id = @workspace_id AND (wm.created_at, u.email) > (@after_at::timestamptz, @after_email::text)
ORDER BY wm.created_at, u.email
LIMIT @lim;

-- name: WorkspaceMemberGet :one
SELECT wm.user_id, wm.role, wm.pilotage_role, u.email, u.name, wm.created_at
FROM workspace_members wm
JOIN users u ON u.id = wm.user_id
WHERE wm.workspace_id = @workspace_id AND wm.user_id = @user_id;

-- name: WorkspaceMemberUpdate :one
UPDATE workspace_members
SET role = coalesce(sqlc.narg('role'), role),
    pilotage_role = coalesce(sqlc.narg('pilotage_role'), pilotage_role)
WHERE workspace_id = @workspace_id AND user_id = @user_id
RETURNING *;

-- name: InvitationInsert :one
INSERT INTO workspace_invitations (id, workspace_id, email, role, token_hash, invited_by, expires_at)
VALUES (@id, @workspace_id, @email, @role, @token_hash, @invited_by, @expires_at)
RETURNING *;

-- name: InvitationGetByTokenHashForUpdate :one
SELECT i.*, w.organization_id
FROM workspace_invitations i
JOIN workspaces w ON w.id = i.workspace_id
WHERE i.token_hash = @token_hash
FOR UPDATE OF i;

-- name: InvitationSetEmailJob :exec
UPDATE workspace_invitations SET email_job_id = @email_job_id WHERE id = @id;

-- name: InvitationEmailJobsByOrganization :many
-- InvitationEmailJobsByOrganization lists the e-mail jobs of an organization's pending invitations.
SELECT i.email_job_id::bigint AS email_job_id
FROM workspace_invitations i
JOIN workspaces w ON w.id = i.workspace_id
WHERE w.organization_id = @organization_id AND i.accepted_at IS NULL AND i.email_job_id IS NOT NULL;

-- name: InvitationPending :one
-- InvitationPending says whether an invitation still exists and is not accepted yet.
SELECT EXISTS (SELECT 1 FROM workspace_invitations WHERE id = @id AND accepted_at IS NULL) AS pending;

-- name: InvitationMarkAccepted :exec
UPDATE workspace_invitations SET accepted_at = now(), accepted_by = @accepted_by WHERE id = @id;

-- name: AccessResolve :one
-- AccessResolve answers, in one round trip, what a user may do in an organization and optionally one of
-- its workspaces. A missing organization or non-membership yields no row.
SELECT o.id AS org_id, o.name AS org_name, o.slug AS org_slug, o.owner_id AS org_owner_id,
       o.created_at AS org_created_at, o.is_personal AS org_is_personal, om.role AS org_role,
       w.id AS ws_id, wm.role AS ws_role, wm.pilotage_role AS ws_pilotage_role, p.id AS project_id,
       p.archived_at AS project_archived_at
FROM organizations o
JOIN organization_members om ON om.organization_id = o.id AND om.user_id = @user_id
LEFT JOIN workspaces w ON w.organization_id = o.id AND w.slug = @ws_slug
LEFT JOIN workspace_members wm ON wm.workspace_id = w.id AND wm.user_id = @user_id
LEFT JOIN projects p ON p.workspace_id = w.id AND p.id = sqlc.narg('project_id')
WHERE o.slug = @org_slug;

-- name: WorkspaceMemberExistsByEmail :one
SELECT EXISTS (
    SELECT 1 FROM workspace_members wm JOIN users u ON u.id = wm.user_id
    WHERE wm.workspace_id = @workspace_id AND lower(u.email) = lower(@email)
);

-- name: WorkspaceTransferOwnership :exec
-- WorkspaceTransferOwnership hands the workspaces a departing member owned to the organization's owner.
UPDATE workspaces w SET owner_id = o.owner_id, updated_at = now()
FROM organizations o
WHERE o.id = w.organization_id AND w.organization_id = @organization_id AND w.owner_id = @user_id;

-- name: UserAccessResolve :one
-- UserAccessResolve is AccessResolve together with the user's row, for callers authenticated by a JWT:
-- one round trip for identity, their session and tenancy. No row means the session is not active
-- (revoked, expired or another user's); non-membership shows as a null org_role.
SELECT sqlc.embed(u),
       o.id AS org_id, o.name AS org_name, o.slug AS org_slug, o.owner_id AS org_owner_id,
       o.created_at AS org_created_at, o.is_personal AS org_is_personal, om.role AS org_role,
       w.id AS ws_id, wm.role AS ws_role, wm.pilotage_role AS ws_pilotage_role, p.id AS project_id,
       p.archived_at AS project_archived_at
FROM users u
JOIN sessions s ON s.id = @session_id AND s.user_id = u.id AND s.revoked_at IS NULL AND s.expires_at > now()
LEFT JOIN organizations o ON o.slug = @org_slug
LEFT JOIN organization_members om ON om.organization_id = o.id AND om.user_id = u.id
LEFT JOIN workspaces w ON w.organization_id = o.id AND w.slug = @ws_slug
LEFT JOIN workspace_members wm ON wm.workspace_id = w.id AND wm.user_id = u.id
LEFT JOIN projects p ON p.workspace_id = w.id AND p.id = sqlc.narg('project_id')
WHERE u.id = @user_id;

-- name: WorkspaceUpdate :one
-- WorkspaceUpdate renames a workspace and/or changes its slug (unique within its organization).
UPDATE workspaces
SET name = coalesce(sqlc.narg('name'), name),
    slug = coalesce(sqlc.narg('slug'), slug),
    updated_at = now()
WHERE id = @id
RETURNING *;

-- name: WorkspaceDelete :execrows
-- WorkspaceDelete removes a workspace that is not a personal one; everything in it cascades (projects
-- and what they hold, documents, agents, skills, missions, pipelines and runs, pilotage records, drafts,
-- memberships, invitations, workspace activities).
DELETE FROM workspaces WHERE id = @id AND NOT is_personal;

-- name: InvitationEmailJobsByWorkspace :many
-- InvitationEmailJobsByWorkspace lists the e-mail jobs of a workspace's pending invitations.
SELECT email_job_id::bigint AS email_job_id
FROM workspace_invitations
WHERE workspace_id = @workspace_id AND accepted_at IS NULL AND email_job_id IS NOT NULL;

-- name: MissionJobsUnfinishedByWorkspace :many
-- MissionJobsUnfinishedByWorkspace lists the jobs of a workspace's missions that have not settled.
SELECT job_id::bigint AS job_id FROM agent_missions
WHERE workspace_id = @workspace_id AND status IN ('queued', 'running', 'awaiting_approval') AND job_id IS NOT NULL;

-- name: RunStepJobsRunningByWorkspace :many
-- RunStepJobsRunningByWorkspace lists the jobs of the unfinished steps of a workspace's running runs.
SELECT s.job_id::bigint AS job_id
FROM pipeline_run_steps s
JOIN pipeline_runs r ON r.id = s.run_id
WHERE r.workspace_id = @workspace_id AND r.status = 'running' AND s.job_id IS NOT NULL
  AND s.status NOT IN ('completed', 'failed', 'skipped', 'cancelled');

-- name: AttachmentsExistInWorkspace :one
SELECT EXISTS (
    SELECT 1 FROM attachments a JOIN cards c ON c.id = a.card_id JOIN projects p ON p.id = c.project_id
    WHERE p.workspace_id = @workspace_id
) AS has_attachments;

-- name: InvitationPendingPage :many
-- InvitationPendingPage is one page of a workspace's invitations not accepted yet (expired ones too), in
-- creation order, with their inviter's name and address (docs/pagination.md).
SELECT i.id, i.email, i.role, i.expires_at, i.created_at, u.name AS inviter_name, u.email AS inviter_email
FROM workspace_invitations i
JOIN users u ON u.id = i.invited_by
WHERE i.workspace_id = @workspace_id AND i.accepted_at IS NULL
  AND (i.created_at, i.id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY i.created_at, i.id
LIMIT @lim;

-- name: InvitationPendingGetForUpdate :one
-- InvitationPendingGetForUpdate reads and locks a workspace's invitation not accepted yet, with what its
-- e-mail says: the workspace's name and the inviter's name and address.
SELECT i.*, w.name AS workspace_name, u.name AS inviter_name, u.email AS inviter_email
FROM workspace_invitations i
JOIN workspaces w ON w.id = i.workspace_id
JOIN users u ON u.id = i.invited_by
WHERE i.id = @id AND i.workspace_id = @workspace_id AND i.accepted_at IS NULL
FOR UPDATE OF i;

-- name: InvitationRenew :exec
-- InvitationRenew gives an invitation a new token, a new expiry and the job of its new e-mail.
UPDATE workspace_invitations SET token_hash = @token_hash, expires_at = @expires_at, email_job_id = @email_job_id
WHERE id = @id;

-- name: InvitationDeletePending :one
-- InvitationDeletePending withdraws a workspace's invitation not accepted yet; it answers its e-mail's job and the address invited (the audit log names it).
DELETE FROM workspace_invitations
WHERE id = @id AND workspace_id = @workspace_id AND accepted_at IS NULL
RETURNING email_job_id, email;

-- name: InvitationPreviewByTokenHash :one
-- InvitationPreviewByTokenHash is what the invitee of a token may read before accepting: the workspace's
-- and its organization's names, the inviter's name and address, the role and whether it is still open.
SELECT w.name AS workspace_name, o.name AS organization_name, u.name AS inviter_name, u.email AS inviter_email,
       i.role, i.expires_at, i.accepted_at
FROM workspace_invitations i
JOIN workspaces w ON w.id = i.workspace_id
JOIN organizations o ON o.id = w.organization_id
JOIN users u ON u.id = i.invited_by
WHERE i.token_hash = @token_hash;
