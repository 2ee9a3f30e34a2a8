-- +goose Up
-- Locks: adds an identity column to activities, which rewrites the table under an ACCESS EXCLUSIVE
-- lock, then builds a unique index: activities (so every write that records one) wait until it commits.
-- The workspace event feed (GET WS/events) is read from activities, which every write already fills in
-- its own transaction: nothing is written twice and nothing is announced per write (a pg_notify per
-- activity would take a database-wide lock at commit and serialise the committers of the busiest
-- path, card creates). seq is the feed position: assigned from the identity's sequence when the row
-- is inserted, so it grows with insertion order, not commit order; the api's poller
-- (internal/stream) reads new positions and waits for the ones still in flight (docs/events.md). The
-- sequence keeps its default CACHE 1: a per-connection cache would hand out positions far out of
-- commit order. The uuid id stays the activity's key (notifications, automation jobs name it).
-- Adding the column numbers the existing rows in their physical order and rewrites the table under an
-- exclusive lock: on a large installation, writes wait for it once, at the upgrade.
ALTER TABLE activities ADD COLUMN seq bigint NOT NULL GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX activities_seq_idx ON activities (seq);

-- +goose Down
DROP INDEX activities_seq_idx;
ALTER TABLE activities DROP COLUMN seq;
