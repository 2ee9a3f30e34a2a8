-- Documents never read search_vector back: it is for matching only. Every query that answers a whole
-- document lists the same columns, so the store converts each row into its one Document type.

-- name: DocumentInsert :one
INSERT INTO documents (id, workspace_id, parent_id, title, content, content_format, content_text, doc_type,
                       context_type, context_id, tags, metadata, author_id)
VALUES (@id, @workspace_id, sqlc.narg('parent_id'), @title, @content, @content_format, @content_text, @doc_type,
        @context_type, @context_id, @tags, @metadata, @author_id)
RETURNING id, workspace_id, parent_id, title, content, content_format, doc_type, context_type, context_id, tags,
          metadata, status, author_id, created_at, updated_at;

-- name: DocumentGet :one
SELECT id, workspace_id, parent_id, title, content, content_format, doc_type, context_type, context_id, tags,
       metadata, status, author_id, created_at, updated_at
FROM documents WHERE id = @id AND workspace_id = @workspace_id;

-- name: DocumentGetForUpdate :one
SELECT id, workspace_id, parent_id, title, content, content_format, doc_type, context_type, context_id, tags,
       metadata, status, author_id, created_at, updated_at
FROM documents WHERE id = @id AND workspace_id = @workspace_id FOR NO KEY UPDATE;

-- name: DocumentExists :one
SELECT EXISTS (SELECT 1 FROM documents WHERE id = @id AND workspace_id = @workspace_id);

-- name: DocumentList :many
-- DocumentList is one page of a workspace's documents without their content, newest first, filtered by
-- the arguments that are not null: those before the keyset (created_at, id) of the previous page's last
-- (docs/pagination.md).
SELECT id, workspace_id, parent_id, title, content_format, doc_type, context_type, context_id, tags, metadata,
       status, author_id, created_at, updated_at
FROM documents
WHERE workspace_id = @workspace_id
  AND (sqlc.narg('doc_type')::text IS NULL OR doc_type = sqlc.narg('doc_type'))
  AND (sqlc.narg('context_type')::text IS NULL OR context_type = sqlc.narg('context_type'))
  AND (sqlc.narg('context_id')::uuid IS NULL OR context_id = sqlc.narg('context_id'))
  AND (sqlc.narg('parent_id')::uuid IS NULL OR parent_id = sqlc.narg('parent_id'))
  AND (NOT @roots_only::boolean OR parent_id IS NULL)
  AND (created_at, id) < (@before_at::timestamptz, @before_id::uuid)
ORDER BY created_at DESC, id DESC
LIMIT @lim;

-- name: DocumentTree :many
-- DocumentTree is every document of a workspace without its content, ordered by title; the store
-- nests them by parent.
SELECT id, workspace_id, parent_id, title, content_format, doc_type, context_type, context_id, tags, metadata,
       status, author_id, created_at, updated_at
FROM documents
WHERE workspace_id = @workspace_id
ORDER BY lower(title), id;

-- name: DocumentUpdate :one
UPDATE documents
SET parent_id = sqlc.narg('parent_id'), title = @title, content = @content, content_format = @content_format,
    content_text = @content_text, doc_type = @doc_type, tags = @tags, metadata = @metadata, status = @status,
    updated_at = now()
WHERE id = @id
RETURNING id, workspace_id, parent_id, title, content, content_format, doc_type, context_type, context_id, tags,
          metadata, status, author_id, created_at, updated_at;

-- name: DocumentIsAncestor :one
-- DocumentIsAncestor reports whether @ancestor_id is @id or one of its ancestors. UNION (not UNION ALL)
-- ends the walk even on a cycle.
WITH RECURSIVE chain (id, parent_id) AS (
    SELECT d.id, d.parent_id FROM documents d WHERE d.id = @id
    UNION
    SELECT d.id, d.parent_id FROM documents d JOIN chain ch ON d.id = ch.parent_id
)
SELECT EXISTS (SELECT 1 FROM chain WHERE chain.id = @ancestor_id::uuid);

-- name: DocumentTreeLock :exec
-- DocumentTreeLock serialises changes of parents within a workspace for the rest of the transaction, so
-- two concurrent moves cannot together make a cycle that neither makes alone.
SELECT pg_advisory_xact_lock(hashtextextended('documents-tree:' || @workspace_id::text, 0));

-- name: DocumentReparentChildren :exec
UPDATE documents SET parent_id = sqlc.narg('new_parent_id'), updated_at = now() WHERE parent_id = @id::uuid;

