-- name: CardBumpUpdatedAt :exec
-- CardBumpUpdatedAt marks a card changed after a change of its checklist, labels or custom values.
UPDATE cards SET updated_at = now() WHERE id = @id;

-- name: ChecklistCountByCard :one
SELECT count(*)::int FROM checklist_items WHERE card_id = @card_id;

-- name: ChecklistGet :one
SELECT * FROM checklist_items WHERE id = @id AND card_id = @card_id;

-- name: ChecklistUpdate :exec
UPDATE checklist_items SET title = @title, done = @done WHERE id = @id;

-- name: ChecklistIDsByCard :many
-- ChecklistIDsByCard lists a card's items in order, for rewriting positions after a reorder.
SELECT id FROM checklist_items WHERE card_id = @card_id ORDER BY position, id;

-- name: ChecklistSetPositions :exec
UPDATE checklist_items SET position = v.position
FROM (SELECT unnest(@ids::uuid[]) AS id, unnest(@positions::int[]) AS position) AS v
WHERE checklist_items.id = v.id AND checklist_items.card_id = @card_id;

-- name: ChecklistDelete :execrows
DELETE FROM checklist_items WHERE id = @id AND card_id = @card_id;

-- name: ChecklistRenumber :exec
-- ChecklistRenumber makes a card's item positions dense (0..n-1) again, keeping their order.
UPDATE checklist_items SET position = r.position
FROM (SELECT i.id, (row_number() OVER (ORDER BY i.position, i.id) - 1)::int AS position
      FROM checklist_items i WHERE i.card_id = @card_id) AS r
WHERE checklist_items.id = r.id AND checklist_items.position <> r.position;

-- name: ChecklistOpenCount :one
SELECT count(*)::int FROM checklist_items WHERE card_id = @card_id AND NOT done;
