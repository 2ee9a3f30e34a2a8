-- +goose Up
-- Locks: adds a stored generated column to cards, which rewrites the table under an ACCESS EXCLUSIVE
-- lock (reads wait too), builds a GIN index on it, and validates a CHECK on activities (ACCESS EXCLUSIVE,
-- a full scan): on a large installation, cards and activities are unusable for minutes.
-- The knowledge base (docs/documents.md): documents with their review workflow, their reviews, their
-- links to cards, full-text search over documents and cards, workspace-level activities (a document's
-- review concerns a workspace, not a project) and personal organizations.

-- A personal organization is the one registration creates; it cannot be deleted while its user exists.
ALTER TABLE organizations ADD COLUMN is_personal boolean NOT NULL DEFAULT false;
UPDATE organizations o SET is_personal = true
WHERE EXISTS (SELECT 1 FROM workspaces w WHERE w.organization_id = o.id AND w.is_personal);

-- documents.search_vector is what GET WS/search matches: the title (weight A) and the text of the
-- content (weight B). For tiptap_json the text is content_text, the document's text nodes, which the
-- store extracts on write; for markdown it is the content itself. The 'simple' configuration does not
-- stem, so it treats every language alike.
CREATE TABLE documents (
    id             uuid PRIMARY KEY,
    workspace_id   uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    -- parent_id: the store re-parents a deleted document's children to its parent; SET NULL is only the
    -- safety net of a workspace-wide delete.
    parent_id      uuid REFERENCES documents (id) ON DELETE SET NULL,
    title          text NOT NULL,
    content        text NOT NULL DEFAULT '',
    content_format text NOT NULL DEFAULT 'markdown' CHECK (content_format IN ('markdown', 'tiptap_json')),
    content_text   text NOT NULL DEFAULT '',
    doc_type       text NOT NULL DEFAULT 'document'
        CHECK (doc_type IN ('document', 'spec', 'brief', 'adr', 'note', 'reference', 'template', 'spreadsheet')),
    context_type   text NOT NULL CHECK (context_type IN ('organization', 'workspace', 'project', 'scope')),
    context_id     uuid NOT NULL,
    tags           text[] NOT NULL DEFAULT '{}',
    metadata       jsonb NOT NULL DEFAULT '{}',
    status         text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'pending_review', 'approved', 'changes_requested')),
    author_id      uuid NOT NULL REFERENCES users (id),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    search_vector  tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', title), 'A') ||
        setweight(to_tsvector('simple', CASE WHEN content_format = 'tiptap_json' THEN content_text ELSE content END), 'B')
    ) STORED
);
CREATE INDEX documents_workspace_idx ON documents (workspace_id, created_at);
CREATE INDEX documents_parent_idx ON documents (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX documents_context_idx ON documents (workspace_id, context_type, context_id);
CREATE INDEX documents_search_idx ON documents USING gin (search_vector);

-- document_reviews keep every review: who, when, the verdict and the notes.
CREATE TABLE document_reviews (
    id          uuid PRIMARY KEY,
    document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    reviewer_id uuid NOT NULL REFERENCES users (id),
    status      text NOT NULL CHECK (status IN ('approved', 'changes_requested')),
    notes       text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_reviews_document_idx ON document_reviews (document_id, created_at);

-- card_documents link cards to documents of the same workspace; deleting either removes the link.
CREATE TABLE card_documents (
    card_id     uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    document_id uuid NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    linked_by   uuid NOT NULL REFERENCES users (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (card_id, document_id)
);
CREATE INDEX card_documents_document_idx ON card_documents (document_id);

-- cards.search_vector: a card's title (weight A) and description (weight B), for GET WS/search.
ALTER TABLE cards ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', title), 'A') || setweight(to_tsvector('simple', description), 'B')
) STORED;
CREATE INDEX cards_search_idx ON cards USING gin (search_vector);

-- Workspace-level activities (document_submitted, document_reviewed) have no project: they name their
-- workspace and notify their explicit recipients only. Project activities keep workspace_id null.
ALTER TABLE activities ALTER COLUMN project_id DROP NOT NULL;
ALTER TABLE activities ADD COLUMN workspace_id uuid REFERENCES workspaces (id) ON DELETE CASCADE;
-- document_id has no foreign key, as card_id: the activity of a deleted document outlives it.
ALTER TABLE activities ADD COLUMN document_id uuid;
ALTER TABLE activities ADD CONSTRAINT activities_owner_check CHECK (project_id IS NOT NULL OR workspace_id IS NOT NULL);
CREATE INDEX activities_workspace_idx ON activities (workspace_id, created_at) WHERE workspace_id IS NOT NULL;

-- record_activities (migration 00010) now takes the workspace and document of each activity; project,
-- workspace, card, document and actor ids are text, the empty string standing for none.
DROP FUNCTION IF EXISTS record_activities(uuid[], uuid[], text[], text[], text[], jsonb[], jsonb[], boolean[], uuid[], text[]);

-- +goose StatementBegin
CREATE FUNCTION record_activities(
    ids uuid[], project_ids text[], workspace_ids text[], card_ids text[], document_ids text[], actor_ids text[],
    types text[], metas jsonb[], recipients jsonb[], notify_members boolean[], trigger_projects uuid[], triggers text[]
) RETURNS SETOF text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    INSERT INTO activities (id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients, notify_members)
    SELECT a.id, nullif(a.project_id, '')::uuid, nullif(a.workspace_id, '')::uuid, nullif(a.card_id, '')::uuid,
           nullif(a.document_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members
    FROM unnest(ids, project_ids, workspace_ids, card_ids, document_ids, actor_ids, types, metas, recipients, notify_members)
         AS a(id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients, notify_members);

    RETURN QUERY
    SELECT DISTINCT t.project_id || '/' || t.trigger
    FROM unnest(trigger_projects, triggers) AS t(project_id, trigger)
    WHERE EXISTS (SELECT 1 FROM automation_rules r
                  WHERE r.project_id = t.project_id AND r.trigger = t.trigger AND r.enabled);
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION record_activities(uuid[], text[], text[], text[], text[], text[], text[], jsonb[], jsonb[], boolean[], uuid[], text[]);
DELETE FROM activities WHERE project_id IS NULL;
DROP INDEX activities_workspace_idx;
ALTER TABLE activities DROP CONSTRAINT activities_owner_check, DROP COLUMN document_id, DROP COLUMN workspace_id;
ALTER TABLE activities ALTER COLUMN project_id SET NOT NULL;
DROP INDEX cards_search_idx;
ALTER TABLE cards DROP COLUMN search_vector;
DROP TABLE card_documents, document_reviews, documents;
ALTER TABLE organizations DROP COLUMN is_personal;
-- +goose StatementBegin
CREATE FUNCTION record_activities(
    ids uuid[], project_ids uuid[], card_ids text[], actor_ids text[], types text[], metas jsonb[],
    recipients jsonb[], notify_members boolean[], trigger_projects uuid[], triggers text[]
) RETURNS SETOF text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    INSERT INTO activities (id, project_id, card_id, actor_id, type, meta, recipients, notify_members)
    SELECT a.id, a.project_id, nullif(a.card_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members
    FROM unnest(ids, project_ids, card_ids, actor_ids, types, metas, recipients, notify_members)
         AS a(id, project_id, card_id, actor_id, type, meta, recipients, notify_members);

    RETURN QUERY
    SELECT DISTINCT t.project_id || '/' || t.trigger
    FROM unnest(trigger_projects, triggers) AS t(project_id, trigger)
    WHERE EXISTS (SELECT 1 FROM automation_rules r
                  WHERE r.project_id = t.project_id AND r.trigger = t.trigger AND r.enabled);
END
$$;
-- +goose StatementEnd
