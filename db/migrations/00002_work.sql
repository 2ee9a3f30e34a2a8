-- +goose Up
CREATE TABLE projects (
    id           uuid PRIMARY KEY,
    workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         text NOT NULL,
    description  text NOT NULL DEFAULT '',
    deadline     timestamptz,
    template_id  text,
    created_by   uuid NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX projects_workspace_idx ON projects (workspace_id, created_at);

-- project_members are workspace members who follow a project: they receive its activity notifications.
CREATE TABLE project_members (
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user_idx ON project_members (user_id);

CREATE TABLE scopes (
    id          uuid PRIMARY KEY,
    project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    start_date  timestamptz,
    end_date    timestamptz,
    settings    jsonb NOT NULL DEFAULT '{}',
    active_view text NOT NULL DEFAULT 'kanban' CHECK (active_view IN ('kanban', 'list', 'calendar', 'roadmap', 'stats')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, project_id)
);
CREATE INDEX scopes_project_idx ON scopes (project_id, created_at);

-- columns.position is dense (0..n-1) per project; it is rewritten under a project row lock.
CREATE TABLE columns (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       text NOT NULL,
    position   integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, project_id)
);
CREATE INDEX columns_project_idx ON columns (project_id, position);

-- cards.position orders cards in a column. New cards take the next value of a sequence, so concurrent
-- creates never contend for a lock and never collide; moves rewrite a column's positions under a lock
-- on the column row. A card's `order` is its rank in the column.
CREATE SEQUENCE card_position_seq;
CREATE TABLE cards (
    id               uuid PRIMARY KEY,
    project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    column_id        uuid NOT NULL,
    scope_id         uuid,
    title            text NOT NULL,
    description      text NOT NULL DEFAULT '',
    position         bigint NOT NULL DEFAULT nextval('card_position_seq'),
    archived         boolean NOT NULL DEFAULT false,
    priority         text NOT NULL DEFAULT 'medium' CHECK (priority IN ('low', 'medium', 'high')),
    start_date       timestamptz,
    due_date         timestamptz,
    assignee_id      uuid REFERENCES users (id) ON DELETE SET NULL,
    comment_count    integer NOT NULL DEFAULT 0,
    attachment_count integer NOT NULL DEFAULT 0,
    created_by       uuid NOT NULL REFERENCES users (id),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    -- A card's column and scope always belong to the card's own project.
    FOREIGN KEY (column_id, project_id) REFERENCES columns (id, project_id) ON DELETE CASCADE,
    FOREIGN KEY (scope_id, project_id) REFERENCES scopes (id, project_id) ON DELETE CASCADE
);
CREATE INDEX cards_project_idx ON cards (project_id);
CREATE INDEX cards_column_idx ON cards (column_id, position);
CREATE INDEX cards_scope_idx ON cards (scope_id) WHERE scope_id IS NOT NULL;
CREATE INDEX cards_due_idx ON cards (due_date) WHERE due_date IS NOT NULL AND NOT archived;

CREATE TABLE checklist_items (
    id         uuid PRIMARY KEY,
    card_id    uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    title      text NOT NULL,
    done       boolean NOT NULL DEFAULT false,
    position   integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checklist_items_card_idx ON checklist_items (card_id, position);

CREATE TABLE labels (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       text NOT NULL,
    color      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, name)
);

CREATE TABLE card_labels (
    card_id    uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    label_id   uuid NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (card_id, label_id)
);
CREATE INDEX card_labels_label_idx ON card_labels (label_id);

CREATE TABLE custom_fields (
    id         uuid PRIMARY KEY,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       text NOT NULL,
    type       text NOT NULL CHECK (type IN ('text', 'number', 'select', 'multi-select', 'date', 'boolean')),
    options    text[] NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project_id, name)
);

CREATE TABLE card_custom_values (
    card_id  uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    field_id uuid NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
    value    jsonb NOT NULL,
    PRIMARY KEY (card_id, field_id)
);
CREATE INDEX card_custom_values_field_idx ON card_custom_values (field_id);

CREATE TABLE card_relations (
    id             uuid PRIMARY KEY,
    project_id     uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    card_id        uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    target_card_id uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    type           text NOT NULL CHECK (type IN ('blocks', 'blocked_by', 'related_to', 'duplicates', 'parent_of')),
    created_by     uuid NOT NULL REFERENCES users (id),
    created_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (card_id <> target_card_id),
    UNIQUE (card_id, target_card_id, type)
);
CREATE INDEX card_relations_target_idx ON card_relations (target_card_id);

CREATE TABLE comments (
    id         uuid PRIMARY KEY,
    card_id    uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    author_id  uuid NOT NULL REFERENCES users (id),
    content    text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX comments_card_idx ON comments (card_id, created_at);

CREATE TABLE attachments (
    id            uuid PRIMARY KEY,
    card_id       uuid NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    uploaded_by   uuid NOT NULL REFERENCES users (id),
    original_name text NOT NULL,
    mime_type     text NOT NULL,
    size          bigint NOT NULL,
    storage_key   text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_card_idx ON attachments (card_id, created_at);

-- activities record every change of a card or project membership. card_id has no foreign key: the
-- activity of a deleted card outlives it.
CREATE TABLE activities (
    id          uuid PRIMARY KEY,
    project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    card_id     uuid,
    actor_id    uuid NOT NULL REFERENCES users (id),
    type        text NOT NULL,
    meta        jsonb NOT NULL DEFAULT '{}',
    -- recipients are the users to notify besides project members (the card's assignee, an added or
    -- removed member), decided when the change is made.
    recipients  uuid[] NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX activities_project_idx ON activities (project_id, created_at);
CREATE INDEX activities_card_idx ON activities (card_id, created_at) WHERE card_id IS NOT NULL;

CREATE TABLE notifications (
    id          uuid PRIMARY KEY,
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    activity_id uuid NOT NULL REFERENCES activities (id) ON DELETE CASCADE,
    read_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (activity_id, user_id)
);
CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC);
CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE read_at IS NULL;

-- card_details computes a card's checklist, labels and custom field values from their tables. Since
-- migration 00005 reads use the copies triggers keep on the card row; this view is their reference.
CREATE VIEW card_details AS
SELECT c.*,
    coalesce((SELECT jsonb_agg(jsonb_build_object('_id', i.id, 'id', i.id, 'title', i.title, 'done', i.done, 'order', i.position)
                               ORDER BY i.position, i.id)
              FROM checklist_items i WHERE i.card_id = c.id), '[]'::jsonb) AS checklist,
    coalesce((SELECT (100 * count(*) FILTER (WHERE i.done) / nullif(count(*), 0))::int
              FROM checklist_items i WHERE i.card_id = c.id), 0) AS checklist_progress,
    coalesce((SELECT jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY l.name, l.id)
              FROM card_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.card_id = c.id), '[]'::jsonb) AS labels,
    coalesce((SELECT jsonb_object_agg(v.field_id, v.value) FROM card_custom_values v WHERE v.card_id = c.id), '{}'::jsonb)
        AS custom_fields
FROM cards c;

-- +goose Down
DROP VIEW card_details;
DROP TABLE notifications, activities, attachments, comments, card_relations, card_custom_values,
    custom_fields, card_labels, labels, checklist_items, cards, columns, scopes, project_members, projects;
DROP SEQUENCE card_position_seq;
