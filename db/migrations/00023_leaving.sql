-- +goose Up
-- A member who leaves an organization or a workspace has the runs they started there cancelled
-- (tenancy's removal, pipeline.Engine.CancelRunsStartedByTx): this index finds a user's running runs
-- without reading every run ever made. Only running runs are in it, so it stays small.
CREATE INDEX pipeline_runs_running_starter_idx ON pipeline_runs (started_by, workspace_id) WHERE status = 'running';

-- +goose Down
DROP INDEX pipeline_runs_running_starter_idx;
