-- +goose Up
-- login_failures counts failed sign-ins so that a password guessed from many client addresses at once is
-- held back, which the per-address rate limits (rate_limit_hits) cannot see, without letting a stranger
-- lock the owner out: OWASP's device-cookie pattern ("Slow Down Online Guessing Attacks with Device
-- Cookies"). A row counts against one key:
--   'account:' and the SHA-256 of the lowercased e-mail tried: the attempts from devices that never
--   signed in to that account. Any address tried is counted, whether or not an account uses it, so the
--   answers tell nobody which addresses have accounts.
--   'device:' and the nonce of a device cookie: the attempts of one device that signed in to the account
--   before, counted apart, so the account's lockout does not reach it (and a stolen cookie that fails
--   too often is locked out on its own).
-- failures counts the failures since window_start, within one window (an hour). The failure that takes
-- it past the limit locks the key until locked_until (one window), and lockout_id names that lockout:
-- it is the e-mail to the owner's key in the outbox, so the owner hears once per lockout. expires_at is
-- when the row no longer matters (its window and its lockout over); the next failure deletes such rows.
CREATE TABLE login_failures (
    key          text PRIMARY KEY,
    window_start timestamptz NOT NULL,
    failures     integer NOT NULL CHECK (failures > 0),
    locked_until timestamptz,
    lockout_id   uuid,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX login_failures_expires_at ON login_failures (expires_at);

-- +goose Down
DROP TABLE login_failures;
