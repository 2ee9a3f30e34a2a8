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
LEFT JOIN LATERAL (SELECT max(a.created_at)::timestamptz AS last_activity_at FROM activities a WHERE a.project_id = p.id) la ON true
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

-- name: PortfolioProjectStatus :many
-- PortfolioProjectStatus counts every project's cards by status, the column type they sit in (the
-- first column is todo, the last done, the others in progress; archived cards count as archived), and
-- reads each project's last activity (has_activity false: none; last_activity_at is then the
-- project's creation) through the (project_id, created_at) index.
WITH ws_projects AS (
    SELECT id, created_at FROM projects WHERE workspace_id = @workspace_id
), ranked_columns AS (
    SELECT col.project_id, col.id,
           row_number() OVER (PARTITION BY col.project_id ORDER BY col.position, col.id) AS rn,
           count(*) OVER (PARTITION BY col.project_id) AS n
    FROM columns col JOIN ws_projects p ON p.id = col.project_id
), card_stats AS (
    SELECT c.project_id,
           (count(*) FILTER (WHERE c.archived))::int AS archived_count,
           (count(*) FILTER (WHERE NOT c.archived AND rc.rn = 1))::int AS todo_count,
           (count(*) FILTER (WHERE NOT c.archived AND rc.rn > 1 AND rc.rn = rc.n))::int AS done_count,
           (count(*) FILTER (WHERE NOT c.archived AND rc.rn > 1 AND rc.rn < rc.n))::int AS in_progress_count
    FROM cards c
    JOIN ws_projects p ON p.id = c.project_id
    JOIN ranked_columns rc ON rc.id = c.column_id
    GROUP BY c.project_id
)
SELECT p.id,
       coalesce(cs.todo_count, 0)::int AS todo_count,
       coalesce(cs.in_progress_count, 0)::int AS in_progress_count,
       coalesce(cs.done_count, 0)::int AS done_count,
       coalesce(cs.archived_count, 0)::int AS archived_count,
       (la.last_activity_at IS NOT NULL)::boolean AS has_activity,
       coalesce(la.last_activity_at, p.created_at)::timestamptz AS last_activity_at
FROM ws_projects p
LEFT JOIN card_stats cs ON cs.project_id = p.id
LEFT JOIN LATERAL (SELECT max(a.created_at)::timestamptz AS last_activity_at FROM activities a WHERE a.project_id = p.id) la ON true
ORDER BY p.created_at, p.id;
