-- +goose Up
-- The pilotage cockpit (docs/pilotage.md): a workspace's missions, priorities, todos, decisions and
-- active documents, the actions proposed on them (by people or agents), and the history of every change.
-- Actor columns (created_by, updated_by, ...) name users without a foreign key: they are a record of
-- who acted and stay when the user is deleted, as activities.actor_id does.

CREATE TABLE pilotage_missions (
    id             uuid PRIMARY KEY,
    workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    objective      text NOT NULL,
    module         text NOT NULL DEFAULT '',
    status         text NOT NULL DEFAULT 'to_launch' CHECK (status IN ('to_launch', 'in_progress', 'blocked', 'done')),
    -- blocked_reason is set exactly while the mission is blocked.
    blocked_reason text CHECK (char_length(blocked_reason) <= 200),
    created_by     uuid NOT NULL,
    updated_by     uuid NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT pilotage_missions_blocked_reason CHECK ((status = 'blocked') = (blocked_reason IS NOT NULL))
);
CREATE INDEX pilotage_missions_ws_idx ON pilotage_missions (workspace_id, created_at);

CREATE TABLE pilotage_priorities (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    label        text NOT NULL,
    module       text NOT NULL DEFAULT '',
    active       boolean NOT NULL DEFAULT true,
    created_by   uuid NOT NULL,
    updated_by   uuid NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pilotage_priorities_ws_idx ON pilotage_priorities (workspace_id, created_at);

CREATE TABLE pilotage_todos (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    label        text NOT NULL,
    mission_id   uuid REFERENCES pilotage_missions (id) ON DELETE SET NULL,
    priority_id  uuid REFERENCES pilotage_priorities (id) ON DELETE SET NULL,
    status       text NOT NULL DEFAULT 'todo' CHECK (status IN ('todo', 'in_progress', 'blocked', 'done')),
    due_date     timestamptz,
    created_by   uuid NOT NULL,
    updated_by   uuid NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pilotage_todos_ws_idx ON pilotage_todos (workspace_id, created_at);
CREATE INDEX pilotage_todos_mission_idx ON pilotage_todos (mission_id) WHERE mission_id IS NOT NULL;
CREATE INDEX pilotage_todos_priority_idx ON pilotage_todos (priority_id) WHERE priority_id IS NOT NULL;

CREATE TABLE pilotage_decisions (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    title        text NOT NULL,
    impact       text NOT NULL DEFAULT '',
    created_by   uuid NOT NULL,
    updated_by   uuid NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pilotage_decisions_ws_idx ON pilotage_decisions (workspace_id, created_at);

CREATE TABLE pilotage_docs (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    title        text NOT NULL,
    owner        text NOT NULL DEFAULT '',
    source_type  text NOT NULL DEFAULT 'product' CHECK (source_type IN ('product', 'tech', 'sprint', 'ops')),
    created_by   uuid NOT NULL,
    updated_by   uuid NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pilotage_docs_ws_idx ON pilotage_docs (workspace_id, created_at);

-- pilotage_actions are proposed actions: suggested -> approved | rejected, approved -> applied, each move
-- a guarded UPDATE on status.
CREATE TABLE pilotage_actions (
    id            uuid PRIMARY KEY,
    workspace_id  uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    action_type   text NOT NULL CHECK (char_length(action_type) BETWEEN 1 AND 100),
    explanation   text NOT NULL CHECK (char_length(explanation) <= 500),
    payload       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(payload) = 'object'),
    status        text NOT NULL DEFAULT 'suggested' CHECK (status IN ('suggested', 'approved', 'rejected', 'applied')),
    proposed_by   uuid NOT NULL,
    -- agent_mission_id is the agent mission that proposed the action, if an agent did.
    agent_mission_id uuid REFERENCES agent_missions (id) ON DELETE SET NULL,
    reviewed_by   uuid,
    reviewed_at   timestamptz,
    review_reason text CHECK (char_length(review_reason) <= 200),
    applied_by    uuid,
    applied_at    timestamptz,
    -- result says what applying did: {"effect": bool, "message": text, "recordType"?, "recordId"?}.
    result        jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pilotage_actions_ws_idx ON pilotage_actions (workspace_id, status, created_at);

-- pilotage_history records every change of the cockpit: who, when, what record, and the change.
CREATE TABLE pilotage_history (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    record_type  text NOT NULL CHECK (record_type IN ('mission', 'priority', 'todo', 'decision', 'doc', 'action')),
    record_id    uuid NOT NULL,
    change       text NOT NULL,
    actor_id     uuid NOT NULL,
    data         jsonb NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pilotage_history_ws_idx ON pilotage_history (workspace_id, id DESC);

-- +goose Down
DROP TABLE pilotage_history, pilotage_actions, pilotage_docs, pilotage_decisions, pilotage_todos,
    pilotage_priorities, pilotage_missions;
