-- +goose Up
-- two_factor_recovery_codes are a user's one-time codes for when their authenticator is lost: ten are
-- made when two-factor authentication is turned on (and again on request), each is accepted once in
-- place of a TOTP code (a use deletes it), and turning two-factor off deletes them all. Only a SHA-256
-- of each code is kept. A code is 80 random bits, too many to search from a leaked hash, so a slow
-- password hash (argon2id) would add nothing but ten slow hashes at every renewal.
CREATE TABLE two_factor_recovery_codes (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  bytea NOT NULL CHECK (length(code_hash) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, code_hash)
);

-- account_tokens are the single-use secrets e-mailed to a user to prove they hold their address: a
-- password reset (valid an hour) or an e-mail verification (valid a day). Only a SHA-256 of a token is
-- kept: a token is 256 random bits, so a fast hash stores it safely. One live token per user and
-- purpose: a new request replaces the previous one, whose link stops working. Using a token deletes it.
-- email is the address the link went to, so a verification proves that address and no later one.
CREATE TABLE account_tokens (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose    text NOT NULL CHECK (purpose IN ('password_reset', 'email_verification')),
    token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    email      text NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, purpose)
);

-- organization_invitations invite someone by e-mail into an organization with a role (admin or member):
-- joining is the invitee's choice, not an admin's, and the inviter learns nothing about whether the
-- address has an account. They work as workspace invitations do: bound to the e-mail, accepted once by
-- a user signed in with that address, within seven days, and only a SHA-256 of the token is kept. They
-- are a table of their own because a workspace invitation names a workspace, and its role is one there.
-- email_job_id is the River job sending the e-mail, cancelled with the organization.
CREATE TABLE organization_invitations (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    email           text NOT NULL,
    role            text NOT NULL CHECK (role IN ('admin', 'member')),
    token_hash      bytea NOT NULL UNIQUE,
    invited_by      uuid NOT NULL REFERENCES users (id),
    expires_at      timestamptz NOT NULL,
    accepted_at     timestamptz,
    accepted_by     uuid REFERENCES users (id),
    email_job_id    bigint,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX organization_invitations_org_idx ON organization_invitations (organization_id);

-- +goose Down
DROP TABLE organization_invitations;
DROP TABLE account_tokens;
DROP TABLE two_factor_recovery_codes;
