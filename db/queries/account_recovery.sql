-- name: RecoveryCodesDelete :exec
DELETE FROM two_factor_recovery_codes WHERE user_id = @user_id;

-- name: RecoveryCodesInsert :exec
INSERT INTO two_factor_recovery_codes (user_id, code_hash)
SELECT @user_id, unnest(@code_hashes::bytea[]);

-- name: RecoveryCodeUse :execrows
-- RecoveryCodeUse deletes one of the user's recovery codes: one row when the code was theirs and unused,
-- none otherwise, so two concurrent uses of a code cannot both succeed.
DELETE FROM two_factor_recovery_codes WHERE user_id = @user_id AND code_hash = @code_hash;

-- name: RecoveryCodesCount :one
SELECT count(*)::integer FROM two_factor_recovery_codes WHERE user_id = @user_id;

-- name: UserEnableTOTP :execrows
-- UserEnableTOTP turns two-factor authentication on; no row when it already is, or no secret waits.
UPDATE users SET totp_enabled = true, updated_at = now()
WHERE id = @id AND NOT totp_enabled AND totp_secret IS NOT NULL;

-- name: UserGetByIDForUpdate :one
-- UserGetByIDForUpdate reads a user and locks the row, so a change that depends on its two-factor state
-- waits for one that changes it.
SELECT * FROM users WHERE id = @id FOR UPDATE;

-- name: AccountTokenPut :one
-- AccountTokenPut stores a user's token for a purpose, replacing the one they had (a new id, so the
-- e-mail that carries it is a new outbox entry).
INSERT INTO account_tokens (id, user_id, purpose, token_hash, email, expires_at)
VALUES (@id, @user_id, @purpose, @token_hash, @email, @expires_at)
ON CONFLICT (user_id, purpose) DO UPDATE
SET id = excluded.id, token_hash = excluded.token_hash, email = excluded.email,
    expires_at = excluded.expires_at, created_at = now()
RETURNING *;

-- name: AccountTokenTake :one
-- AccountTokenTake uses up a live token: it deletes it and answers it, or answers no row when the token
-- is unknown, used, of another purpose or expired. Two uses at once cannot both get the row.
DELETE FROM account_tokens
WHERE token_hash = @token_hash AND purpose = @purpose AND expires_at > now()
RETURNING *;

-- name: UserSetEmailVerified :execrows
-- UserSetEmailVerified marks the user's e-mail verified, if it is still the address given.
UPDATE users SET email_verified = true, updated_at = now()
WHERE id = @id AND lower(email) = lower(@email);
