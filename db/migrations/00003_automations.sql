-- +goose Up
CREATE TABLE automation_rules (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       text NOT NULL,
    trigger    text NOT NULL CHECK (trigger IN ('task_moved', 'task_created', 'checklist_complete', 'due_date_reached',
                                                'task_status_changed', 'task_assigned', 'task_added_to_board')),
    conditions jsonb NOT NULL DEFAULT '{}',
    action     jsonb NOT NULL,
    enabled    boolean NOT NULL DEFAULT true,
    created_by uuid NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX automation_rules_project_idx ON automation_rules (project_id, created_at);
CREATE INDEX automation_rules_trigger_idx ON automation_rules (project_id, trigger) WHERE enabled;

-- automation_traces records each execution of a rule for an event. (event_id, rule_id) is unique: a
-- retried job never runs a rule twice for the same event.
CREATE TABLE automation_traces (
    id         uuid PRIMARY KEY,
    rule_id    uuid NOT NULL REFERENCES automation_rules (id) ON DELETE CASCADE,
    event_id   uuid NOT NULL,
    card_id    uuid,
    trigger    text NOT NULL,
    depth      integer NOT NULL,
    result     text NOT NULL CHECK (result IN ('applied', 'skipped', 'failed')),
    reason     text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (event_id, rule_id)
);
CREATE INDEX automation_traces_rule_idx ON automation_traces (rule_id, created_at DESC);

-- due_date_events holds one row per card and due date that has passed: firing is exactly once per
-- pair, and a new due date is a new pair (re-armed).
CREATE TABLE due_date_events (
    id       uuid PRIMARY KEY,
    card_id  uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    due_date timestamptz NOT NULL,
    fired_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (card_id, due_date)
);

-- System events (a due date passing) have no acting user, and some notify only their recipients.
ALTER TABLE activities ALTER COLUMN actor_id DROP NOT NULL;
ALTER TABLE activities ADD COLUMN notify_members boolean NOT NULL DEFAULT true;

-- +goose Down
ALTER TABLE activities DROP COLUMN notify_members;
DROP TABLE due_date_events, automation_traces, automation_rules;
