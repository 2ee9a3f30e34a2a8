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

-- +goose Down
DROP TABLE two_factor_recovery_codes;
