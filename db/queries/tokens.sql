-- name: APITokenInsert :one
INSERT INTO api_tokens (id, user_id, name, prefix, secret_hash, scopes, expires_at)
VALUES (@id, @user_id, @name, @prefix, @secret_hash, @scopes, @expires_at)
RETURNING *;

-- name: APITokenListByUser :many
-- APITokenListByUser is one page of a user's tokens, newest first (ties by id): those after the keyset
-- (created_at, id) of the previous page's last in that order.
SELECT * FROM api_tokens
WHERE user_id = @user_id
  AND (created_at < @after_at::timestamptz OR (created_at = @after_at::timestamptz AND id > @after_id::uuid))
ORDER BY created_at DESC, id
LIMIT @lim;

-- name: APITokenGetByHash :one
SELECT * FROM api_tokens WHERE secret_hash = @secret_hash;

-- name: APITokenTouch :exec
-- APITokenTouch records use at most once a minute, so a busy token does not write on every request.
UPDATE api_tokens SET last_used_at = now()
WHERE id = @id AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute');

-- name: APITokenDelete :one
-- APITokenDelete deletes one of a user's tokens and answers it (the audit log names it).
DELETE FROM api_tokens WHERE id = @id AND user_id = @user_id RETURNING *;
