-- name: ImportInsert :one
INSERT INTO imports (id, workspace_id, source, file_name, file_sha256, file_size, file, created_by)
VALUES (@id, @workspace_id, @source, @file_name, @file_sha256, @file_size, @file, @created_by)
RETURNING id, workspace_id, source, file_name, file_sha256, file_size, status, items_read, items_created,
          items_skipped, report, error, created_by, created_at, updated_at, finished_at;

-- name: ImportSameFile :one
-- ImportSameFile is the earlier import of the same file into the workspace that did not fail.
SELECT id, created_at FROM imports
WHERE workspace_id = @workspace_id AND file_sha256 = @file_sha256 AND status <> 'failed'
LIMIT 1;

-- name: ImportGet :one
SELECT id, workspace_id, source, file_name, file_sha256, file_size, status, items_read, items_created,
       items_skipped, report, error, created_by, created_at, updated_at, finished_at
FROM imports WHERE id = @id AND workspace_id = @workspace_id;

-- name: ImportListByWorkspace :many
-- ImportListByWorkspace is one page of a workspace's imports, newest first (docs/pagination.md).
SELECT id, workspace_id, source, file_name, file_sha256, file_size, status, items_read, items_created,
       items_skipped, report, error, created_by, created_at, updated_at, finished_at
FROM imports
WHERE workspace_id = @workspace_id AND (created_at, id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: ImportStart :one
-- ImportStart moves a queued (or, retried, running) import to running and answers its file; no row when
-- the import is gone or finished.
UPDATE imports SET status = 'running', updated_at = now()
WHERE id = @id AND status IN ('queued', 'running')
RETURNING workspace_id, source, file, created_by, report;

-- name: ImportProgress :exec
UPDATE imports SET items_read = @items_read, items_created = @items_created, items_skipped = @items_skipped,
                   report = @report, updated_at = now()
WHERE id = @id;

-- name: ImportFinish :one
-- ImportFinish ends a running import, completed or failed, and drops its file.
UPDATE imports SET status = @status, items_read = @items_read, items_created = @items_created,
                   items_skipped = @items_skipped, report = @report, error = sqlc.narg('error'), file = NULL,
                   finished_at = now(), updated_at = now()
WHERE id = @id AND status = 'running'
RETURNING id;

-- name: TransferAssignByEmail :many
-- TransferAssignByEmail assigns imported cards to the workspace members whose e-mail (any case) the
-- source named, and answers who was assigned; cards whose e-mail names no member stay unassigned.
UPDATE cards c SET assignee_id = u.id
FROM jsonb_to_recordset(@rows::jsonb) AS r(card_id uuid, email text)
JOIN users u ON lower(u.email) = lower(r.email)
JOIN workspace_members wm ON wm.user_id = u.id AND wm.workspace_id = @workspace_id
WHERE c.id = r.card_id
RETURNING c.id AS card_id, u.id AS user_id;

-- name: ImportFail :one
-- ImportFail ends a running import failed (its job gave up), keeping the report of what it created.
UPDATE imports SET status = 'failed', error = @error, file = NULL, finished_at = now(), updated_at = now()
WHERE id = @id AND status IN ('queued', 'running')
RETURNING items_read, items_created, items_skipped;
