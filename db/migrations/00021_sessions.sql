-- +goose Up
-- Server-side sessions: every session JWT names one of these rows (its jti), made at login, registration
-- or the second factor's completion. Revoking a row (logout, revoking a device) refuses its JWT on the
-- next request: the revocation notifies pilot_access, so every api process empties its cache of resolved
-- access, and pilot_sessions with 's:<id>', so each process ends that session's open streams. A change of
-- a user's session version (a password change or reset) notifies pilot_sessions with 'u:<user id>'.
-- last_seen_at is touched at most once a minute per session and notifies nothing.
CREATE TABLE sessions (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    device       text NOT NULL DEFAULT '' CHECK (length(device) <= 200),
    user_agent   text NOT NULL DEFAULT '' CHECK (length(user_agent) <= 512),
    client_ip    text NOT NULL DEFAULT '' CHECK (length(client_ip) <= 64),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz
);
CREATE INDEX sessions_user_idx ON sessions (user_id, created_at DESC);

-- +goose StatementBegin
CREATE FUNCTION notify_session_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pilot_access', '');
    PERFORM pg_notify('pilot_sessions', 's:' || NEW.id);
    RETURN NULL;
END
$$;
CREATE FUNCTION notify_session_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pilot_sessions', 'u:' || NEW.id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER sessions_revoked AFTER UPDATE OF revoked_at ON sessions
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION notify_session_revoked();
CREATE TRIGGER users_session_version AFTER UPDATE OF session_version ON users
    FOR EACH ROW WHEN (OLD.session_version IS DISTINCT FROM NEW.session_version)
    EXECUTE FUNCTION notify_session_version();

-- +goose Down
DROP TRIGGER users_session_version ON users;
DROP TRIGGER sessions_revoked ON sessions;
DROP FUNCTION notify_session_version;
DROP FUNCTION notify_session_revoked;
DROP TABLE sessions;
