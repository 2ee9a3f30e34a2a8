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
