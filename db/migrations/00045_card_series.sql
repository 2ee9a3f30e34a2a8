-- +goose Up
-- A recurring card's series (docs/recurring.md): an RFC 5545 rule read in an IANA time zone from its
-- first occurrence (starts_at, the card the recurrence was set on), and a mode. On schedule, the
-- leader worker's scan creates the occurrence at next_at and moves next_at to the one after (the
-- partial index below is what it reads); after completion, next_at stays null and the next occurrence
-- is created by a job enqueued in the transaction that moves the current one to the done column.
-- template_card_id is the card each occurrence copies (null once deleted: the latest occurrence then).
CREATE TABLE card_series (
    id               uuid PRIMARY KEY,
    project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    template_card_id uuid REFERENCES cards (id) ON DELETE SET NULL,
    rule             text NOT NULL,
    timezone         text NOT NULL,
    mode             text NOT NULL CHECK (mode IN ('on_schedule', 'after_completion')),
    starts_at        timestamptz NOT NULL,
    next_at          timestamptz,
    stopped_at       timestamptz,
    created_by       uuid NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX card_series_project_idx ON card_series (project_id);
CREATE INDEX card_series_due_idx ON card_series (next_at) WHERE stopped_at IS NULL AND next_at IS NOT NULL;

-- Each occurrence of a series, once: the primary key (series, date) is what makes two workers, or a
-- retried job, create an occurrence's card only once (INSERT … ON CONFLICT DO NOTHING, then the card
-- in the same transaction). A deleted occurrence's card leaves its row (card_id null), so it is not
-- created again. A card is an occurrence of at most one series.
CREATE TABLE card_occurrences (
    series_id  uuid NOT NULL REFERENCES card_series (id) ON DELETE CASCADE,
    occurs_at  timestamptz NOT NULL,
    card_id    uuid REFERENCES cards (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (series_id, occurs_at)
);
CREATE UNIQUE INDEX card_occurrences_card_idx ON card_occurrences (card_id);

-- +goose Down
DROP TABLE card_occurrences;
DROP TABLE card_series;
