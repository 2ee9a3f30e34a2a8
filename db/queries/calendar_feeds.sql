-- name: CalendarFeedInsert :one
-- CalendarFeedInsert stores a feed unless its owner already has @max_feeds of them (no row then); the
-- caller holds the owner's advisory lock, so two creations cannot both pass the count.
INSERT INTO calendar_feeds (id, user_id, name, kind, project_id, prefix, secret_hash)
SELECT @id, @user_id, @name, @kind, sqlc.narg('project_id'), @prefix, @secret_hash
WHERE (SELECT count(*) FROM calendar_feeds f WHERE f.user_id = @user_id) < @max_feeds::int
RETURNING *;

-- name: CalendarFeedLockOwner :exec
-- CalendarFeedLockOwner serialises the creations of one person's feeds until the transaction ends.
SELECT pg_advisory_xact_lock(hashtextextended('calendar_feeds:' || @user_id::text, 0));

-- name: CalendarFeedListByUser :many
-- CalendarFeedListByUser is one page of a person's feeds, newest first (ties by id), with the names of
-- a project feed's project, workspace and organization.
SELECT sqlc.embed(f), p.name AS project_name, w.slug AS workspace_slug, w.name AS workspace_name,
       o.slug AS organization_slug
FROM calendar_feeds f
LEFT JOIN projects p ON p.id = f.project_id
LEFT JOIN workspaces w ON w.id = p.workspace_id
LEFT JOIN organizations o ON o.id = w.organization_id
WHERE f.user_id = @user_id
  AND (f.created_at < @after_at::timestamptz OR (f.created_at = @after_at::timestamptz AND f.id > @after_id::uuid))
ORDER BY f.created_at DESC, f.id
LIMIT @lim;

-- name: CalendarFeedGetByHash :one
-- CalendarFeedGetByHash finds a feed by the hash of its token (an index lookup on the hash: no
-- comparison of secrets whose time could tell a near miss).
SELECT * FROM calendar_feeds WHERE secret_hash = @secret_hash;

-- name: CalendarFeedDelete :one
-- CalendarFeedDelete deletes one of a person's feeds and answers it.
DELETE FROM calendar_feeds WHERE id = @id AND user_id = @user_id RETURNING *;

-- name: CalendarFeedFetched :one
-- CalendarFeedFetched records a fetch: the answer's hash, and when it changed if it did. It writes only
-- when the answer changed or the last fetch recorded is over a minute old, so a client polling often does
-- not write on every poll; no row then.
UPDATE calendar_feeds
SET last_fetched_at = now(),
    content_changed_at = CASE WHEN content_hash IS DISTINCT FROM @content_hash::bytea THEN now()
                              ELSE content_changed_at END,
    content_hash = @content_hash::bytea
WHERE id = @id
  AND (content_hash IS DISTINCT FROM @content_hash::bytea OR last_fetched_at IS NULL
       OR last_fetched_at < now() - interval '1 minute')
RETURNING content_changed_at;

-- name: CalendarCardsAssigned :many
-- CalendarCardsAssigned is a personal feed's cards: the active cards assigned to the user that have a
-- date, in the projects not archived of every workspace the user may still open (a member of it, or an
-- owner or admin of its organization), by date. At most @lim.
SELECT c.id, c.title, c.description, c.start_date, c.due_date, c.created_at, c.updated_at, c.project_id,
       p.name AS project_name, w.slug AS workspace_slug, o.slug AS organization_slug
FROM cards c
JOIN projects p ON p.id = c.project_id AND p.archived_at IS NULL
JOIN workspaces w ON w.id = p.workspace_id
JOIN organizations o ON o.id = w.organization_id
JOIN organization_members om ON om.organization_id = o.id AND om.user_id = @user_id::uuid
WHERE c.assignee_id = @user_id::uuid AND NOT c.archived AND (c.due_date IS NOT NULL OR c.start_date IS NOT NULL)
  AND (om.role IN ('owner', 'admin')
       OR EXISTS (SELECT 1 FROM workspace_members wm WHERE wm.workspace_id = w.id AND wm.user_id = @user_id::uuid))
ORDER BY coalesce(c.due_date, c.start_date), c.id
LIMIT @lim;

-- name: CalendarCardsOfProject :many
-- CalendarCardsOfProject is a project feed's cards: the project's active cards that have a date (the
-- caller checked with CalendarProjectReadable that the feed's owner may still read it), by date, at
-- most @lim.
SELECT c.id, c.title, c.description, c.start_date, c.due_date, c.created_at, c.updated_at, c.project_id,
       p.name AS project_name, w.slug AS workspace_slug, o.slug AS organization_slug
FROM cards c
JOIN projects p ON p.id = c.project_id
JOIN workspaces w ON w.id = p.workspace_id
JOIN organizations o ON o.id = w.organization_id
WHERE c.project_id = @project_id AND NOT c.archived AND (c.due_date IS NOT NULL OR c.start_date IS NOT NULL)
ORDER BY coalesce(c.due_date, c.start_date), c.id
LIMIT @lim;

-- name: CalendarProjectReadable :one
-- CalendarProjectReadable answers the project's name and place when the user may still read it (a
-- member of its organization and of its workspace, or an owner or admin of the organization); no row
-- otherwise.
SELECT p.id, p.name, w.slug AS workspace_slug, w.name AS workspace_name, o.slug AS organization_slug
FROM projects p
JOIN workspaces w ON w.id = p.workspace_id
JOIN organizations o ON o.id = w.organization_id
JOIN organization_members om ON om.organization_id = o.id AND om.user_id = @user_id::uuid
WHERE p.id = @project_id
  AND (om.role IN ('owner', 'admin')
       OR EXISTS (SELECT 1 FROM workspace_members wm WHERE wm.workspace_id = w.id AND wm.user_id = @user_id::uuid));
