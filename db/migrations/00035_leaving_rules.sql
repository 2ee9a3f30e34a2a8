-- +goose Up
-- A member who leaves a workspace (or its organization) has, in the removal's transaction, the
-- automation rules they created in its projects disabled (db/tenancy/leaving.go): a rule acts as its
-- creator. This index finds a user's enabled rules without reading every rule.
CREATE INDEX automation_rules_enabled_creator_idx ON automation_rules (created_by) WHERE enabled;

-- +goose Down
DROP INDEX automation_rules_enabled_creator_idx;
