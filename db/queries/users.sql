-- name: UserInsert :one
INSERT INTO users (id, email, name, password_hash)
VALUES (@id, @email, @name, @password_hash)
RETURNING *;

-- name: UserGetByID :one
SELECT * FROM users WHERE id = @id;

-- name: UserGetByEmail :one
SELECT * FROM users WHERE lower(email) = lower(@email);

-- name: UserUpdateProfile :one
UPDATE users
SET name = coalesce(sqlc.narg('name'), name),
    job_title = coalesce(sqlc.narg('job_title'), job_title),
    updated_at = now()
WHERE id = @id
RETURNING *;

-- name: UserUpdatePassword :one
UPDATE users
SET password_hash = @password_hash, session_version = session_version + 1, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: UserSetTOTPSecret :exec
UPDATE users SET totp_secret = @totp_secret, updated_at = now() WHERE id = @id;

-- name: UserSetTOTPEnabled :exec
UPDATE users
SET totp_enabled = @totp_enabled,
    totp_secret = CASE WHEN @totp_enabled::boolean THEN totp_secret ELSE NULL END,
    updated_at = now()
WHERE id = @id;

-- name: UserAdvanceTOTPStep :execrows
-- UserAdvanceTOTPStep records an accepted TOTP step; it matches no row when the step (or a later one)
-- was already used, which is how replayed codes are refused even under concurrent logins.
UPDATE users SET totp_last_step = @step WHERE id = @id AND totp_last_step < @step;