-- name: DocumentDelete :execrows
DELETE FROM documents WHERE id = @id AND workspace_id = @workspace_id;

-- name: DocumentSetStatus :one
-- DocumentSetStatus is the guarded move of the review workflow: no row when the document is not in
-- @from_status (or not in the workspace).
UPDATE documents SET status = @to_status, updated_at = now()
WHERE id = @id AND workspace_id = @workspace_id AND status = @from_status
RETURNING id, workspace_id, parent_id, title, content, content_format, doc_type, context_type, context_id, tags,
          metadata, status, author_id, created_at, updated_at;

-- name: DocumentContextExists :one
-- DocumentContextExists reports whether a document's context lies in the workspace: the workspace's
-- organization, the workspace itself, one of its projects or a scope of one of them.
SELECT CASE @context_type::text
    WHEN 'organization' THEN EXISTS (SELECT 1 FROM workspaces w WHERE w.id = @workspace_id AND w.organization_id = @context_id::uuid)
    WHEN 'workspace' THEN @workspace_id::uuid = @context_id::uuid
    WHEN 'project' THEN EXISTS (SELECT 1 FROM projects p WHERE p.id = @context_id::uuid AND p.workspace_id = @workspace_id)
    WHEN 'scope' THEN EXISTS (SELECT 1 FROM scopes s JOIN projects p ON p.id = s.project_id
                              WHERE s.id = @context_id::uuid AND p.workspace_id = @workspace_id)
    ELSE false END::boolean;

-- name: DocumentReviewerIDs :many
-- DocumentReviewerIDs are the users who may review the workspace's documents: its members with the
-- pilotage reviewer or owner role, and the organization's owners and admins (who act as pilotage owner).
SELECT wm.user_id FROM workspace_members wm
WHERE wm.workspace_id = @workspace_id AND wm.pilotage_role IN ('reviewer', 'owner')
UNION
SELECT om.user_id FROM organization_members om JOIN workspaces w ON w.organization_id = om.organization_id
WHERE w.id = @workspace_id AND om.role IN ('owner', 'admin');

