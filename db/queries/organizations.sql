-- name: OrganizationInsert :one
INSERT INTO organizations (id, name, slug, owner_id)
VALUES (@id, @name, @slug, @owner_id)
RETURNING *;

-- name: OrganizationMemberInsert :exec
INSERT INTO organization_members (organization_id, user_id, role)
VALUES (@organization_id, @user_id, @role);

-- name: OrganizationMemberEnsure :exec
INSERT INTO organization_members (organization_id, user_id, role)
VALUES (@organization_id, @user_id, @role)
ON CONFLICT (organization_id, user_id) DO NOTHING;

-- name: OrganizationListByUser :many
SELECT o.id, o.name, o.slug, o.owner_id, o.created_at, m.role AS my_role, o.is_personal
FROM organizations o
JOIN organization_members m ON m.organization_id = o.id
WHERE m.user_id = @user_id
ORDER BY o.created_at, o.id;

-- name: OrganizationGetBySlug :one
SELECT * FROM organizations WHERE slug = @slug;

-- name: OrganizationUpdate :one
UPDATE organizations SET name = coalesce(sqlc.narg('name'), name), updated_at = now()
WHERE id = @id
RETURNING *;

-- name: OrganizationInsertPersonal :many
-- OrganizationInsertPersonal creates a user's personal organization unless its slug is taken: no row
-- then (a concurrent registration holding the slug is waited for), and the store tries another slug.
INSERT INTO organizations (id, name, slug, owner_id, is_personal)
VALUES (@id, @name, @slug, @owner_id, true)
ON CONFLICT (slug) DO NOTHING
RETURNING *;

-- name: OrganizationDelete :execrows
-- OrganizationDelete removes an organization unless it is the personal organization of a user who
-- still exists: no row then.
DELETE FROM organizations o
WHERE o.id = @id AND NOT (o.is_personal AND EXISTS (SELECT 1 FROM users u WHERE u.id = o.owner_id));

-- name: OrganizationIsPersonal :one
SELECT is_personal FROM organizations WHERE id = @id;

-- name: OrganizationMemberList :many
-- OrganizationMemberList is one page of an organization's members, by the time they joined, then
-- e-mail address: those after the keyset (created_at, email) of the previous page's last.
SELECT m.user_id, m.role, u.email, u.name, m.created_at
FROM organization_members m
JOIN users u ON u.id = m.user_id
WHERE m.organization_id = @organization_id AND (m.created_at, u.email) > (@after_at::timestamptz, @after_email::text)
ORDER BY m.created_at, u.email
LIMIT @lim;

-- name: OrganizationMemberGet :one
SELECT m.user_id, m.role, u.email, u.name, m.created_at
FROM organization_members m
JOIN users u ON u.id = m.user_id
WHERE m.organization_id = @organization_id AND m.user_id = @user_id;

-- name: OrganizationMemberUpdateRole :execrows
UPDATE organization_members SET role = @role
WHERE organization_id = @organization_id AND user_id = @user_id AND role <> 'owner';

-- name: OrganizationMemberDelete :execrows
DELETE FROM organization_members
WHERE organization_id = @organization_id AND user_id = @user_id AND role <> 'owner';

-- name: WorkspaceMemberDeleteByOrg :exec
-- WorkspaceMemberDeleteByOrg removes a user from every workspace of an organization.
DELETE FROM workspace_members wm
USING workspaces w
WHERE wm.workspace_id = w.id AND w.organization_id = @organization_id AND wm.user_id = @user_id;

-- name: BillingCheckoutInsert :one
INSERT INTO billing_checkouts (id, organization_id, provider, external_id, url, status, created_by)
VALUES (@id, @organization_id, @provider, @external_id, @url, @status, @created_by)
RETURNING *;

-- name: OrganizationGetByID :one
SELECT * FROM organizations WHERE id = @id;

-- name: WorkspaceIDsByOrganization :many
SELECT id FROM workspaces WHERE organization_id = @organization_id ORDER BY id;
