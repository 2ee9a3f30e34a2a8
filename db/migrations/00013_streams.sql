-- +goose Up
-- Locks: copies every mission event into stream_events and drops mission_events in one transaction:
-- mission event writes wait until it commits.
-- One durable event log for every kind of live progress (agent missions; project drafts and pipeline
-- runs next). A stream is keyed by the id of the entity it reports on (UUIDv7s are unique across
-- kinds). Writers append an event and pg_notify('pilot_stream_events', '<streamId>:<seq>') in the
-- transaction of the change it reports; every api process relays new rows to its SSE subscribers and
-- replays from this table on reconnect (internal/stream).
--
-- streams holds each stream's sequence (its row lock serialises the stream's writers) and whether its
-- last event ended it (`final`: a mission that finished or waits for approval, a draft whose job is
-- done). A later event may open the stream again (a mission resumed after an approval).
CREATE TABLE streams (
    id       uuid PRIMARY KEY,
    kind     text NOT NULL,
    last_seq bigint NOT NULL DEFAULT 0,
    final    boolean NOT NULL DEFAULT false
);

CREATE TABLE stream_events (
    stream_id  uuid NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
    seq        bigint NOT NULL,
    type       text NOT NULL,
    status     text NOT NULL,
    message    text NOT NULL DEFAULT '',
    data       jsonb NOT NULL DEFAULT '{}',
    final      boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, seq)
);

-- stream_delete drops the stream of a deleted entity; each kind's table gets one trigger calling it.
-- +goose StatementBegin
CREATE FUNCTION stream_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM streams WHERE id = OLD.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER agent_missions_stream_delete AFTER DELETE ON agent_missions
    FOR EACH ROW EXECUTE FUNCTION stream_delete();

-- Mission events move over unchanged; a mission event is final when its status ends the stream.
INSERT INTO streams (id, kind, last_seq, final)
SELECT e.mission_id, 'mission', max(e.seq),
       (array_agg(e.status ORDER BY e.seq DESC))[1] IN ('completed', 'failed', 'awaiting_approval')
FROM mission_events e GROUP BY e.mission_id;

INSERT INTO stream_events (stream_id, seq, type, status, message, data, final, created_at)
SELECT mission_id, seq, type, status, message, data, status IN ('completed', 'failed', 'awaiting_approval'), created_at
FROM mission_events;

DROP TABLE mission_events;
ALTER TABLE agent_missions DROP COLUMN event_seq;

-- +goose Down
ALTER TABLE agent_missions ADD COLUMN event_seq bigint NOT NULL DEFAULT 0;
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
INSERT INTO mission_events (mission_id, seq, type, status, message, data, created_at)
SELECT e.stream_id, e.seq, e.type, e.status, e.message, e.data, e.created_at
FROM stream_events e JOIN streams s ON s.id = e.stream_id WHERE s.kind = 'mission';
UPDATE agent_missions m SET event_seq = s.last_seq FROM streams s WHERE s.id = m.id;
DROP TRIGGER agent_missions_stream_delete ON agent_missions;
DROP FUNCTION stream_delete();
DROP TABLE stream_events, streams;
