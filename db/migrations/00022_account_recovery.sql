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

-- +goose Down
DROP TABLE account_tokens;
DROP TABLE two_factor_recovery_codes;
