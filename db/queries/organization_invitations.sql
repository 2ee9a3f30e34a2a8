-- name: OrgInvitationInsert :one
INSERT INTO organization_invitations (id, organization_id, email, role, token_hash, invited_by, expires_at)
VALUES (@id, @organization_id, @email, @role, @token_hash, @invited_by, @expires_at)
RETURNING *;

-- name: OrgInvitationSetEmailJob :exec
UPDATE organization_invitations SET email_job_id = @email_job_id WHERE id = @id;

-- name: OrgInvitationGetByTokenHashForUpdate :one
SELECT * FROM organization_invitations WHERE token_hash = @token_hash FOR UPDATE;

-- name: OrgInvitationMarkAccepted :exec
UPDATE organization_invitations SET accepted_at = now(), accepted_by = @accepted_by WHERE id = @id;

-- name: OrgInvitationPending :one
-- OrgInvitationPending says whether an organization invitation still exists and is not accepted yet.
SELECT EXISTS (SELECT 1 FROM organization_invitations WHERE id = @id AND accepted_at IS NULL) AS pending;

-- name: OrgInvitationEmailJobsByOrganization :many
-- OrgInvitationEmailJobsByOrganization lists the e-mail jobs of an organization's pending invitations.
SELECT email_job_id::bigint AS email_job_id
FROM organization_invitations
WHERE organization_id = @organization_id AND accepted_at IS NULL AND email_job_id IS NOT NULL;

-- name: OrganizationMemberExistsByEmail :one
SELECT EXISTS (
    SELECT 1 FROM organization_members m JOIN users u ON u.id = m.user_id
    WHERE m.organization_id = @organization_id AND lower(u.email) = lower(@email)
) AS member;
