-- +goose Up
-- An import of another tool's export (Trello, Jira, Vikunja, Plane, Pilot) into a workspace: the upload
-- is kept in `file` until the import job has read it (then cleared), and the job writes its progress
-- counts and, project by project, its report. A project is created in one transaction with the
-- report's entry naming it, so a retried job skips the projects an earlier attempt committed.
-- Progress is the import's stream (stream kind 'import', see migration 00013).
CREATE TABLE imports (
    id            uuid PRIMARY KEY,
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    source        text NOT NULL CHECK (source IN ('trello', 'jira', 'vikunja', 'plane', 'pilot')),
    file_name     text NOT NULL DEFAULT '',
    -- file_sha256 is the hex SHA-256 of the uploaded file: the same file imported again into the same
    -- workspace is refused as such (the unique index below) unless the earlier import failed.
    file_sha256   text NOT NULL,
    file_size     bigint NOT NULL,
    file          bytea,
    status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
    items_read    integer NOT NULL DEFAULT 0,
    items_created integer NOT NULL DEFAULT 0,
    items_skipped integer NOT NULL DEFAULT 0,
    report        jsonb NOT NULL DEFAULT '{"projects": [], "skipped": []}',
    error         text,
    created_by    uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz
);
CREATE INDEX imports_workspace_idx ON imports (workspace_id, created_at DESC, id DESC);
CREATE UNIQUE INDEX imports_same_file_idx ON imports (workspace_id, file_sha256) WHERE status <> 'failed';

CREATE TRIGGER imports_stream_delete AFTER DELETE ON imports
    FOR EACH ROW EXECUTE FUNCTION stream_delete();

-- +goose Down
DROP TABLE imports;
