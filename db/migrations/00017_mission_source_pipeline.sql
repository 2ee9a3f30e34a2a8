-- +goose Up
-- A pipeline's run_agent_mission step starts missions of its own source.
ALTER TABLE agent_missions DROP CONSTRAINT agent_missions_source_check;
ALTER TABLE agent_missions ADD CONSTRAINT agent_missions_source_check
    CHECK (source IN ('agent', 'runtime', 'card_mission', 'pipeline'));

-- +goose Down
ALTER TABLE agent_missions DROP CONSTRAINT agent_missions_source_check;
ALTER TABLE agent_missions ADD CONSTRAINT agent_missions_source_check
    CHECK (source IN ('agent', 'runtime', 'card_mission'));
