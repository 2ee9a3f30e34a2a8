-- +goose Up
-- pipelines are a workspace's validated step graphs (internal/pipeline). steps is the array of
-- {id, type, params, needs} as written.
CREATE TABLE pipelines (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL,
    description  text NOT NULL DEFAULT '',
    steps        jsonb NOT NULL,
    enabled      boolean NOT NULL DEFAULT true,
    created_by   uuid NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pipelines_workspace_idx ON pipelines (workspace_id, created_at);

-- A run copies the pipeline's graph as it was when it started, so editing the pipeline leaves running
-- runs alone. Its row lock serialises the completions of its steps: the step that completes last
-- among another's needs sees it, and enqueues it in the same transaction.
CREATE TABLE pipeline_runs (
    id            uuid PRIMARY KEY,
    pipeline_id   uuid NOT NULL REFERENCES pipelines (id) ON DELETE CASCADE,
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    pipeline_name text NOT NULL,
    status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed', 'cancelled')),
    error         text,
    started_by    uuid NOT NULL REFERENCES users (id),
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    cancelled_at  timestamptz
);
CREATE INDEX pipeline_runs_pipeline_idx ON pipeline_runs (pipeline_id, created_at DESC);
-- A run's progress is a stream (kind 'run', migration 00013) that goes with it.
CREATE TRIGGER pipeline_runs_stream_delete AFTER DELETE ON pipeline_runs
    FOR EACH ROW EXECUTE FUNCTION stream_delete();

-- pipeline_run_steps is each step of a run; (run_id, step_id) is the step key: a step's effect and
-- its completion commit in one transaction guarded by its status, so a retried or rescued job never
-- does a step twice. wait_ref names what a waiting step awaits ('mission:<id>', 'draft:<id>').
CREATE TABLE pipeline_run_steps (
    run_id      uuid NOT NULL REFERENCES pipeline_runs (id) ON DELETE CASCADE,
    step_id     text NOT NULL,
    position    integer NOT NULL,
    type        text NOT NULL,
    params      jsonb NOT NULL,
    needs       text[] NOT NULL,
    status      text NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'queued', 'running', 'waiting', 'completed', 'failed', 'skipped', 'cancelled')),
    output      jsonb,
    error       text,
    job_id      bigint,
    wait_ref    text,
    attempts    integer NOT NULL DEFAULT 0,
    started_at  timestamptz,
    finished_at timestamptz,
    PRIMARY KEY (run_id, step_id)
);
CREATE INDEX pipeline_run_steps_wait_idx ON pipeline_run_steps (wait_ref) WHERE status = 'waiting';

-- workspace_plugins are the plugins of the catalog (internal/plugin) a workspace installed, with their
-- validated settings.
CREATE TABLE workspace_plugins (
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    plugin_id    text NOT NULL,
    settings     jsonb NOT NULL DEFAULT '{}',
    installed_by uuid NOT NULL REFERENCES users (id),
    installed_at timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (workspace_id, plugin_id)
);

-- +goose Down
DROP TABLE workspace_plugins;
DROP TABLE pipeline_run_steps;
DROP TABLE pipeline_runs;
DROP TABLE pipelines;
