-- Export reads a project piece by piece, each piece in one statement; import writes each table with
-- one multi-row statement fed by a JSON array of records (jsonb_to_recordset), so the number of round
-- trips never depends on the size of the project.

-- name: TransferLabelList :many
SELECT id, name, color FROM labels WHERE project_id = @project_id ORDER BY name, id;

-- name: TransferCustomFieldList :many
SELECT id, name, type, options FROM custom_fields WHERE project_id = @project_id ORDER BY created_at, id;

-- name: TransferCardList :many
-- TransferCardList lists every card (archived ones included) by column then rank; rank is the card's
-- 0-based place in its column.
SELECT c.id, c.column_id, c.scope_id, c.title, c.description, c.priority, c.start_date, c.due_date, c.archived,
       (rank() OVER (PARTITION BY c.column_id ORDER BY c.position, c.id) - 1)::int AS rank
FROM cards c
JOIN columns col ON col.id = c.column_id
WHERE c.project_id = @project_id
ORDER BY col.position, col.id, c.position, c.id;

-- name: TransferChecklistList :many
SELECT i.card_id, i.title, i.done, i.position
FROM checklist_items i JOIN cards c ON c.id = i.card_id
WHERE c.project_id = @project_id
ORDER BY i.card_id, i.position, i.id;

-- name: TransferCardLabelList :many
SELECT cl.card_id, l.name
FROM card_labels cl JOIN labels l ON l.id = cl.label_id
WHERE l.project_id = @project_id
ORDER BY cl.card_id, l.name, l.id;

-- name: TransferCustomValueList :many
SELECT v.card_id, f.name, v.value
FROM card_custom_values v JOIN custom_fields f ON f.id = v.field_id
WHERE f.project_id = @project_id
ORDER BY v.card_id, f.name;

-- name: TransferCommentList :many
SELECT cm.card_id, u.email AS author_email, cm.content, cm.created_at
FROM comments cm
JOIN cards c ON c.id = cm.card_id
JOIN users u ON u.id = cm.author_id
WHERE c.project_id = @project_id
ORDER BY cm.card_id, cm.created_at, cm.id;

-- name: TransferRelationList :many
SELECT card_id, target_card_id, type FROM card_relations WHERE project_id = @project_id ORDER BY created_at, id;

-- name: TransferColumnInsertMany :exec
INSERT INTO columns (id, project_id, name, position)
SELECT r.id, @project_id, r.name, r.position
FROM jsonb_to_recordset(@rows::jsonb) AS r(id uuid, name text, position int);

-- name: TransferLabelInsertMany :exec
INSERT INTO labels (id, project_id, name, color)
SELECT r.id, @project_id, r.name, r.color
FROM jsonb_to_recordset(@rows::jsonb) AS r(id uuid, name text, color text);

-- name: TransferCustomFieldInsertMany :exec
INSERT INTO custom_fields (id, project_id, name, type, options, created_at)
SELECT r.id, @project_id, r.name, r.type,
       ARRAY(SELECT jsonb_array_elements_text(coalesce(r.options, '[]'::jsonb))),
       -- distinct, increasing creation times keep the given order on export
       now() + r.ord * interval '1 microsecond'
FROM jsonb_to_recordset(@rows::jsonb) AS r(id uuid, name text, type text, options jsonb, ord int);

-- name: TransferScopeInsertMany :exec
INSERT INTO scopes (id, project_id, name, description, start_date, end_date, settings, active_view, created_at)
SELECT r.id, @project_id, r.name, r.description, r.start_date, r.end_date, coalesce(r.settings, '{}'::jsonb),
       coalesce(r.active_view, 'kanban'), now() + r.ord * interval '1 microsecond'
FROM jsonb_to_recordset(@rows::jsonb)
    AS r(id uuid, name text, description text, start_date timestamptz, end_date timestamptz, settings jsonb,
         active_view text, ord int);

-- name: TransferCardPositions :many
-- TransferCardPositions takes n values of the card position sequence, so imported cards keep the
-- invariant that a new card (which takes the next value) lands after every existing one.
SELECT nextval('card_position_seq')::bigint AS position FROM generate_series(1, @n::int);

-- name: TransferCardInsertMany :exec
INSERT INTO cards (id, project_id, column_id, scope_id, title, description, position, archived, priority,
                   start_date, due_date, comment_count, created_by)
SELECT r.id, @project_id, r.column_id, r.scope_id, r.title, r.description, r.position, r.archived, r.priority,
       r.start_date, r.due_date, r.comment_count, @created_by
FROM jsonb_to_recordset(@rows::jsonb)
    AS r(id uuid, column_id uuid, scope_id uuid, title text, description text, position bigint, archived boolean,
         priority text, start_date timestamptz, due_date timestamptz, comment_count int);

-- name: TransferChecklistInsertMany :exec
INSERT INTO checklist_items (id, card_id, title, done, position)
SELECT r.id, r.card_id, r.title, r.done, r.position
FROM jsonb_to_recordset(@rows::jsonb) AS r(id uuid, card_id uuid, title text, done boolean, position int);

-- name: TransferCardLabelInsertMany :exec
INSERT INTO card_labels (card_id, label_id)
SELECT r.card_id, r.label_id
FROM jsonb_to_recordset(@rows::jsonb) AS r(card_id uuid, label_id uuid);

-- name: TransferCustomValueInsertMany :exec
INSERT INTO card_custom_values (card_id, field_id, value)
SELECT r.card_id, r.field_id, r.value
FROM jsonb_to_recordset(@rows::jsonb) AS r(card_id uuid, field_id uuid, value jsonb);

-- name: TransferCommentInsertMany :exec
INSERT INTO comments (id, card_id, author_id, content, created_at)
SELECT r.id, r.card_id, @author_id, r.content, coalesce(r.created_at, now())
FROM jsonb_to_recordset(@rows::jsonb) AS r(id uuid, card_id uuid, content text, created_at timestamptz);

-- name: TransferRelationInsertMany :exec
INSERT INTO card_relations (id, project_id, card_id, target_card_id, type, created_by)
SELECT r.id, @project_id, r.card_id, r.target_card_id, r.type, @created_by
FROM jsonb_to_recordset(@rows::jsonb) AS r(id uuid, card_id uuid, target_card_id uuid, type text);
