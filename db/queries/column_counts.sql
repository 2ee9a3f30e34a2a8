-- name: ColumnCountsFold :execrows
-- ColumnCountsFold replaces the count rows of up to @lim columns that have unfolded rows by one folded
-- row each (their sums), and answers the number of columns folded. It never waits for a lock, so it can
-- never deadlock with anything:
--   - It takes the columns FOR KEY SHARE, skipping any being deleted (its delete then waits for this
--     fold, and its trigger deletes the folded row). Card writes lock columns at most FOR NO KEY UPDATE,
--     which KEY SHARE lets through.
--   - It deletes only the count rows it can lock: rows a concurrent fold (or a column's delete) holds
--     are left, and summed by whoever holds them. Rows inserted meanwhile by writers are not seen.
-- So nothing is counted twice and nothing is lost; what is skipped waits for the next fold. A column
-- whose rows were not all locked gets its sum as an unfolded row, so the next fold merges it with the
-- rest and a column ends with one row.
WITH cols AS (
    SELECT DISTINCT u.column_id FROM column_card_counts u WHERE NOT u.folded LIMIT @lim
), live AS (
    SELECT c.id FROM columns c WHERE c.id IN (SELECT column_id FROM cols) FOR KEY SHARE OF c SKIP LOCKED
), seen AS (
    SELECT x.column_id, count(*) AS n FROM column_card_counts x JOIN live ON live.id = x.column_id GROUP BY x.column_id
), gone AS (
    DELETE FROM column_card_counts n
    WHERE n.ctid = ANY (ARRAY(SELECT x.ctid FROM column_card_counts x JOIN live ON live.id = x.column_id FOR UPDATE OF x SKIP LOCKED))
    RETURNING n.column_id, n.low_count, n.medium_count, n.high_count, n.archived_count, n.checklist_total, n.checklist_done
)
INSERT INTO column_card_counts (column_id, folded, low_count, medium_count, high_count, archived_count, checklist_total, checklist_done)
SELECT g.column_id, count(*) = seen.n, sum(g.low_count), sum(g.medium_count), sum(g.high_count), sum(g.archived_count),
       sum(g.checklist_total), sum(g.checklist_done)
FROM gone g JOIN seen ON seen.column_id = g.column_id
GROUP BY g.column_id, seen.n;
