-- +goose Up
-- Locks: builds an index on cards without CONCURRENTLY: writes to cards wait until it is built (it covers
-- only the assigned, dated, active cards, so it is small and quick to build).
-- Calendar feeds (docs/calendar.md): secret URLs a person subscribes to in a calendar application,
-- GET /calendar/<token>.ics, answered without a session. A personal feed has the cards assigned to its
-- owner that have dates, across every workspace the owner can still open; a project feed has a project's
-- dated cards, while its owner can still read the project (checked at every fetch).
CREATE TABLE calendar_feeds (
    id                 uuid PRIMARY KEY,
    user_id            uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name               text NOT NULL,
    kind               text NOT NULL CHECK (kind IN ('personal', 'project')),
    -- A project feed names its project; a deleted project takes its feeds with it.
    project_id         uuid REFERENCES projects (id) ON DELETE CASCADE,
    -- prefix is the token's first characters, to recognise it in the list.
    prefix             text NOT NULL,
    -- secret_hash is the SHA-256 of the token (as api_tokens keep theirs): the token is shown once, at
    -- creation, and never stored; a fetch finds its feed by this hash.
    secret_hash        bytea NOT NULL UNIQUE,
    -- content_hash is the SHA-256 of the feed's last answer and content_changed_at when it last changed:
    -- the answer's ETag and Last-Modified, so calendar clients poll with 304s.
    content_hash       bytea,
    content_changed_at timestamptz,
    last_fetched_at    timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'project') = (project_id IS NOT NULL))
);
CREATE INDEX calendar_feeds_user_idx ON calendar_feeds (user_id, created_at);
CREATE INDEX calendar_feeds_project_idx ON calendar_feeds (project_id) WHERE project_id IS NOT NULL;

-- A personal feed reads the cards assigned to its owner that have a date, by assignee: this index keeps
-- that read proportional to those cards rather than to every card of the owner's projects.
CREATE INDEX cards_assignee_dated_idx ON cards (assignee_id)
    WHERE assignee_id IS NOT NULL AND NOT archived AND (due_date IS NOT NULL OR start_date IS NOT NULL);

-- +goose Down
DROP INDEX cards_assignee_dated_idx;
DROP TABLE calendar_feeds;
