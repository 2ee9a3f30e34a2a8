-- +goose Up
-- The mission lifecycle of agents as teammates (docs/agents.md, "Lifecycle"): a mission may wait for a
-- person's answer (awaiting_input, with its question and the model conversation to resume from), be
-- stopped (by a person, or its budget) instead of failed, go stale when its worker falls silent, and
-- expire when its question stays unanswered.
--
-- Locks: the constraint swap takes an ACCESS EXCLUSIVE lock on agent_missions and checks every row
-- (a short write block on a large table); the new columns are nullable without defaults (no rewrite).
ALTER TABLE agent_missions DROP CONSTRAINT agent_missions_status_check,
    ADD CONSTRAINT agent_missions_status_check CHECK (status IN ('queued', 'running', 'awaiting_approval',
        'awaiting_input', 'stale', 'completed', 'failed', 'stopped', 'expired')),
    -- stop_reason: why a stopped mission stopped (person, creator_left, budget).
    ADD COLUMN stop_reason text,
    -- question: the pending question of an awaiting_input mission {question, options, toolCallId, askedAt}.
    ADD COLUMN question jsonb,
    -- input_deadline: when an unanswered question expires the mission.
    ADD COLUMN input_deadline timestamptz,
    -- conversation: the model messages so far and the turn reached, saved when the mission asks, so the
    -- answer resumes it where it stopped {turn, messages}.
    ADD COLUMN conversation jsonb;

-- The unfinished missions a leaving member has stopped now include those waiting for an answer or stale.
DROP INDEX agent_missions_active_creator_idx;
CREATE INDEX agent_missions_active_creator_idx ON agent_missions (created_by, workspace_id)
    WHERE status IN ('queued', 'running', 'awaiting_approval', 'awaiting_input', 'stale');

-- The stale sweep reads running missions only.
CREATE INDEX agent_missions_running_idx ON agent_missions (started_at) WHERE status = 'running';

-- +goose Down
DROP INDEX agent_missions_running_idx;
DROP INDEX agent_missions_active_creator_idx;
CREATE INDEX agent_missions_active_creator_idx ON agent_missions (created_by, workspace_id)
    WHERE status IN ('queued', 'running', 'awaiting_approval');
UPDATE agent_missions SET status = 'failed', finished_at = coalesce(finished_at, now())
WHERE status IN ('stopped', 'expired', 'awaiting_input', 'stale');
ALTER TABLE agent_missions DROP CONSTRAINT agent_missions_status_check,
    ADD CONSTRAINT agent_missions_status_check
        CHECK (status IN ('queued', 'running', 'awaiting_approval', 'completed', 'failed')),
    DROP COLUMN stop_reason, DROP COLUMN question, DROP COLUMN input_deadline, DROP COLUMN conversation;
