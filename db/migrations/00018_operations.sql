-- +goose Up
-- rate_limit_hits counts attempts per key (a client address or an account) in fixed windows, so a limit
-- holds across every api process: a client cannot multiply its login attempts by the number of
-- replicas. The limiter estimates a sliding window from the current and the previous window, as
-- httprate does in memory. Rows older than two windows are deleted by the next hit.
CREATE TABLE rate_limit_hits (
    key          text NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer NOT NULL,
    PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limit_hits_window_start ON rate_limit_hits (window_start);

-- email_job_id is the River job sending the invitation's e-mail, so deleting the organization cancels
-- the e-mails of its pending invitations in the same transaction.
ALTER TABLE workspace_invitations ADD COLUMN email_job_id bigint;

-- attachment_files_orphaned holds the storage keys of deleted attachments until the sweep job has
-- removed their files. A trigger fills it, so every path that deletes attachments (one attachment, a
-- card, a column, a scope, a project, a workspace or an organization, through their cascades) leaves
-- its files to the sweep and none behind: the row and the key commit together.
CREATE TABLE attachment_files_orphaned (
    storage_key text PRIMARY KEY,
    deleted_at  timestamptz NOT NULL DEFAULT now()
);

-- +goose StatementBegin
CREATE FUNCTION attachment_file_orphaned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO attachment_files_orphaned (storage_key) VALUES (OLD.storage_key) ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER attachments_file_orphaned AFTER DELETE ON attachments
    FOR EACH ROW EXECUTE FUNCTION attachment_file_orphaned();

-- +goose Down
DROP TRIGGER attachments_file_orphaned ON attachments;
DROP FUNCTION attachment_file_orphaned();
DROP TABLE attachment_files_orphaned;
ALTER TABLE workspace_invitations DROP COLUMN email_job_id;
DROP TABLE rate_limit_hits;
