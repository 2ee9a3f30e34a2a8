-- +goose Up
-- agents are workspace-scoped service users (user_id) that work on cards.
CREATE TABLE agents (
    id                      uuid PRIMARY KEY,
    workspace_id            uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    user_id                 uuid NOT NULL REFERENCES users (id),
    name                    text NOT NULL,
    slug                    text NOT NULL,
    description             text NOT NULL DEFAULT '',
    autonomy_mode           text NOT NULL DEFAULT 'supervised' CHECK (autonomy_mode IN ('autonomous', 'supervised', 'approval')),
    tools                   text[] NOT NULL DEFAULT '{}',
    mcp_only                boolean NOT NULL DEFAULT false,
    max_steps               integer NOT NULL DEFAULT 10,
    max_actions_per_mission integer NOT NULL DEFAULT 20,
    max_missions_per_hour   integer NOT NULL DEFAULT 30,
    created_by              uuid NOT NULL REFERENCES users (id),
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (workspace_id, slug)
);

CREATE TABLE skills (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL,
    description  text NOT NULL DEFAULT '',
    instructions text NOT NULL DEFAULT '',
    created_by   uuid NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (workspace_id, name)
);

CREATE TABLE agent_skills (
    agent_id   uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    skill_id   uuid NOT NULL REFERENCES skills (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (agent_id, skill_id)
);

CREATE TABLE agent_missions (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    agent_id     uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    project_id   uuid REFERENCES projects (id) ON DELETE CASCADE,
    card_id      uuid REFERENCES cards (id) ON DELETE SET NULL,
    source       text NOT NULL CHECK (source IN ('agent', 'runtime', 'card_mission')),
    objective    text NOT NULL,
    status       text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued', 'running', 'awaiting_approval', 'completed', 'failed')),
    max_steps    integer NOT NULL,
    steps        integer NOT NULL DEFAULT 0,
    actions      integer NOT NULL DEFAULT 0,
    -- event_seq numbers the mission's events; bumping it also serialises their writers.
    event_seq    bigint NOT NULL DEFAULT 0,
    job_id       bigint,
    created_by   uuid NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz,
    cancelled_at timestamptz,
    error        text
);
CREATE INDEX agent_missions_agent_idx ON agent_missions (agent_id, created_at DESC);
CREATE INDEX agent_missions_ws_idx ON agent_missions (workspace_id, created_at DESC);

-- mission_steps records each tool call a mission made, keyed so that a retried or rescued job finds the
-- step already done and never applies it twice.
CREATE TABLE mission_steps (
    mission_id uuid NOT NULL REFERENCES agent_missions (id) ON DELETE CASCADE,
    step_key   text NOT NULL,
    seq        integer NOT NULL,
    tool       text NOT NULL,
    args       jsonb NOT NULL,
    outcome    text NOT NULL CHECK (outcome IN ('applied', 'proposed', 'refused')),
    result     jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (mission_id, step_key)
);

CREATE TABLE agent_proposals (
    id          uuid PRIMARY KEY,
    mission_id  uuid NOT NULL REFERENCES agent_missions (id) ON DELETE CASCADE,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    step_key    text NOT NULL,
    tool        text NOT NULL,
    args        jsonb NOT NULL,
    explanation text NOT NULL DEFAULT '',
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    reason      text,
    decided_by  uuid REFERENCES users (id),
    decided_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (mission_id, step_key)
);
CREATE INDEX agent_proposals_ws_idx ON agent_proposals (workspace_id, status, created_at);

-- mission_events is the durable log of a mission's progress; api processes relay new rows (announced
-- with pg_notify in the same transaction) to their SSE subscribers and replay from it on reconnect.
CREATE TABLE mission_events (
    mission_id uuid NOT NULL REFERENCES agent_missions (id) ON DELETE CASCADE,
    seq        bigint NOT NULL,
    type       text NOT NULL CHECK (type IN ('status', 'step', 'proposal', 'token', 'done')),
    status     text NOT NULL,
    message    text NOT NULL DEFAULT '',
    data       jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (mission_id, seq)
);

-- +goose Down
DROP TABLE mission_events, agent_proposals, mission_steps, agent_missions, agent_skills, skills, agents;
