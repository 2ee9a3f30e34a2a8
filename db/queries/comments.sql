-- name: CardCommentCountAdd :one
-- CardCommentCountAdd moves a card's comment count by delta, locking the card row; it returns what the
-- comment's activity needs. No row means the card is not in the project.
UPDATE cards SET comment_count = comment_count + @delta::int
WHERE id = @id AND project_id = @project_id
RETURNING title, assignee_id;

-- name: CommentInsert :one
INSERT INTO comments (id, card_id, author_id, content, on_behalf_of)
VALUES (@id, @card_id, @author_id, @content, sqlc.narg('on_behalf_of'))
RETURNING *;

-- name: CommentGet :one
SELECT sqlc.embed(c), u.name AS author_name, u.is_service AS author_is_service,
       coalesce(ob.name, '')::text AS on_behalf_of_name
FROM comments c JOIN users u ON u.id = c.author_id
LEFT JOIN users ob ON ob.id = c.on_behalf_of
WHERE c.id = @id AND c.card_id = @card_id;

-- name: CommentListByCard :many
-- CommentListByCard lists a card's comments, oldest first; ids (UUIDv7) break ties in time.
SELECT sqlc.embed(c), u.name AS author_name, u.is_service AS author_is_service,
       coalesce(ob.name, '')::text AS on_behalf_of_name
FROM comments c JOIN users u ON u.id = c.author_id
LEFT JOIN users ob ON ob.id = c.on_behalf_of
WHERE c.card_id = @card_id
ORDER BY c.created_at, c.id;

-- name: CommentDelete :execrows
DELETE FROM comments WHERE id = @id AND card_id = @card_id;

-- name: CommentPageByCard :many
-- CommentPageByCard is one page of a card's comments, oldest first: those after the keyset (created_at,
-- id) of the previous page's last (docs/pagination.md).
SELECT sqlc.embed(c), u.name AS author_name, u.is_service AS author_is_service,
       coalesce(ob.name, '')::text AS on_behalf_of_name
FROM comments c JOIN users u ON u.id = c.author_id
LEFT JOIN users ob ON ob.id = c.on_behalf_of
WHERE c.card_id = @card_id AND (c.created_at, c.id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY c.created_at, c.id
LIMIT @lim;
