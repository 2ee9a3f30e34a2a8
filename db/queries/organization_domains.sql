-- name: OrganizationDomainList :many
SELECT * FROM organization_domains WHERE organization_id = @organization_id ORDER BY created_at, domain;

-- name: OrganizationDomainCount :one
SELECT count(*) FROM organization_domains WHERE organization_id = @organization_id;

-- name: OrganizationDomainInsert :one
-- OrganizationDomainInsert adds a domain unless another organization (or this one) has it: no row then.
INSERT INTO organization_domains (id, organization_id, domain, created_by)
VALUES (@id, @organization_id, @domain, @created_by)
ON CONFLICT (domain) DO NOTHING
RETURNING *;

-- name: OrganizationDomainOwner :one
SELECT organization_id FROM organization_domains WHERE domain = @domain;

-- name: OrganizationDomainDelete :one
DELETE FROM organization_domains WHERE id = @id AND organization_id = @organization_id
RETURNING *;

-- name: OrganizationDomainJoin :many
-- OrganizationDomainJoin makes the user a member of the (non-personal) organization that configured
-- domain, unless they are one already: it answers the organizations joined (none or one).
INSERT INTO organization_members (organization_id, user_id, role)
SELECT d.organization_id, @user_id, 'member'
FROM organization_domains d
JOIN organizations o ON o.id = d.organization_id AND NOT o.is_personal
WHERE d.domain = @domain
ON CONFLICT (organization_id, user_id) DO NOTHING
RETURNING organization_id;
