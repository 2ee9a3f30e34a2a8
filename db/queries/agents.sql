-- name: ServiceUserInsert :exec
-- ServiceUserInsert creates an agent's service user: it cannot log in (is_service, unusable hash).
INSERT INTO users (id, email, name, password_hash, is_service, email_verified)
VALUES (@id, @email, @name, @password_hash, true, true);

-- name: AgentInsert :one
INSERT INTO agents (id, workspace_id, user_id, name, slug, description, autonomy_mode, tools, mcp_only,
    max_steps, max_actions_per_mission, max_missions_per_hour, enabled, model, created_by)
VALUES (@id, @workspace_id, @user_id, @name, @slug, @description, @autonomy_mode, @tools::text[], @mcp_only,
    @max_steps, @max_actions_per_mission, @max_missions_per_hour, @enabled, @model, @created_by)
RETURNING *;

-- name: AgentGet :one
SELECT * FROM agents WHERE id = @id AND workspace_id = @workspace_id;

-- name: AgentGetForUpdate :one
SELECT * FROM agents WHERE id = @id AND workspace_id = @workspace_id FOR UPDATE;

-- name: AgentGetByID :one
SELECT * FROM agents WHERE id = @id;

-- name: AgentByUser :one
SELECT * FROM agents WHERE user_id = @user_id AND workspace_id = @workspace_id;

-- name: AgentFirst :one
-- AgentFirst is the workspace's default agent: its first enabled one by creation (a disabled one when none is
-- enabled, whose mission is then refused with the reason).
SELECT * FROM agents WHERE workspace_id = @workspace_id ORDER BY enabled DESC, created_at, id LIMIT 1;

-- name: AgentList :many
SELECT * FROM agents WHERE workspace_id = @workspace_id ORDER BY created_at, id;

-- name: AgentUpdate :one
UPDATE agents
SET name = @name, slug = @slug, description = @description, autonomy_mode = @autonomy_mode, tools = @tools::text[],
    mcp_only = @mcp_only, max_steps = @max_steps, max_actions_per_mission = @max_actions_per_mission,
    max_missions_per_hour = @max_missions_per_hour, enabled = @enabled, model = @model, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: AgentDelete :one
DELETE FROM agents WHERE id = @id AND workspace_id = @workspace_id RETURNING user_id;

-- name: WorkspaceMemberRemove :exec
DELETE FROM workspace_members WHERE workspace_id = @workspace_id AND user_id = @user_id;

-- name: SkillInsert :one
INSERT INTO skills (id, workspace_id, name, description, instructions, created_by)
VALUES (@id, @workspace_id, @name, @description, @instructions, @created_by)
RETURNING *;

-- name: SkillList :many
SELECT * FROM skills WHERE workspace_id = @workspace_id ORDER BY name, id;

-- name: SkillGet :one
SELECT * FROM skills WHERE id = @id AND workspace_id = @workspace_id;

-- name: AgentSkillAssign :exec
INSERT INTO agent_skills (agent_id, skill_id) VALUES (@agent_id, @skill_id) ON CONFLICT DO NOTHING;

-- name: AgentSkillUnassign :execrows
DELETE FROM agent_skills WHERE agent_id = @agent_id AND skill_id = @skill_id;

-- name: SkillsByAgent :many
SELECT s.* FROM skills s JOIN agent_skills a ON a.skill_id = s.id WHERE a.agent_id = @agent_id ORDER BY s.name, s.id;
