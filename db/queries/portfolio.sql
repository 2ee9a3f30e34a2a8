-- name: PortfolioProjects :many
-- PortfolioProjects aggregates every project of a workspace in one statement: active (non-archived)
-- cards by priority, overdue cards (due in the past and not in the project's last column) and checklist
-- progress.
WITH ws_projects AS (
    SELECT id, name, deadline, created_at FROM projects WHERE workspace_id = @workspace_id
), last_columns AS (
    SELECT DISTINCT ON (col.project_id) col.project_id, col.id
    FROM columns col JOIN ws_projects p ON p.id = col.project_id
    ORDER BY col.project_id, col.position DESC, col.id DESC
), card_stats AS (
    SELECT c.project_id,
           count(*)::int AS card_count,
           (count(*) FILTER (WHERE c.priority = 'low'))::int AS low_count,
           (count(*) FILTER (WHERE c.priority = 'medium'))::int AS medium_count,
           (count(*) FILTER (WHERE c.priority = 'high'))::int AS high_count,
           (count(*) FILTER (WHERE c.due_date < now() AND c.column_id IS DISTINCT FROM lc.id))::int AS overdue_count
    FROM cards c
    JOIN ws_projects p ON p.id = c.project_id
    LEFT JOIN last_columns lc ON lc.project_id = c.project_id
    WHERE NOT c.archived
    GROUP BY c.project_id
), checklist_stats AS (
    SELECT c.project_id,
           count(*)::int AS total,
           (count(*) FILTER (WHERE i.done))::int AS done
    FROM checklist_items i
    JOIN cards c ON c.id = i.card_id
    JOIN ws_projects p ON p.id = c.project_id
    WHERE NOT c.archived
    GROUP BY c.project_id
)
SELECT p.id, p.name, p.deadline,
       coalesce(cs.card_count, 0)::int AS card_count,
       coalesce(cs.low_count, 0)::int AS low_count,
       coalesce(cs.medium_count, 0)::int AS medium_count,
       coalesce(cs.high_count, 0)::int AS high_count,
       coalesce(cs.overdue_count, 0)::int AS overdue_count,
       coalesce(ch.total, 0)::int AS checklist_total,
       coalesce(ch.done, 0)::int AS checklist_done
FROM ws_projects p
LEFT JOIN card_stats cs ON cs.project_id = p.id
LEFT JOIN checklist_stats ch ON ch.project_id = p.id
ORDER BY p.created_at, p.id;

-- name: PortfolioColumns :many
-- PortfolioColumns counts the active cards of every column of a workspace's projects, in column order.
SELECT col.project_id, col.id, col.name, (count(c.id))::int AS card_count
FROM columns col
JOIN projects p ON p.id = col.project_id
LEFT JOIN cards c ON c.column_id = col.id AND NOT c.archived
WHERE p.workspace_id = @workspace_id
GROUP BY col.project_id, col.id, col.name, col.position
ORDER BY col.project_id, col.position, col.id;

-- name: RoadmapCards :many
-- RoadmapCards lists a project's active cards that have a start or due date, by start (start date, else
-- due date).
SELECT id, title, column_id, scope_id, start_date, due_date, priority
FROM cards
WHERE project_id = @project_id AND NOT archived AND (start_date IS NOT NULL OR due_date IS NOT NULL)
ORDER BY coalesce(start_date, due_date), due_date NULLS LAST, id;
