-- name: RoadmapCards :many
-- RoadmapCards lists a project's active cards that have a start or due date, by start (start date, else
-- due date).
SELECT id, title, column_id, scope_id, start_date, due_date, priority
FROM cards
WHERE project_id = @project_id AND NOT archived AND (start_date IS NOT NULL OR due_date IS NOT NULL)
ORDER BY coalesce(start_date, due_date), due_date NULLS LAST, id;

-- name: PortfolioColumnStats :many
-- PortfolioColumnStats reads every column of a workspace's projects with its counters (active cards by
-- priority, archived cards, checklist items of active cards: sums of the column's count rows, kept by the
-- triggers of migration 00019) and its overdue active cards (due in the past), counted from the
-- (column_id, due_date) index. Per-project figures (overdue outside the last column, cards by column
-- type) are sums over a project's columns, in column order. Archived projects are left out (as below).
SELECT col.project_id, col.id, col.name,
       coalesce(cs.low_count, 0)::int AS low_count,
       coalesce(cs.medium_count, 0)::int AS medium_count,
       coalesce(cs.high_count, 0)::int AS high_count,
       coalesce(cs.archived_count, 0)::int AS archived_count,
       (SELECT count(*) FROM cards c
        WHERE c.column_id = col.id AND c.due_date IS NOT NULL AND NOT c.archived AND c.due_date < now())::int AS overdue_count,
       coalesce(cs.checklist_total, 0)::int AS checklist_total,
       coalesce(cs.checklist_done, 0)::int AS checklist_done
FROM projects p
JOIN columns col ON col.project_id = p.id
LEFT JOIN LATERAL (
    SELECT sum(n.low_count) AS low_count, sum(n.medium_count) AS medium_count, sum(n.high_count) AS high_count,
           sum(n.archived_count) AS archived_count, sum(n.checklist_total) AS checklist_total,
           sum(n.checklist_done) AS checklist_done
    FROM column_card_counts n WHERE n.column_id = col.id
) cs ON true
WHERE p.workspace_id = @workspace_id AND p.archived_at IS NULL
ORDER BY col.project_id, col.position, col.id;

-- name: PortfolioProjectList :many
-- PortfolioProjectList lists a workspace's projects with their last activity (has_activity false: none;
-- last_activity_at is then the project's creation), one probe of the (project_id, created_at) index each.
-- Archived projects are left out: the portfolio is the workspace's work in progress, and an archived
-- project (read-only until restored) would only show as stale.
SELECT p.id, p.name, p.deadline,
       (la.last_activity_at IS NOT NULL)::boolean AS has_activity,
       coalesce(la.last_activity_at, p.created_at)::timestamptz AS last_activity_at
FROM projects p
LEFT JOIN LATERAL (SELECT max(a.created_at)::timestamptz AS last_activity_at FROM activities a WHERE a.project_id = p.id) la ON true
WHERE p.workspace_id = @workspace_id AND p.archived_at IS NULL
ORDER BY p.created_at, p.id;
