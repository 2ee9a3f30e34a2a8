-- name: ColumnCountsFold :execrows
-- ColumnCountsFold replaces the count rows of up to @lim columns that have unfolded rows by one folded
-- row each (their sums). Rows inserted meanwhile by writers are not seen and stay for the next fold; a
-- concurrent fold skips the rows this one deletes, so nothing is counted twice. The columns are locked
-- against deletion until the fold commits; the rows of columns already deleted are dropped. It answers
-- the number of columns folded.
WITH cols AS (
    SELECT DISTINCT u.column_id FROM column_card_counts u WHERE NOT u.folded LIMIT @lim
), live AS (
    SELECT c.id FROM columns c JOIN cols ON cols.column_id = c.id FOR KEY SHARE OF c
), gone AS (
    DELETE FROM column_card_counts n USING cols WHERE n.column_id = cols.column_id
    RETURNING n.column_id, n.low_count, n.medium_count, n.high_count, n.archived_count, n.checklist_total, n.checklist_done
)
INSERT INTO column_card_counts (column_id, folded, low_count, medium_count, high_count, archived_count, checklist_total, checklist_done)
SELECT g.column_id, true, sum(g.low_count), sum(g.medium_count), sum(g.high_count), sum(g.archived_count),
       sum(g.checklist_total), sum(g.checklist_done)
FROM gone g JOIN live ON live.id = g.column_id
GROUP BY g.column_id;
