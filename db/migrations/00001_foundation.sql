-- +goose Up
CREATE TABLE users (
    id              uuid PRIMARY KEY,
    email           text NOT NULL,
    name            text NOT NULL DEFAULT '',
    job_title       text NOT NULL DEFAULT '',
    password_hash   text NOT NULL,
    email_verified  boolean NOT NULL DEFAULT false,
    pilotage_role   text NOT NULL DEFAULT 'owner',
    -- session_version invalidates every JWT issued before a password change.
    session_version integer NOT NULL DEFAULT 1,
    totp_secret     text,
    totp_enabled    boolean NOT NULL DEFAULT false,
    -- totp_last_step is the last accepted TOTP time step: a code is never accepted twice.
    totp_last_step  bigint NOT NULL DEFAULT 0,
    is_service      boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE organizations (
    id         uuid PRIMARY KEY,
    name       text NOT NULL,
    slug       text NOT NULL UNIQUE,
    owner_id   uuid NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organization_members (
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

CREATE TABLE workspaces (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name            text NOT NULL,
    slug            text NOT NULL,
    owner_id        uuid NOT NULL REFERENCES users (id),
    is_personal     boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, slug)
);

CREATE TABLE workspace_members (
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role          text NOT NULL CHECK (role IN ('admin', 'member')),
    pilotage_role text NOT NULL CHECK (pilotage_role IN ('viewer', 'reviewer', 'owner')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, user_id)
);
CREATE INDEX workspace_members_user_idx ON workspace_members (user_id);

CREATE TABLE workspace_invitations (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    email        text NOT NULL,
    role         text NOT NULL CHECK (role IN ('admin', 'member')),
    -- token_hash is the SHA-256 of the single-use token; the token itself is never stored.
    token_hash   bytea NOT NULL UNIQUE,
    invited_by   uuid NOT NULL REFERENCES users (id),
    expires_at   timestamptz NOT NULL,
    accepted_at  timestamptz,
    accepted_by  uuid REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX workspace_invitations_ws_idx ON workspace_invitations (workspace_id);

CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL,
    prefix       text NOT NULL,
    -- secret_hash is the SHA-256 of the full secret; the secret is shown once and never stored.
    secret_hash  bytea NOT NULL UNIQUE,
    scopes       text[] NOT NULL,
    expires_at   timestamptz,
    last_used_at timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_tokens_user_idx ON api_tokens (user_id);

-- email_outbox keeps every e-mail the service sends; sent_at is set when SMTP accepted it.
CREATE TABLE email_outbox (
    id         uuid PRIMARY KEY,
    to_address text NOT NULL,
    subject    text NOT NULL,
    body       text NOT NULL,
    kind       text NOT NULL,
    ref_id     uuid,
    transport  text NOT NULL,
    sent_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (kind, ref_id)
);

CREATE TABLE billing_checkouts (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    provider        text NOT NULL,
    external_id     text NOT NULL,
    url             text NOT NULL,
    status          text NOT NULL,
    created_by      uuid NOT NULL REFERENCES users (id),
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_checkouts_org_idx ON billing_checkouts (organization_id);

-- +goose Down
DROP TABLE billing_checkouts, email_outbox, api_tokens, workspace_invitations, workspace_members,
    workspaces, organization_members, organizations, users;
