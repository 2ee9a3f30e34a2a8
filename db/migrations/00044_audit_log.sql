-- +goose Up
-- The audit log: every security and administration event (sign-ins and failed ones, second factor and
-- password changes, sessions ended, tokens, single sign-on links, members, roles, webhooks, automations,
-- pipelines, exports and imports, deletions, plugins), who did it, from where, to what, and what changed.
-- db/audit records an entry in the transaction of the change it describes (docs/audit.md).
--
-- No foreign keys: an entry outlives its actor, its target and its organization (a deleted organization's
-- entries are kept until the retention job removes them), and a cascade would be a delete the trigger
-- below refuses.
CREATE TABLE audit_log (
    id              uuid PRIMARY KEY,
    -- NULL for account events (a sign-in, a password change), which the person reads at GET /auth/audit-log.
    organization_id uuid,
    workspace_id    uuid,
    at              timestamptz NOT NULL DEFAULT now(),
    kind            text NOT NULL CHECK (kind <> ''),
    -- The user who acted, NULL for a failed sign-in (actor_email is the address tried).
    actor_id        uuid,
    actor_email     text NOT NULL DEFAULT '',
    client_ip       text NOT NULL DEFAULT '',
    user_agent      text NOT NULL DEFAULT '',
    target_type     text NOT NULL DEFAULT '',
    target_id       text NOT NULL DEFAULT '',
    target_name     text NOT NULL DEFAULT '',
    -- What changed: {"before": …, "after": …} or the fields the event names; never a secret.
    changes         jsonb NOT NULL DEFAULT '{}'
);

-- GET /orgs/{orgSlug}/audit-log reads an organization's entries newest first (keyset at, id); the
-- account's reads a user's entries without an organization; retention deletes by time.
CREATE INDEX audit_log_org ON audit_log (organization_id, at DESC, id DESC);
CREATE INDEX audit_log_actor ON audit_log (actor_id, at DESC, id DESC) WHERE organization_id IS NULL;
CREATE INDEX audit_log_at ON audit_log (at);

-- Append-only: the database refuses every UPDATE and DELETE of an entry, whoever asks, except the
-- retention job's deletes, which set pilot.audit_retention = 'on' for their transaction (SET LOCAL).
-- TRUNCATE is refused too.
-- +goose StatementBegin
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('pilot.audit_retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
-- +goose StatementEnd

CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

-- +goose Down
DROP TABLE audit_log;
DROP FUNCTION audit_log_append_only();
