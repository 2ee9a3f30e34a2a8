-- name: CardInsert :one
-- CardInsert creates a card at the end of its column; rank is its 0-based place there.
INSERT INTO cards (id, project_id, column_id, scope_id, title, description, priority, start_date, due_date, assignee_id, created_by)
VALUES (@id, @project_id, @column_id, @scope_id, @title, @description, @priority, @start_date, @due_date, @assignee_id, @created_by)
RETURNING id;

-- name: ChecklistInsertMany :exec
INSERT INTO checklist_items (id, card_id, title, done, position)
SELECT unnest(@ids::uuid[]), @card_id, unnest(@titles::text[]), unnest(@dones::boolean[]), unnest(@positions::int[]);

-- name: CardDetailGet :one
SELECT sqlc.embed(d),
       (SELECT count(*) FROM cards c2 WHERE c2.column_id = d.column_id
          AND (c2.position, c2.id) < (d.position, d.id))::int AS rank
FROM card_details d
WHERE d.id = @id AND d.project_id = @project_id;

-- name: CardGetForUpdate :one
SELECT * FROM cards WHERE id = @id AND project_id = @project_id FOR NO KEY UPDATE;

-- name: CardGet :one
SELECT * FROM cards WHERE id = @id AND project_id = @project_id;

-- name: CardUpdateFields :exec
UPDATE cards
SET title = @title, description = @description, priority = @priority, start_date = @start_date,
    due_date = @due_date, assignee_id = @assignee_id, archived = @archived, scope_id = @scope_id,
    updated_at = now()
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

-- name: CardListFast :many
-- CardListFast is the card list in one set-based query: checklist, labels and custom values are
-- aggregated per card once for the whole project (not per card), as JSON text ready to send.
WITH pc AS (SELECT * FROM cards WHERE cards.project_id = @project_id),
cl AS (SELECT i.card_id,
              json_agg(json_build_object('_id', i.id, 'id', i.id, 'title', i.title, 'done', i.done, 'order', i.position)
                       ORDER BY i.position, i.id) AS items,
              (100 * count(*) FILTER (WHERE i.done) / count(*))::int AS progress
       FROM checklist_items i JOIN pc ON pc.id = i.card_id GROUP BY i.card_id),
lb AS (SELECT x.card_id, json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY l.name, l.id) AS labels
       FROM card_labels x JOIN pc ON pc.id = x.card_id JOIN labels l ON l.id = x.label_id GROUP BY x.card_id),
cf AS (SELECT v.card_id, json_object_agg(v.field_id, v.value) AS fields
       FROM card_custom_values v JOIN pc ON pc.id = v.card_id GROUP BY v.card_id)
SELECT pc.id, pc.project_id, pc.column_id, pc.scope_id, pc.title, pc.description, pc.archived, pc.priority,
       pc.start_date, pc.due_date, pc.assignee_id, pc.comment_count, pc.attachment_count, pc.created_by,
       pc.created_at, pc.updated_at,
       coalesce(cl.items::text, '[]')::text AS checklist, coalesce(cl.progress, 0)::int AS checklist_progress,
       coalesce(lb.labels::text, '[]')::text AS labels, coalesce(cf.fields::text, '{}')::text AS custom_fields,
       (rank() OVER (PARTITION BY pc.column_id ORDER BY pc.position, pc.id) - 1)::int AS rank
FROM pc
JOIN columns col ON col.id = pc.column_id
LEFT JOIN cl ON cl.card_id = pc.id
LEFT JOIN lb ON lb.card_id = pc.id
LEFT JOIN cf ON cf.card_id = pc.id
ORDER BY col.position, pc.position, pc.id;