-- name: DocumentHasOtherReviewer :one
-- DocumentHasOtherReviewer says whether someone other than @user_id (and no agent's service user) may
-- review the workspace's documents, by DocumentReviewerIDs' rule.
SELECT EXISTS (
    SELECT 1 FROM workspace_members wm JOIN users u ON u.id = wm.user_id
    WHERE wm.workspace_id = @workspace_id AND wm.pilotage_role IN ('reviewer', 'owner')
      AND wm.user_id <> @user_id AND NOT u.is_service
    UNION ALL
    SELECT 1 FROM organization_members om JOIN workspaces w ON w.organization_id = om.organization_id
    JOIN users u ON u.id = om.user_id
    WHERE w.id = @workspace_id AND om.role IN ('owner', 'admin') AND om.user_id <> @user_id AND NOT u.is_service
)::boolean;

-- name: DocumentReviewInsert :one
INSERT INTO document_reviews (id, document_id, reviewer_id, status, notes)
VALUES (@id, @document_id, @reviewer_id, @status, @notes)
RETURNING *;

-- name: DocumentReviewList :many
SELECT r.id, r.document_id, r.reviewer_id, u.name AS reviewer_name, r.status, r.notes, r.created_at
FROM document_reviews r JOIN users u ON u.id = r.reviewer_id
WHERE r.document_id = @document_id
ORDER BY r.created_at, r.id;

-- name: CardDocumentInsert :execrows
-- CardDocumentInsert links a card of the project to a document of the workspace; no row when either is
-- missing or the link exists.
INSERT INTO card_documents (card_id, document_id, linked_by)
SELECT c.id, d.id, @linked_by
FROM cards c, documents d
WHERE c.id = @card_id AND c.project_id = @project_id AND d.id = @document_id AND d.workspace_id = @workspace_id
ON CONFLICT (card_id, document_id) DO NOTHING;

-- name: CardDocumentDelete :execrows
DELETE FROM card_documents cd
USING cards c
WHERE cd.card_id = c.id AND c.id = @card_id AND c.project_id = @project_id AND cd.document_id = @document_id;

-- name: CardDocumentList :many
SELECT d.id, d.workspace_id, d.parent_id, d.title, d.content_format, d.doc_type, d.context_type, d.context_id, d.tags,
       d.metadata, d.status, d.author_id, d.created_at, d.updated_at
FROM card_documents cd JOIN documents d ON d.id = cd.document_id
WHERE cd.card_id = @card_id
ORDER BY cd.created_at, d.id;

-- name: TransferCardDocumentList :many
-- TransferCardDocumentList is every card-document link of a project, for its export.
SELECT cd.card_id, d.id AS document_id, d.title
FROM card_documents cd JOIN cards c ON c.id = cd.card_id JOIN documents d ON d.id = cd.document_id
WHERE c.project_id = @project_id
ORDER BY cd.created_at, d.id;

-- name: SearchWorkspace :many
-- SearchWorkspace ranks the workspace's documents (title and content) and the cards of its projects
-- (title and description, and their comments) against a websearch query, best first, with a highlighted
-- snippet computed for the returned rows only, from their first 20,000 characters. Each side ranks at
-- most @candidates matches, the first its GIN index yields: ranking reads every candidate's row, so a
-- word found in tens of thousands of rows would otherwise cost a read of each (docs/documents.md). Each
-- side is cut to @lim before they merge. A card found both by its own text and by a comment is one
-- result, its own text's (matched_in 'content'); found by comments only, it is matched_in 'comment',
-- its snippet the best matching comment's. The snippet is raw text: matches are wrapped in the
-- private-use characters U+E000 and U+E001 (removed from the text first, so only ts_headline's marks
-- remain), which document.Search turns into <mark></mark> after HTML-escaping the rest.
WITH q AS (SELECT websearch_to_tsquery('simple', @query::text) AS tsq),
hits AS (
    (SELECT 'document'::text AS kind, d.id, NULL::uuid AS project_id, ts_rank(d.search_vector, q.tsq) AS rank, d.updated_at,
            'content'::text AS matched_in, NULL::uuid AS comment_id
     FROM q, LATERAL (SELECT dd.id, dd.search_vector, dd.updated_at FROM documents dd
                      WHERE dd.workspace_id = @workspace_id AND dd.search_vector @@ q.tsq LIMIT @candidates) d
     ORDER BY 4 DESC, d.updated_at DESC LIMIT @lim)
    UNION ALL
    (SELECT 'card'::text, c.id, c.project_id, ts_rank(c.search_vector, q.tsq), c.updated_at, 'content'::text, NULL::uuid
     FROM q, LATERAL (SELECT cc.id, cc.project_id, cc.search_vector, cc.updated_at FROM cards cc JOIN projects p ON p.id = cc.project_id
                      WHERE p.workspace_id = @workspace_id AND cc.search_vector @@ q.tsq LIMIT @candidates) c
     ORDER BY 4 DESC, c.updated_at DESC LIMIT @lim)
    UNION ALL
    (SELECT 'card'::text, k.card_id, k.project_id, ts_rank(k.search_vector, q.tsq), k.updated_at, 'comment'::text, k.id
     FROM q, LATERAL (SELECT cm.id, cm.card_id, cc.project_id, cm.search_vector, cc.updated_at
                      FROM comments cm JOIN cards cc ON cc.id = cm.card_id JOIN projects p ON p.id = cc.project_id
                      WHERE p.workspace_id = @workspace_id AND cm.search_vector @@ q.tsq LIMIT @candidates) k
     ORDER BY 4 DESC, k.updated_at DESC LIMIT @lim)
),
best AS (SELECT DISTINCT ON (h.kind, h.id) h.* FROM hits h
         ORDER BY h.kind, h.id, h.matched_in = 'content' DESC, h.rank DESC),
top AS (SELECT * FROM best ORDER BY rank DESC, updated_at DESC, id LIMIT @lim)
SELECT top.kind, top.id, top.project_id, coalesce(d.title, c.title)::text AS title, top.rank::float4 AS rank,
       ts_headline('simple',
           translate(left(CASE WHEN top.matched_in = 'comment' THEN cm.content WHEN top.kind = 'card' THEN c.description
                     WHEN d.content_format = 'tiptap_json' THEN d.content_text ELSE d.content END, 20000), E'\uE000\uE001', ''),
           q.tsq, 'MaxFragments=2, MaxWords=24, MinWords=8, StartSel=' || E'\uE000' || ', StopSel=' || E'\uE001')::text AS snippet,
       d.doc_type, d.status, top.updated_at, top.matched_in
FROM top CROSS JOIN q
LEFT JOIN documents d ON top.kind = 'document' AND d.id = top.id
LEFT JOIN cards c ON top.kind = 'card' AND c.id = top.id
LEFT JOIN comments cm ON cm.id = top.comment_id
ORDER BY top.rank DESC, top.updated_at DESC, top.id;
