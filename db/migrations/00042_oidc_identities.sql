-- +goose Up
-- Sign-in with OpenID Connect providers (internal/oidc, db/identity/external.go).
--
-- user_identities links a provider's subject (the `sub` claim, stable per provider) to an account: the
-- provider's name in Pilot's configuration (OIDC_PROVIDERS) and the subject name one person there. A
-- subject is linked to one account at most (the unique key); an account may have several. email is
-- the address the provider last said, shown on the account page, never used to find the account again.
CREATE TABLE user_identities (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider     text NOT NULL CHECK (provider ~ '^[a-z0-9][a-z0-9-]{0,39}$'),
    subject      text NOT NULL CHECK (length(subject) BETWEEN 1 AND 255),
    email        text NOT NULL DEFAULT '' CHECK (length(email) <= 254),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (provider, subject)
);
CREATE INDEX user_identities_user_idx ON user_identities (user_id, created_at);

-- oidc_logins are the sign-ins under way: made when a browser is sent to its provider, deleted when the
-- provider sends it back (the callback takes its row in one DELETE, so a replayed callback finds
-- none), or after expires_at by the next sign-in. state_hash is the SHA-256 of the state sent to the
-- provider (the browser also keeps the state in a cookie: the callback must come back to the browser
-- that left); nonce and code_verifier (PKCE) are what the token's answer is checked against.
CREATE TABLE oidc_logins (
    state_hash    bytea PRIMARY KEY,
    provider      text NOT NULL,
    nonce         text NOT NULL,
    code_verifier text NOT NULL,
    return_to     text NOT NULL DEFAULT '/' CHECK (length(return_to) <= 2000),
    expires_at    timestamptz NOT NULL
);
CREATE INDEX oidc_logins_expires_at ON oidc_logins (expires_at);

-- +goose Down
DROP TABLE oidc_logins;
DROP TABLE user_identities;
