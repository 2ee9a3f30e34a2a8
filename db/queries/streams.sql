-- name: StreamEventAppend :one
-- StreamEventAppend takes the stream's next sequence number (creating the stream on its first event;
-- the streams row stays locked until commit, which serialises the stream's writers) and stores the
-- event. A stream of another kind under the same id returns no row.
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
-- StreamGet is a stream's last committed sequence number and whether its last event ended it; no row
-- when nothing was ever appended.
SELECT last_seq, final FROM streams WHERE id = @id;

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
