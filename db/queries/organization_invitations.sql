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

-- name: OrgInvitationPendingPage :many
-- OrgInvitationPendingPage is one page of an organization's invitations not accepted yet (expired ones
-- too), in creation order, with their inviter's name and address (docs/pagination.md).
SELECT i.id, i.email, i.role, i.expires_at, i.created_at, u.name AS inviter_name, u.email AS inviter_email
FROM organization_invitations i
JOIN users u ON u.id = i.invited_by
WHERE i.organization_id = @organization_id AND i.accepted_at IS NULL
  AND (i.created_at, i.id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY i.created_at, i.id
LIMIT @lim;

-- name: OrgInvitationPendingGetForUpdate :one
-- OrgInvitationPendingGetForUpdate reads and locks an organization's invitation not accepted yet, with
-- what its e-mail says: the organization's name and the inviter's name and address.
SELECT i.*, o.name AS organization_name, u.name AS inviter_name, u.email AS inviter_email
FROM organization_invitations i
JOIN organizations o ON o.id = i.organization_id
JOIN users u ON u.id = i.invited_by
WHERE i.id = @id AND i.organization_id = @organization_id AND i.accepted_at IS NULL
FOR UPDATE OF i;

-- name: OrgInvitationRenew :exec
-- OrgInvitationRenew gives an invitation a new token, a new expiry and the job of its new e-mail.
UPDATE organization_invitations SET token_hash = @token_hash, expires_at = @expires_at, email_job_id = @email_job_id
WHERE id = @id;

-- name: OrgInvitationDeletePending :one
-- OrgInvitationDeletePending withdraws an organization's invitation not accepted yet; it answers its
-- e-mail's job and the address invited (the audit log names it).
DELETE FROM organization_invitations
WHERE id = @id AND organization_id = @organization_id AND accepted_at IS NULL
RETURNING email_job_id, email;

-- name: OrgInvitationPreviewByTokenHash :one
-- OrgInvitationPreviewByTokenHash is what the invitee of a token may read before accepting: the
-- organization's name, the inviter's name and address, the role and whether it is still open.
SELECT o.name AS organization_name, u.name AS inviter_name, u.email AS inviter_email, i.role, i.expires_at,
       i.accepted_at
FROM organization_invitations i
JOIN organizations o ON o.id = i.organization_id
JOIN users u ON u.id = i.invited_by
WHERE i.token_hash = @token_hash;
