-- name: EmailOutboxInsert :one
-- EmailOutboxInsert records an e-mail once per (kind, ref): a retried job finds the existing row.
INSERT INTO email_outbox (id, to_address, subject, body, kind, ref_id, transport)
VALUES (@id, @to_address, @subject, @body, @kind, @ref_id, @transport)
ON CONFLICT (kind, ref_id) DO UPDATE SET transport = EXCLUDED.transport
RETURNING *;

-- name: EmailOutboxMarkSent :exec
UPDATE email_outbox SET sent_at = now() WHERE id = @id;

-- name: EmailOutboxList :many
SELECT * FROM email_outbox ORDER BY created_at, id;
