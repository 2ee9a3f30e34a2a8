-- name: StreamEventAppend :one
-- StreamEventAppend takes the stream's next sequence number (creating the stream on its first event;
-- the streams row stays locked until commit, which serialises the stream's writers) and stores the
-- event. A stream of another kind under the same id returns no row. `final` records whether the
-- event's status is one of its kind's final statuses (db.StreamKind.Ends); readers decide from the
-- status itself, so rows written under the earlier rule (a final mission awaiting_approval, a final
-- draft job) need no rewrite.
WITH s AS (
    INSERT INTO streams AS st (id, kind, last_seq, final) VALUES (@stream_id, @kind, 1, @final)
    ON CONFLICT (id) DO UPDATE SET last_seq = st.last_seq + 1, final = excluded.final
    WHERE st.kind = excluded.kind
    RETURNING st.id, st.last_seq
)
INSERT INTO stream_events (stream_id, seq, type, status, message, data, final)
SELECT s.id, s.last_seq, @type, @status, @message, @data, @final FROM s
RETURNING *;

-- name: StreamEventNotify :exec
SELECT pg_notify('pilot_stream_events', @payload::text);

-- name: StreamEventsAfter :many
-- StreamEventsAfter reads a stream's events after seq, in order (replay for Last-Event-ID).
SELECT * FROM stream_events WHERE stream_id = @stream_id AND seq > @after_seq ORDER BY seq LIMIT @lim;

-- name: StreamGet :one
-- StreamGet is a stream's last committed sequence number and that event's status; no row when nothing
-- was ever appended.
SELECT s.last_seq, e.status AS last_status
FROM streams s JOIN stream_events e ON e.stream_id = s.id AND e.seq = s.last_seq
WHERE s.id = @id;

-- name: StreamEventsBatchAfter :many
-- StreamEventsBatchAfter reads, in one query, the events of several streams after a per-stream seq
-- (the stream relay's fan-in read), ordered by stream then seq.
SELECT * FROM stream_events
WHERE stream_id = ANY(@stream_ids::uuid[])
  AND seq > (@after_seqs::bigint[])[array_position(@stream_ids::uuid[], stream_id)]
ORDER BY stream_id, seq
LIMIT @lim;

-- name: MissionStreamGet :one
-- MissionStreamGet is what a mission stream needs to know before it streams.
SELECT id, workspace_id, status FROM agent_missions WHERE id = @id;

-- name: MissionStatusGet :one
-- MissionStatusGet reads a mission's status in the caller's transaction (an event's default status).
SELECT status FROM agent_missions WHERE id = @id;

-- name: StreamSegmentStart :one
-- StreamSegmentStart is the seq of the last event of type @end_type before the stream's last event (0
-- when none): the events after it are the stream's current (or latest) segment, one job of a draft
-- say, each job ending with a `done` event.
SELECT coalesce(max(e.seq), 0)::bigint AS seq
FROM stream_events e JOIN streams s ON s.id = e.stream_id
WHERE e.stream_id = @stream_id AND e.type = @end_type AND e.seq < s.last_seq;
