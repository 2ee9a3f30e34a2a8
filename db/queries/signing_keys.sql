-- name: SigningKeyLock :exec
-- SigningKeyLock serialises the processes that create or rotate keys (for the transaction).
SELECT pg_advisory_xact_lock(7070697);

-- name: SigningKeyInsertFirst :exec
-- SigningKeyInsertFirst creates a key that signs at once, unless a key exists already.
INSERT INTO signing_keys (id, secret, not_before)
SELECT @id, @secret, now() WHERE NOT EXISTS (SELECT 1 FROM signing_keys);

-- name: SigningKeyInsert :one
INSERT INTO signing_keys (id, secret, not_before)
VALUES (@id, @secret, now() + make_interval(secs => @delay_secs::float8))
RETURNING *;

-- name: SigningKeyDeleteSuperseded :execrows
-- SigningKeyDeleteSuperseded deletes the keys that a newer key replaced more than keep_secs ago: every
-- token they signed has expired.
DELETE FROM signing_keys k
WHERE EXISTS (SELECT 1 FROM signing_keys n
              WHERE n.not_before > k.not_before AND n.not_before < now() - make_interval(secs => @keep_secs::float8));

-- name: SigningKeyList :many
SELECT * FROM signing_keys ORDER BY not_before, id;
