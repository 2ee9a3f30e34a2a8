-- name: LoginFailureLocks :many
-- LoginFailureLocks answers those of the keys that are locked out at @at (the database's clock when
-- null, the one clock every api process shares), with how long each lockout still lasts.
SELECT f.key, extract(epoch FROM f.locked_until - c.at)::float8 AS remaining_secs
FROM login_failures f, (SELECT coalesce(sqlc.narg(at)::timestamptz, now()) AS at) c
WHERE f.key = ANY(@keys::text[]) AND f.locked_until > c.at;

-- name: LoginFailureRecord :one
-- LoginFailureRecord counts one failed sign-in against @key at @at (the database's clock when null). A
-- window over (window_secs since its first failure) starts again at one. The failure that takes the
-- count past @failure_limit locks the key for a window, unless it is locked already, and names the
-- lockout @lockout_id: tripped says this failure started it. The row is locked by the upsert, so
-- concurrent failures from any process are each counted and only one of them trips. It also deletes
-- the other keys' rows that no longer matter.
WITH clock AS (
    SELECT coalesce(sqlc.narg(at)::timestamptz, now()) AS at, make_interval(secs => @window_secs::float8) AS win
), gc AS (
    DELETE FROM login_failures WHERE expires_at < (SELECT at FROM clock) AND key <> @key::text
)
INSERT INTO login_failures AS f (key, window_start, failures, expires_at)
SELECT @key::text, c.at, 1, c.at + c.win FROM clock c
ON CONFLICT (key) DO UPDATE SET
    -- EXCLUDED.window_start is this failure's time; its window ends at EXCLUDED.expires_at.
    window_start = CASE WHEN f.window_start + (SELECT win FROM clock) <= EXCLUDED.window_start
                        THEN EXCLUDED.window_start ELSE f.window_start END,
    failures = CASE WHEN f.window_start + (SELECT win FROM clock) <= EXCLUDED.window_start
                    THEN 1 ELSE f.failures + 1 END,
    locked_until = CASE WHEN f.window_start + (SELECT win FROM clock) > EXCLUDED.window_start
                             AND f.failures + 1 > @failure_limit::bigint
                             AND (f.locked_until IS NULL OR f.locked_until <= EXCLUDED.window_start)
                        THEN EXCLUDED.expires_at ELSE f.locked_until END,
    lockout_id = CASE WHEN f.window_start + (SELECT win FROM clock) > EXCLUDED.window_start
                           AND f.failures + 1 > @failure_limit::bigint
                           AND (f.locked_until IS NULL OR f.locked_until <= EXCLUDED.window_start)
                      THEN @lockout_id::uuid ELSE f.lockout_id END,
    expires_at = greatest(f.expires_at, EXCLUDED.expires_at)
RETURNING f.failures, f.locked_until, coalesce(f.lockout_id = @lockout_id::uuid, false)::boolean AS tripped;

-- name: LoginFailureClear :exec
-- LoginFailureClear forgets @key's failures and lifts its lockout (a password reset proves the owner).
DELETE FROM login_failures WHERE key = @key::text;
