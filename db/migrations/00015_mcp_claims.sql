-- +goose Up
-- An mcpOnly agent's mission is worked by an external AI client through /mcp. claim_mission records who
-- holds it (claimed_by, a person or an agent's service user) and until when (claim_expires_at, pushed
-- back by every call of the holder). claim_seq numbers the claims: the expiry job of an old claim
-- leaves a newer claim alone.
ALTER TABLE agent_missions
    ADD COLUMN claimed_by       uuid REFERENCES users (id) ON DELETE SET NULL,
    ADD COLUMN claim_expires_at timestamptz,
    ADD COLUMN claim_seq        integer NOT NULL DEFAULT 0;

-- list_queued_missions reads a workspace's queued missions, oldest first.
CREATE INDEX agent_missions_queued_idx ON agent_missions (workspace_id, created_at) WHERE status = 'queued';

-- +goose Down
DROP INDEX agent_missions_queued_idx;
ALTER TABLE agent_missions DROP COLUMN claimed_by, DROP COLUMN claim_expires_at, DROP COLUMN claim_seq;
