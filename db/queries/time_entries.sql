-- name: TimeCardGet :one
-- TimeCardGet reads what time tracking needs of a card of a project (none: not in the project).
SELECT id, title, estimate_seconds, time_spent_seconds FROM cards WHERE id = @id AND project_id = @project_id;

-- name: CardTimeSpentAdd :one
-- CardTimeSpentAdd moves a card's total of logged time by delta seconds, in the transaction of the entry's
-- change (the card list reads the total from the row).
UPDATE cards SET time_spent_seconds = time_spent_seconds + @delta::bigint
WHERE id = @id
RETURNING time_spent_seconds;

-- name: TimeEntryStopRunning :one
-- TimeEntryStopRunning stops a person's running timer, if any: its end is now and its duration the time
-- since its start, at most a day (a timer left running longer counts for a day; its entry can be
-- edited). A timer started by a transaction that began after this one ends when it started.
UPDATE time_entries
SET running = false, ended_at = greatest(now(), started_at),
    duration_seconds = least(86400, greatest(0, floor(extract(epoch FROM now() - started_at))))::int,
    updated_at = now()
WHERE user_id = @user_id AND running
RETURNING *;

-- name: TimeEntryInsert :one
INSERT INTO time_entries (id, workspace_id, project_id, card_id, user_id, source, running, started_at, ended_at,
                          duration_seconds, work_date, note)
VALUES (@id, @workspace_id, @project_id, @card_id, @user_id, @source, @running, sqlc.narg(started_at),
        sqlc.narg(ended_at), @duration_seconds, @work_date, @note)
RETURNING *;

-- name: TimeEntryStartTimer :one
-- TimeEntryStartTimer inserts a running timer started now.
INSERT INTO time_entries (id, workspace_id, project_id, card_id, user_id, source, running, started_at, work_date)
VALUES (@id, @workspace_id, @project_id, @card_id, @user_id, 'timer', true, now(), @work_date)
RETURNING *;

-- name: TimeEntryGetForUpdate :one
SELECT * FROM time_entries WHERE id = @id AND card_id = @card_id AND project_id = @project_id FOR UPDATE;

-- name: TimeEntryUpdate :one
UPDATE time_entries
SET started_at = sqlc.narg(started_at), ended_at = sqlc.narg(ended_at), duration_seconds = @duration_seconds,
    work_date = @work_date, note = @note, updated_at = now()
WHERE id = @id
RETURNING *;

-- name: TimeEntryDelete :exec
DELETE FROM time_entries WHERE id = @id;

-- name: TimeEntryWithNames :one
-- TimeEntryWithNames reads one entry with its person's name.
SELECT sqlc.embed(e), u.name AS user_name
FROM time_entries e JOIN users u ON u.id = e.user_id
WHERE e.id = @id;

-- name: TimeEntryPageByCard :many
-- TimeEntryPageByCard is one page of a card's entries, newest first: those before the keyset (created_at,
-- id) of the previous page's last (docs/pagination.md).
SELECT sqlc.embed(e), u.name AS user_name
FROM time_entries e JOIN users u ON u.id = e.user_id
WHERE e.card_id = @card_id AND (e.created_at, e.id) < (@after_at::timestamptz, @after_id::uuid)
ORDER BY e.created_at DESC, e.id DESC
LIMIT @lim;

-- name: TimeEntryRunning :one
-- TimeEntryRunning is a person's running timer with where its card is, for the web app's indicator.
SELECT sqlc.embed(e), c.title AS card_title, p.name AS project_name, w.slug AS workspace_slug,
       o.slug AS org_slug
FROM time_entries e
JOIN cards c ON c.id = e.card_id
JOIN projects p ON p.id = e.project_id
JOIN workspaces w ON w.id = e.workspace_id
JOIN organizations o ON o.id = w.organization_id
WHERE e.user_id = @user_id AND e.running;

-- name: TimeReportRows :many
-- TimeReportRows is a workspace's logged time of a period (work dates from and to, inclusive), one row
-- per day, person and card, optionally of one project and one person; running timers count once stopped.
SELECT e.work_date, e.user_id, u.name AS user_name, u.email AS user_email, e.project_id, p.name AS project_name,
       e.card_id, c.title AS card_title, sum(e.duration_seconds)::bigint AS seconds, count(*)::int AS entries
FROM time_entries e
JOIN users u ON u.id = e.user_id
JOIN projects p ON p.id = e.project_id
JOIN cards c ON c.id = e.card_id
WHERE e.workspace_id = @workspace_id AND e.work_date BETWEEN @from_date::date AND @to_date::date
  AND NOT e.running
  AND (sqlc.narg(project_id)::uuid IS NULL OR e.project_id = sqlc.narg(project_id)::uuid)
  AND (sqlc.narg(user_id)::uuid IS NULL OR e.user_id = sqlc.narg(user_id)::uuid)
GROUP BY e.work_date, e.user_id, u.name, u.email, e.project_id, p.name, e.card_id, c.title
ORDER BY e.work_date, u.name, e.user_id, p.name, e.project_id, c.title, e.card_id
LIMIT @lim;
