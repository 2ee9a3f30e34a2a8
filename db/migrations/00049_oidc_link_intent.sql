-- +goose Up
-- A sign-in under way may be a link: a signed-in person adding a provider to their account. Its row then
-- names the account and the session that started it, and the callback links the provider's subject to
-- that account (instead of signing in) only when the browser comes back signed in with that same,
-- still active session. oidc_logins is small (rows live minutes): these locks are brief.
ALTER TABLE oidc_logins
    ADD COLUMN link_user_id uuid REFERENCES users (id) ON DELETE CASCADE,
    ADD COLUMN link_session_id uuid REFERENCES sessions (id) ON DELETE CASCADE,
    ADD CONSTRAINT oidc_logins_link_whole CHECK ((link_user_id IS NULL) = (link_session_id IS NULL));

-- +goose Down
ALTER TABLE oidc_logins DROP COLUMN link_session_id, DROP COLUMN link_user_id;
