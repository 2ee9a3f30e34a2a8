-- +goose Up
-- Agents as teammates: who acted (a person, or an agent for a person), what missions cost (model turns,
-- tokens, time waiting for people) and a workspace's daily token budget.
--
-- Locks: the ALTER TABLEs below take ACCESS EXCLUSIVE locks on activities, comments and agent_missions
-- (activities is large), blocking their writes while they run. Each only adds nullable or constant-default
-- columns, which PostgreSQL does without rewriting the table, so the locks are held for an instant.

-- activities.agent_id is the agent that acted (its service user is actor_id), kept after the agent is
-- deleted (no foreign key, as actor_id); on_behalf_of is the person it acted for: the member who started
-- the mission, or who approved the proposal being applied.
ALTER TABLE activities ADD COLUMN agent_id uuid, ADD COLUMN on_behalf_of uuid;

-- comments.on_behalf_of: the person an agent's comment was written for (its author is the agent's user).
ALTER TABLE comments ADD COLUMN on_behalf_of uuid;

-- A mission's accounting: model calls made and the tokens they used (retries included: they were spent),
-- the time it waited for people (awaiting_approval or awaiting_input; the trigger below adds each wait
-- as the status moves on) and when its status last changed.
ALTER TABLE agent_missions ADD COLUMN model_turns integer NOT NULL DEFAULT 0,
    ADD COLUMN prompt_tokens bigint NOT NULL DEFAULT 0,
    ADD COLUMN completion_tokens bigint NOT NULL DEFAULT 0,
    ADD COLUMN waiting_ms bigint NOT NULL DEFAULT 0,
    ADD COLUMN status_changed_at timestamptz;

-- +goose StatementBegin
CREATE FUNCTION agent_missions_count_waiting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF OLD.status LIKE 'awaiting%' THEN
            NEW.waiting_ms := NEW.waiting_ms + greatest(0, floor(extract(epoch FROM
                now() - coalesce(OLD.status_changed_at, OLD.started_at, OLD.created_at)) * 1000))::bigint;
        END IF;
        NEW.status_changed_at := now();
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER agent_missions_count_waiting BEFORE UPDATE OF status ON agent_missions
    FOR EACH ROW EXECUTE FUNCTION agent_missions_count_waiting();

-- agent_usage sums an agent's model calls and tokens per day (UTC): what GET WS/agent-usage reads and
-- the workspace's daily budget is checked against. No foreign key to agents: a deleted agent's spending
-- still counts for the day.
CREATE TABLE agent_usage (
    workspace_id      uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    agent_id          uuid NOT NULL,
    day               date NOT NULL,
    model_turns       integer NOT NULL DEFAULT 0,
    prompt_tokens     bigint NOT NULL DEFAULT 0,
    completion_tokens bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, day, agent_id)
);

-- A workspace's agent settings; no row means the defaults (no budget).
CREATE TABLE workspace_agent_settings (
    workspace_id       uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    max_tokens_per_day bigint CHECK (max_tokens_per_day > 0),
    updated_at         timestamptz NOT NULL DEFAULT now()
);

-- record_activities with the agent and the person it acted for. The 12-argument version stays (a process
-- of the previous version calls it during a rolling update); this one also records agent_ids (else the
-- agent whose service user is the actor) and on_behalf_ofs. Empty strings stand for none.
-- +goose StatementBegin
CREATE FUNCTION record_activities(
    ids uuid[], project_ids text[], workspace_ids text[], card_ids text[], document_ids text[], actor_ids text[],
    types text[], metas jsonb[], recipients jsonb[], notify_members boolean[], trigger_projects uuid[], triggers text[],
    agent_ids text[], on_behalf_ofs text[]
) RETURNS SETOF text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    INSERT INTO activities (id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients,
                            notify_members, agent_id, on_behalf_of)
    SELECT a.id, nullif(a.project_id, '')::uuid, nullif(a.workspace_id, '')::uuid, nullif(a.card_id, '')::uuid,
           nullif(a.document_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members,
           coalesce(nullif(a.agent_id, '')::uuid,
                    (SELECT ag.id FROM agents ag WHERE ag.user_id = nullif(a.actor_id, '')::uuid LIMIT 1)),
           nullif(a.on_behalf_of, '')::uuid
    FROM unnest(ids, project_ids, workspace_ids, card_ids, document_ids, actor_ids, types, metas, recipients,
                notify_members, agent_ids, on_behalf_ofs)
         AS a(id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients, notify_members,
              agent_id, on_behalf_of);

    RETURN QUERY
    SELECT DISTINCT t.project_id || '/' || t.trigger
    FROM unnest(trigger_projects, triggers) AS t(project_id, trigger)
    WHERE EXISTS (SELECT 1 FROM automation_rules r
                  WHERE r.project_id = t.project_id AND r.trigger = t.trigger AND r.enabled);

    RETURN QUERY
    SELECT 'notify/' || a.id
    FROM unnest(ids, project_ids, actor_ids, recipients, notify_members) AS a(id, project_id, actor_id, recipients, notify_members)
    WHERE (a.notify_members AND a.project_id <> ''
           AND EXISTS (SELECT 1 FROM project_members pm
                       WHERE pm.project_id = a.project_id::uuid AND pm.user_id IS DISTINCT FROM nullif(a.actor_id, '')::uuid))
       OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(a.recipients) r(user_id) WHERE r.user_id <> a.actor_id);

    RETURN QUERY
    SELECT 'webhook/' || w.id || '/' || a.id
    FROM unnest(ids, project_ids, workspace_ids, types) AS a(id, project_id, workspace_id, type)
    CROSS JOIN LATERAL (SELECT coalesce(nullif(a.workspace_id, '')::uuid,
                                        (SELECT p.workspace_id FROM projects p WHERE p.id = nullif(a.project_id, '')::uuid)) AS id) ws
    JOIN webhooks w ON w.workspace_id = ws.id AND w.enabled
    WHERE a.type = ANY (w.events) OR '*' = ANY (w.events);
END
$$;
-- +goose StatementEnd

-- The lookup above of the agent whose service user acted.
CREATE INDEX agents_user_idx ON agents (user_id);

-- +goose Down
DROP INDEX agents_user_idx;
DROP FUNCTION record_activities(uuid[], text[], text[], text[], text[], text[], text[], jsonb[], jsonb[], boolean[],
    uuid[], text[], text[], text[]);
DROP TABLE workspace_agent_settings, agent_usage;
DROP TRIGGER agent_missions_count_waiting ON agent_missions;
DROP FUNCTION agent_missions_count_waiting();
ALTER TABLE agent_missions DROP COLUMN model_turns, DROP COLUMN prompt_tokens, DROP COLUMN completion_tokens,
    DROP COLUMN waiting_ms, DROP COLUMN status_changed_at;
ALTER TABLE comments DROP COLUMN on_behalf_of;
ALTER TABLE activities DROP COLUMN agent_id, DROP COLUMN on_behalf_of;
