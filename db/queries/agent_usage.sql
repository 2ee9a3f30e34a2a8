-- name: MissionCountTurn :one
-- MissionCountTurn adds one model call and its tokens to a mission, answering its workspace and agent.
UPDATE agent_missions SET model_turns = model_turns + 1, prompt_tokens = prompt_tokens + @prompt_tokens,
    completion_tokens = completion_tokens + @completion_tokens
WHERE id = @id
RETURNING workspace_id, agent_id;

-- name: AgentUsageAdd :exec
-- AgentUsageAdd adds one model call and its tokens to the day (UTC) of an agent.
INSERT INTO agent_usage (workspace_id, agent_id, day, model_turns, prompt_tokens, completion_tokens)
VALUES (@workspace_id, @agent_id, (now() AT TIME ZONE 'UTC')::date, 1, @prompt_tokens, @completion_tokens)
ON CONFLICT (workspace_id, day, agent_id) DO UPDATE
SET model_turns = agent_usage.model_turns + 1, prompt_tokens = agent_usage.prompt_tokens + @prompt_tokens,
    completion_tokens = agent_usage.completion_tokens + @completion_tokens;

-- name: AgentBudget :one
-- AgentBudget is the daily token budget of a workspace (0: none) and the tokens its agents used today (UTC).
SELECT coalesce(max(s.max_tokens_per_day), 0)::bigint AS max_tokens_per_day,
       coalesce((SELECT sum(u.prompt_tokens + u.completion_tokens) FROM agent_usage u
                 WHERE u.workspace_id = w.id AND u.day = (now() AT TIME ZONE 'UTC')::date), 0)::bigint AS spent
FROM workspaces w LEFT JOIN workspace_agent_settings s ON s.workspace_id = w.id
WHERE w.id = @workspace_id
GROUP BY w.id;

-- name: AgentSettingsGet :one
SELECT max_tokens_per_day FROM workspace_agent_settings WHERE workspace_id = @workspace_id;

-- name: AgentSettingsSet :exec
INSERT INTO workspace_agent_settings (workspace_id, max_tokens_per_day, updated_at)
VALUES (@workspace_id, sqlc.narg('max_tokens_per_day'), now())
ON CONFLICT (workspace_id) DO UPDATE SET max_tokens_per_day = excluded.max_tokens_per_day, updated_at = now();

-- name: AgentUsageByDay :many
-- AgentUsageByDay lists a workspace's model calls and tokens per day and agent, days from @first to @last
-- (UTC), with the name of the agent ('' once deleted).
SELECT u.day::text AS day, u.agent_id, coalesce(a.name, '')::text AS agent_name, u.model_turns, u.prompt_tokens,
       u.completion_tokens
FROM agent_usage u LEFT JOIN agents a ON a.id = u.agent_id
WHERE u.workspace_id = @workspace_id AND u.day BETWEEN @first::date AND @last::date
ORDER BY u.day, u.agent_id;

-- name: AgentMissionTimeByDay :many
-- AgentMissionTimeByDay counts the missions of a workspace created from @since to before @until, per day of
-- creation (UTC) and agent, with their wall time (start to finish, or to now while unfinished) and their
-- time waiting for people (the wait in progress included), in seconds.
SELECT ((m.created_at AT TIME ZONE 'UTC')::date)::text AS day, m.agent_id, a.name AS agent_name, count(*)::int AS missions,
       coalesce(sum(extract(epoch FROM coalesce(m.finished_at, now()) - m.started_at)), 0)::float8 AS wall_seconds,
       (sum(m.waiting_ms)::float8 / 1000 + coalesce(sum(CASE WHEN m.status LIKE 'awaiting%'
           THEN extract(epoch FROM now() - coalesce(m.status_changed_at, m.created_at)) END), 0))::float8 AS waiting_seconds
FROM agent_missions m JOIN agents a ON a.id = m.agent_id
WHERE m.workspace_id = @workspace_id AND m.created_at >= @since::timestamptz AND m.created_at < @until::timestamptz
GROUP BY 1, 2, 3
ORDER BY 1, 2;
