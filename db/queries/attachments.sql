-- name: CardAttachmentCountAdd :one
-- CardAttachmentCountAdd moves a card's attachment count by delta, locking the card row; it returns what
-- the card_updated activity needs. No row means the card is not in the project.
UPDATE cards SET attachment_count = attachment_count + @delta::int, updated_at = now()
WHERE id = @id AND project_id = @project_id
RETURNING title, assignee_id;

-- name: AttachmentInsert :one
INSERT INTO attachments (id, card_id, uploaded_by, original_name, mime_type, size, storage_key)
VALUES (@id, @card_id, @uploaded_by, @original_name, @mime_type, @size, @storage_key)
RETURNING *;

-- name: AttachmentGet :one
-- AttachmentGet reads an attachment of a card of a project.
SELECT a.* FROM attachments a JOIN cards c ON c.id = a.card_id
WHERE a.id = @id AND a.card_id = @card_id AND c.project_id = @project_id;

-- name: AttachmentListByCard :many
SELECT * FROM attachments WHERE card_id = @card_id ORDER BY created_at, id;

-- name: AttachmentDelete :one
DELETE FROM attachments WHERE id = @id AND card_id = @card_id
RETURNING *;

-- name: OrphanedAttachmentFileList :many
-- OrphanedAttachmentFileList lists storage keys whose attachments are deleted, oldest first.
SELECT storage_key FROM attachment_files_orphaned ORDER BY deleted_at, storage_key LIMIT @lim;

-- name: OrphanedAttachmentFileForget :exec
DELETE FROM attachment_files_orphaned WHERE storage_key = ANY(@storage_keys::text[]);

-- name: AttachmentStorageKeys :many
-- AttachmentStorageKeys lists the key of every attachment file the database references, for a backup
-- (read in the backup's snapshot, so the files copied are exactly the ones its dump references).
SELECT DISTINCT storage_key FROM attachments ORDER BY storage_key;
