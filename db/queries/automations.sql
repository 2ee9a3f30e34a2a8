-- name: AutomationRuleInsert :one
INSERT INTO automation_rules (id, project_id, name, trigger, conditions, action, enabled, created_by)
VALUES (@id, @project_id, @name, @trigger, @conditions, @action, @enabled, @created_by)
RETURNING *;

-- name: AutomationRuleList :many
SELECT * FROM automation_rules WHERE project_id = @project_id ORDER BY created_at, id;

-- name: AutomationRuleGet :one
SELECT * FROM automation_rules WHERE id = @id AND project_id = @project_id;

-- name: AutomationRuleUpdate :one
-- A rule acts as its creator: one enabled again while its creator is no longer a member of the project's
-- workspace (a member who left: their rules were disabled) is taken over by @actor, who enables it.
UPDATE automation_rules r
SET name = @name, trigger = @trigger, conditions = @conditions, action = @action, enabled = @enabled, updated_at = now(),
    created_by = CASE WHEN @enabled::bool AND NOT r.enabled AND NOT EXISTS (
        SELECT 1 FROM projects p JOIN workspace_members m ON m.workspace_id = p.workspace_id
        WHERE p.id = r.project_id AND m.user_id = r.created_by) THEN @actor::uuid ELSE r.created_by END
WHERE r.id = @id AND r.project_id = @project_id
RETURNING *;

-- name: AutomationRuleToggle :one
-- As AutomationRuleUpdate: a rule enabled again while its creator is no longer a member is taken over by
-- @actor.
UPDATE automation_rules r SET enabled = NOT r.enabled, updated_at = now(),
    created_by = CASE WHEN NOT r.enabled AND NOT EXISTS (
        SELECT 1 FROM projects p JOIN workspace_members m ON m.workspace_id = p.workspace_id
        WHERE p.id = r.project_id AND m.user_id = r.created_by) THEN @actor::uuid ELSE r.created_by END
WHERE r.id = @id AND r.project_id = @project_id
RETURNING *;

-- name: AutomationRuleDelete :execrows
DELETE FROM automation_rules WHERE id = @id AND project_id = @project_id;

-- name: AutomationRulesDisableByCreator :many
-- AutomationRulesDisableByCreator disables the enabled rules a user created in the projects of these
-- workspaces (a member who leaves them: the rules act as their creator), answering each with its
-- project's workspace (automation_rules_enabled_creator_idx, migration 00035).
UPDATE automation_rules r SET enabled = false, updated_at = now()
FROM projects p
WHERE r.created_by = @created_by AND r.enabled AND p.id = r.project_id AND p.workspace_id = ANY(@workspace_ids::uuid[])
RETURNING r.id, r.project_id, r.name, p.workspace_id;

-- name: AutomationRulesForTrigger :many
SELECT * FROM automation_rules
WHERE project_id = @project_id AND trigger = @trigger AND enabled
ORDER BY created_at, id;

-- name: AutomationTraceInsert :one
-- AutomationTraceInsert records an execution once per (event, rule); no row means it ran before.
INSERT INTO automation_traces (id, rule_id, event_id, card_id, trigger, depth, result, reason)
VALUES (@id, @rule_id, @event_id, @card_id, @trigger, @depth, @result, @reason)
ON CONFLICT (event_id, rule_id) DO NOTHING
RETURNING id;

-- name: AutomationTraceList :many
SELECT * FROM automation_traces WHERE rule_id = @rule_id ORDER BY created_at DESC, id DESC LIMIT @lim;

-- name: DueDateClaim :many
-- DueDateClaim claims every passed due date not fired yet; the unique (card, due date) key makes each
-- fire exactly once whatever the number of scanners. An archived project's cards wait (an archived
-- project is read-only, its automations write nothing): their passed due dates fire once it is restored.
INSERT INTO due_date_events (id, card_id, due_date)
SELECT gen_random_uuid(), c.id, c.due_date
FROM cards c
WHERE c.due_date IS NOT NULL AND c.due_date <= now() AND NOT c.archived
  AND NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = c.project_id AND p.archived_at IS NOT NULL)
ON CONFLICT (card_id, due_date) DO NOTHING
RETURNING id, card_id, due_date;

-- name: CardsForDueEvents :many
SELECT id, project_id, title, assignee_id, due_date FROM cards WHERE id = ANY(@ids::uuid[]);

-- name: ColumnIDsByProject :many
SELECT id FROM columns WHERE project_id = @project_id ORDER BY position, id;

-- name: LabelInProject :one
SELECT EXISTS (SELECT 1 FROM labels WHERE id = @id AND project_id = @project_id);

-- name: CardHasLabel :one
SELECT EXISTS (SELECT 1 FROM card_labels WHERE card_id = @card_id AND label_id = @label_id);

-- name: ProjectWorkspace :one
SELECT workspace_id FROM projects WHERE id = @id;
