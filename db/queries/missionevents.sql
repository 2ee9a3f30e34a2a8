-- name: MissionEventNextSeq :one
-- MissionEventNextSeq takes the mission's next event number (and its row lock until commit).
UPDATE agent_missions SET event_seq = event_seq + 1 WHERE id = @id RETURNING event_seq, status;

-- name: MissionEventInsert :one
INSERT INTO mission_events (mission_id, seq, type, status, message, data)
VALUES (@mission_id, @seq, @type, @status, @message, @data)
RETURNING *;

-- name: MissionEventNotify :exec
SELECT pg_notify('pilot_mission_events', @payload::text);

-- name: MissionEventsAfter :many
SELECT * FROM mission_events WHERE mission_id = @mission_id AND seq > @after_seq ORDER BY seq LIMIT @lim;
