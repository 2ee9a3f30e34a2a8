-- name: PilotageHistoryInsert :exec
INSERT INTO pilotage_history (id, workspace_id, record_type, record_id, change, actor_id, data)
VALUES (@id, @workspace_id, @record_type, @record_id, @change, @actor_id, @data);

-- name: PilotageHistoryList :many
-- PilotageHistoryList pages through a workspace's history, newest first: entries before the cursor
-- (an entry id; ids are time-ordered), of one record type when given, since a time when given.
SELECT * FROM pilotage_history
WHERE workspace_id = @workspace_id
  AND (sqlc.narg('before')::uuid IS NULL OR id < sqlc.narg('before')::uuid)
  AND (sqlc.narg('record_type')::text IS NULL OR record_type = sqlc.narg('record_type')::text)
  AND (sqlc.narg('since')::timestamptz IS NULL OR created_at >= sqlc.narg('since')::timestamptz)
ORDER BY id DESC
LIMIT @lim;
