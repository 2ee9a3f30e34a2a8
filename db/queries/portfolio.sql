-- name: RoadmapCards :many
-- RoadmapCards lists a project's active cards that have a start or due date, by start (start date, else
-- due date).
SELECT id, title, column_id, scope_id, start_date, due_date, priority
FROM cards
WHERE project_id = @project_id AND NOT archived AND (start_date IS NOT NULL OR due_date IS NOT NULL)
ORDER BY coalesce(start_date, due_date), due_date NULLS LAST, id;

-- name: PortfolioColumnStats :many
-- PortfolioColumnStats aggregates every column of a workspace's projects in one pass over their cards
-- and one over their checklist items: active cards by priority, archived cards, overdue active cards
-- (due in the past) and checklist items of active cards. Per-project figures (overdue outside the last
-- column, cards by column type) are sums over a project's columns, in column order.
WITH ws_projects AS (
    SELECT id FROM projects WHERE workspace_id = @workspace_id
), card_stats AS (
    SELECT c.column_id,
           (count(*) FILTER (WHERE NOT c.archived AND c.priority = 'low'))::int AS low_count,
           (count(*) FILTER (WHERE NOT c.archived AND c.priority = 'medium'))::int AS medium_count,
           (count(*) FILTER (WHERE NOT c.archived AND c.priority = 'high'))::int AS high_count,
           (count(*) FILTER (WHERE c.archived))::int AS archived_count,
           (count(*) FILTER (WHERE NOT c.archived AND c.due_date < now()))::int AS overdue_count
    FROM cards c JOIN ws_projects p ON p.id = c.project_id
    GROUP BY c.column_id
), checklist_stats AS (
    SELECT c.column_id, count(*)::int AS total, (count(*) FILTER (WHERE i.done))::int AS done
    FROM checklist_items i
    JOIN cards c ON c.id = i.card_id
    JOIN ws_projects p ON p.id = c.project_id
    WHERE NOT c.archived
    GROUP BY c.column_id
)
SELECT col.project_id, col.id, col.name,
       coalesce(cs.low_count, 0)::int AS low_count,
       coalesce(cs.medium_count, 0)::int AS medium_count,
       coalesce(cs.high_count, 0)::int AS high_count,
       coalesce(cs.archived_count, 0)::int AS archived_count,
       coalesce(cs.overdue_count, 0)::int AS overdue_count,
       coalesce(ch.total, 0)::int AS checklist_total,
       coalesce(ch.done, 0)::int AS checklist_done
FROM columns col
JOIN ws_projects p ON p.id = col.project_id
LEFT JOIN card_stats cs ON cs.column_id = col.id
LEFT JOIN checklist_stats ch ON ch.column_id = col.id
ORDER BY col.project_id, col.position, col.id;

-- name: PortfolioProjectList :many
-- PortfolioProjectList lists a workspace's projects with their last activity (has_activity false: none;
-- last_activity_at is then the project's creation), one probe of the (project_id, created_at) index each.
SELECT p.id, p.name, p.deadline,
       (la.last_activity_at IS NOT NULL)::boolean AS has_activity,
       coalesce(la.last_activity_at, p.created_at)::timestamptz AS last_activity_at
FROM projects p
LEFT JOIN LATERAL (SELECT max(a.created_at)::timestamptz AS last_activity_at FROM activities a WHERE a.project_id = p.id) la ON true
WHERE p.workspace_id = @workspace_id
ORDER BY p.created_at, p.id;
