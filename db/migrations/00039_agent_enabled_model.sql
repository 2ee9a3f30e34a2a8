-- +goose Up
-- An agent can be turned off without deleting it (its new missions are refused; its history stays), and can
-- name the model its missions use on the OpenAI-compatible server (empty: the server's default, LLM_MODEL).
-- Adding columns with constant defaults is a catalog change: no table rewrite, a brief lock only.
ALTER TABLE agents
    ADD COLUMN enabled boolean NOT NULL DEFAULT true,
    ADD COLUMN model text NOT NULL DEFAULT '' CHECK (char_length(model) <= 100);

-- +goose Down
ALTER TABLE agents DROP COLUMN model, DROP COLUMN enabled;
