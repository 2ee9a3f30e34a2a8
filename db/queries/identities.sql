-- name: IdentityGet :one
-- IdentityGet is the link of a provider's subject, with its account.
SELECT * FROM user_identities WHERE provider = @provider AND subject = @subject;

-- name: IdentityInsert :one
INSERT INTO user_identities (id, user_id, provider, subject, email)
VALUES (@id, @user_id, @provider, @subject, @email)
RETURNING *;

-- name: IdentityTouch :exec
UPDATE user_identities SET email = @email, last_used_at = now() WHERE id = @id;

-- name: IdentityListByUser :many
SELECT * FROM user_identities WHERE user_id = @user_id ORDER BY created_at, id;

-- name: IdentityDelete :execrows
DELETE FROM user_identities WHERE id = @id AND user_id = @user_id;

-- name: UserLockForUpdate :one
-- UserLockForUpdate holds a user's row until the transaction ends: unlinking identities of one account
-- runs one at a time, so two of them cannot each leave the other as the last way to sign in.
SELECT password_hash FROM users WHERE id = @id FOR UPDATE;

-- name: UserMarkEmailVerified :exec
UPDATE users SET email_verified = true, updated_at = now() WHERE id = @id AND NOT email_verified;

-- name: OIDCLoginInsert :exec
INSERT INTO oidc_logins (state_hash, provider, nonce, code_verifier, return_to, expires_at, link_user_id,
    link_session_id)
VALUES (@state_hash, @provider, @nonce, @code_verifier, @return_to, @expires_at, sqlc.narg(link_user_id),
    sqlc.narg(link_session_id));

-- name: OIDCLoginTake :one
-- OIDCLoginTake deletes a sign-in under way and answers it, unless it expired: a state is taken once.
DELETE FROM oidc_logins WHERE state_hash = @state_hash AND provider = @provider
RETURNING *, (expires_at > now())::boolean AS live;

-- name: OIDCLoginDeleteExpired :exec
DELETE FROM oidc_logins WHERE expires_at < now() - interval '1 hour';
