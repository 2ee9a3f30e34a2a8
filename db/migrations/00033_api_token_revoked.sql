-- +goose Up
-- A personal access token is revoked by deleting its row (DELETE /api-tokens/{id}, or with its user).
-- The deletion notifies pilot_sessions with 't:<token id>', as a revoked session notifies
-- 's:<session id>' (migration 00021), so every api process ends at once the event streams and MCP
-- sessions opened with the token. Its next request is refused anyway (a token is looked up on every
-- request); this is for what stays open between requests.
-- +goose StatementBegin
CREATE FUNCTION notify_api_token_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pilot_sessions', 't:' || OLD.id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER api_tokens_revoked AFTER DELETE ON api_tokens
    FOR EACH ROW EXECUTE FUNCTION notify_api_token_revoked();

-- +goose Down
DROP TRIGGER api_tokens_revoked ON api_tokens;
DROP FUNCTION notify_api_token_revoked;
