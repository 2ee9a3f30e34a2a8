-- name: CardInsert :one
-- CardInsert creates a card at the end of its column: one past the column's highest position, found
-- through the (column_id, position) index. Concurrent creates may take the same position; the id breaks
-- the tie, so the order stays total and nobody waits for a lock.
INSERT INTO cards (id, project_id, column_id, scope_id, title, description, priority, start_date, due_date, assignee_id, created_by, position)
VALUES (@id, @project_id, @column_id, @scope_id, @title, @description, @priority, @start_date, @due_date, @assignee_id, @created_by,
        (SELECT coalesce(max(c.position) + 1, 0) FROM cards c WHERE c.column_id = @column_id))
RETURNING *;

-- name: CardRowGet :one
-- CardRowGet reads one card with its parts (kept on the row by triggers, migration 00005).
SELECT * FROM cards WHERE id = @id AND project_id = @project_id;

-- name: ChecklistInsertMany :exec
INSERT INTO checklist_items (id, card_id, title, done, position)
SELECT unnest(@ids::uuid[]), @card_id, unnest(@titles::text[]), unnest(@dones::boolean[]), unnest(@positions::int[]);

-- name: CardGetForUpdate :one
SELECT * FROM cards WHERE id = @id AND project_id = @project_id FOR NO KEY UPDATE;

-- name: CardUpdateFields :exec
UPDATE cards
SET title = @title, description = @description, priority = @priority, start_date = @start_date,
    due_date = @due_date, assignee_id = @assignee_id, archived = @archived, scope_id = @scope_id,
    estimate_seconds = @estimate_seconds, updated_at = now()
WHERE id = @id;

-- name: CardColumnIDs :many
-- CardColumnIDs lists a column's cards in order, for rewriting positions after a move.
SELECT id FROM cards WHERE column_id = @column_id ORDER BY position, id;

-- name: CardSetPositions :exec
UPDATE cards SET position = v.position, column_id = @column_id, updated_at = now()
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@positions::bigint[]) AS position) AS v
WHERE cards.id = v.id;

-- name: CardDelete :execrows
DELETE FROM cards WHERE id = @id AND project_id = @project_id;

-- name: CardExistsInWorkspace :one
SELECT c.project_id FROM cards c JOIN projects p ON p.id = c.project_id
WHERE c.id = @id AND p.workspace_id = @workspace_id;


-- name: CardsAssignedInWorkspaces :many
-- CardsAssignedInWorkspaces lists the cards of these workspaces' projects assigned to a user, in id
-- order (the order their locks are taken in): the assignments a member who leaves them loses.
SELECT c.id, c.project_id, p.workspace_id
FROM projects p
JOIN cards c ON c.project_id = p.id
WHERE p.workspace_id = ANY(@workspace_ids::uuid[]) AND c.assignee_id = @user_id
ORDER BY c.id;

-- name: CardsAssignedPage :many
-- CardsAssignedPage is one page of the active (not archived) cards of a workspace's projects (those not
-- archived either) assigned to a user, oldest first: those after the keyset (created_at, id) of the
-- previous page's last.
SELECT c.* FROM cards c
WHERE c.project_id IN (SELECT p.id FROM projects p WHERE p.workspace_id = @workspace_id AND p.archived_at IS NULL)
  AND c.assignee_id = @user_id::uuid AND NOT c.archived
  AND (c.created_at, c.id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY c.created_at, c.id
LIMIT @lim;
