-- +goose Up
-- Time tracking (db/timetrack, docs/time-tracking.md): an estimate on each card, time entries people log
-- on cards (by a timer or by hand), and each card's total of logged time.
--
-- Locks: the two ADD COLUMNs take cards' ACCESS EXCLUSIVE lock for a moment only: a nullable column and a
-- column with a constant default are catalog changes (no table rewrite, no scan). The CHECK is added
-- NOT VALID, so it scans nothing either (every existing card has no estimate); it holds for every write.
--
-- The card list and card reads are the hottest paths: a card carries its estimate and its total as
-- columns of its row, kept by the store in the transaction of each entry's change, rather than a join or
-- a subquery per card on every list read.
ALTER TABLE cards
    ADD COLUMN estimate_seconds   integer,
    ADD COLUMN time_spent_seconds bigint NOT NULL DEFAULT 0;
ALTER TABLE cards ADD CONSTRAINT cards_estimate_range
    CHECK (estimate_seconds IS NULL OR estimate_seconds BETWEEN 0 AND 100000000) NOT VALID;

-- time_entries are the time people logged on cards. A running timer is an entry with running = true and
-- no end yet; stopping it sets its end and its duration. A manual entry has a duration and a date, and a
-- start and an end only when the person gave them. work_date is the day the time counts for in reports.
-- user_id has no foreign key, as other actor columns (migration 00030): users are never deleted.
CREATE TABLE time_entries (
    id               uuid PRIMARY KEY,
    workspace_id     uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    card_id          uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    user_id          uuid NOT NULL,
    source           text NOT NULL CHECK (source IN ('timer', 'manual')),
    running          boolean NOT NULL DEFAULT false,
    started_at       timestamptz,
    ended_at         timestamptz,
    -- At most a day per entry: longer is a forgotten timer or a typo, which the store refuses.
    duration_seconds integer NOT NULL DEFAULT 0 CHECK (duration_seconds BETWEEN 0 AND 86400),
    work_date        date NOT NULL,
    note             text NOT NULL DEFAULT '' CHECK (length(note) <= 1000),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK (NOT running OR (started_at IS NOT NULL AND ended_at IS NULL AND duration_seconds = 0)),
    CHECK (ended_at IS NULL OR (started_at IS NOT NULL AND ended_at >= started_at))
);

-- One running timer per person: starting one stops the other in the same transaction, and this index
-- makes a second concurrent start fail (and be retried) rather than leave two running.
CREATE UNIQUE INDEX time_entries_one_running ON time_entries (user_id) WHERE running;
-- A card's entries, newest first (the card's list); reports read a project's or a workspace's entries
-- of a period.
CREATE INDEX time_entries_card ON time_entries (card_id, created_at DESC, id DESC);
CREATE INDEX time_entries_project_day ON time_entries (project_id, work_date);
CREATE INDEX time_entries_workspace_day ON time_entries (workspace_id, work_date);

-- +goose Down
DROP TABLE time_entries;
ALTER TABLE cards DROP CONSTRAINT cards_estimate_range;
ALTER TABLE cards DROP COLUMN estimate_seconds, DROP COLUMN time_spent_seconds;
