-- name: SessionInsert :one
INSERT INTO sessions (id, user_id, device, user_agent, client_ip, expires_at)
VALUES (@id, @user_id, @device, @user_agent, @client_ip, @expires_at)
RETURNING *;

-- name: SessionUser :one
-- SessionUser is the user of an active session (not revoked, not expired): the guard's check of a
-- session JWT on routes without tenancy, in one round trip.
SELECT sqlc.embed(u)
FROM sessions s
JOIN users u ON u.id = s.user_id
WHERE s.id = @session_id AND s.user_id = @user_id AND s.revoked_at IS NULL AND s.expires_at > now();

-- name: SessionTouch :exec
UPDATE sessions SET last_seen_at = now()
WHERE id = @id AND last_seen_at < now() - interval '1 minute';

-- name: SessionListActive :many
-- SessionListActive lists a user's active sessions, the newest first.
SELECT * FROM sessions
WHERE user_id = @user_id AND revoked_at IS NULL AND expires_at > now()
ORDER BY created_at DESC, id DESC;

-- name: SessionRevoke :execrows
UPDATE sessions SET revoked_at = now()
WHERE id = @id AND user_id = @user_id AND revoked_at IS NULL AND expires_at > now();

-- name: SessionRevokeOthers :execrows
UPDATE sessions SET revoked_at = now()
WHERE user_id = @user_id AND id <> @keep_id AND revoked_at IS NULL AND expires_at > now();

-- name: SessionDeleteEnded :execrows
-- SessionDeleteEnded deletes sessions revoked or expired before the cutoff (housekeeping).
DELETE FROM sessions WHERE coalesce(revoked_at, expires_at) < @cutoff::timestamptz;

-- name: SessionRevokeAll :execrows
UPDATE sessions SET revoked_at = now()
WHERE user_id = @user_id AND revoked_at IS NULL AND expires_at > now();

-- name: UserStreamsEnd :exec
-- UserStreamsEnd announces on pilot_sessions, at the commit of the caller's transaction, that every
-- open stream of a user must end (internal/sessionwatch): their clients reconnect and the guard checks
-- their access again. A member removed from an organization or a workspace is announced so.
SELECT pg_notify('pilot_sessions', 'u:' || @user_id::text);
