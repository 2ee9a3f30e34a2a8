-- +goose Up
-- Keys that sign session JWTs when no JWT_SECRET is configured: the first api process to start makes one
-- at random, and every process reads the same set, so restarts and replicas keep sessions. A rotated key
-- is inserted with a not_before in the future, so every process has loaded it before any signs with it;
-- older keys keep verifying until the sessions they signed have expired, then rotation deletes them.
CREATE TABLE signing_keys (
    id         text PRIMARY KEY,
    secret     bytea NOT NULL CHECK (length(secret) >= 32),
    not_before timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE signing_keys;
