-- name: MissionStreamGet :one
-- MissionStreamGet is what a mission stream needs to know before and while it streams.
SELECT id, workspace_id, status FROM agent_missions WHERE id = @id;

-- name: MissionEventsLastSeq :one
-- MissionEventsLastSeq is the highest committed event number of a mission (0 when it has none).
SELECT coalesce(max(seq), 0)::bigint AS seq FROM mission_events WHERE mission_id = @mission_id;

-- name: MissionEventsBatchAfter :many
-- MissionEventsBatchAfter reads, in one query, the events of several missions after a per-mission seq
-- (the stream relay's fan-in read), ordered by mission then seq.
SELECT * FROM mission_events
WHERE mission_id = ANY(@mission_ids::uuid[])
  AND seq > (@after_seqs::bigint[])[array_position(@mission_ids::uuid[], mission_id)]
ORDER BY mission_id, seq
LIMIT @lim;
