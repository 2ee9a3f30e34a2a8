-- +goose Up
-- Locks: builds an index on agent_missions without CONCURRENTLY: mission writes wait until it is built.
-- A member who leaves a workspace (or its organization) has, in the removal's transaction, the missions
-- they started there cancelled (db/tenancy/leaving.go). This index finds a user's unfinished missions
-- without reading every mission; only those are in it, so it stays small.
CREATE INDEX agent_missions_active_creator_idx ON agent_missions (created_by, workspace_id)
    WHERE status IN ('queued', 'running', 'awaiting_approval');

-- +goose Down
DROP INDEX agent_missions_active_creator_idx;
