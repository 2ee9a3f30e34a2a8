-- +goose Up
-- A project draft: framing (name, description, inline context documents, team) → refining (a job asks
-- questions) → refined → generating (a job writes the roadmap) → roadmap_ready → executed (the project
-- is made), or failed with a reason. `run` numbers the draft's jobs: a job writes its result only
-- while the draft is still in its working status with its run (a guarded update), so a rescued or
-- duplicated job never writes twice and a stale one never writes at all. Progress is the draft's stream
-- (stream kind 'draft', see migration 00013).
CREATE TABLE project_drafts (
    id                uuid PRIMARY KEY,
    workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name              text NOT NULL,
    description       text NOT NULL DEFAULT '',
    context_documents jsonb NOT NULL DEFAULT '[]',
    team_members      jsonb NOT NULL DEFAULT '[]',
    status            text NOT NULL DEFAULT 'framing'
        CHECK (status IN ('framing', 'refining', 'refined', 'generating', 'roadmap_ready', 'executed', 'failed')),
    questions         jsonb NOT NULL DEFAULT '[]',
    answers           jsonb NOT NULL DEFAULT '[]',
    rounds            integer NOT NULL DEFAULT 0,
    roadmap           jsonb,
    run               integer NOT NULL DEFAULT 0,
    error             text,
    project_id        uuid REFERENCES projects (id) ON DELETE SET NULL,
    executed_at       timestamptz,
    created_by        uuid NOT NULL REFERENCES users (id),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX project_drafts_workspace_idx ON project_drafts (workspace_id, created_at DESC, id DESC);

CREATE TRIGGER project_drafts_stream_delete AFTER DELETE ON project_drafts
    FOR EACH ROW EXECUTE FUNCTION stream_delete();

-- +goose Down
DROP TABLE project_drafts;
