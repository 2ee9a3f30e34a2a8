-- name: SeriesInsert :one
INSERT INTO card_series (id, project_id, template_card_id, rule, timezone, mode, starts_at, next_at, created_by)
VALUES (@id, @project_id, @template_card_id, @rule, @timezone, @mode, @starts_at, @next_at, @created_by)
RETURNING *;

-- name: SeriesGetForUpdate :one
SELECT * FROM card_series WHERE id = @id FOR UPDATE;

-- name: SeriesUpdate :one
UPDATE card_series SET rule = @rule, timezone = @timezone, mode = @mode, starts_at = @starts_at, next_at = @next_at,
    stopped_at = NULL,
    updated_at = now()
WHERE id = @id RETURNING *;

-- name: SeriesStop :exec
UPDATE card_series SET stopped_at = now(), next_at = NULL, updated_at = now() WHERE id = @id AND stopped_at IS NULL;

-- name: SeriesSetNext :exec
UPDATE card_series SET next_at = @next_at WHERE id = @id;

-- name: SeriesOfCard :one
-- SeriesOfCard reads the series a card is an occurrence of, with the card's own occurrence date.
SELECT sqlc.embed(s), o.occurs_at
FROM card_occurrences o JOIN card_series s ON s.id = o.series_id
WHERE o.card_id = @card_id AND s.project_id = @project_id;

-- name: SeriesContinuedAfterCompletion :one
-- SeriesContinuedAfterCompletion answers the running after-completion series whose occurrence the card
-- is (no row for any other card): the board reads it only when a card moves into the done column.
SELECT s.id FROM card_occurrences o JOIN card_series s ON s.id = o.series_id
WHERE o.card_id = @card_id AND s.mode = 'after_completion' AND s.stopped_at IS NULL;

-- name: SeriesDueLock :many
-- SeriesDueLock locks running on-schedule series whose next occurrence is due, skipping those another
-- scan holds.
SELECT * FROM card_series
WHERE stopped_at IS NULL AND next_at IS NOT NULL AND next_at <= @now::timestamptz
ORDER BY next_at, id LIMIT @lim FOR UPDATE SKIP LOCKED;

-- name: SeriesPageByProject :many
SELECT * FROM card_series
WHERE project_id = @project_id AND stopped_at IS NULL AND (created_at, id) > (@after_at::timestamptz, @after_id::uuid)
ORDER BY created_at, id LIMIT @lim;

-- name: OccurrenceCardIDs :many
SELECT series_id, card_id::uuid AS card_id FROM card_occurrences
WHERE series_id = ANY(@series_ids::uuid[]) AND card_id IS NOT NULL ORDER BY occurs_at;

-- name: OccurrenceInsert :execrows
-- OccurrenceInsert claims a series' occurrence: no row when it was already created (by another worker,
-- or by an earlier attempt of the same job).
INSERT INTO card_occurrences (series_id, occurs_at, card_id) VALUES (@series_id, @occurs_at, @card_id)
ON CONFLICT DO NOTHING;

-- name: OccurrenceLatest :one
SELECT * FROM card_occurrences WHERE series_id = @series_id ORDER BY occurs_at DESC LIMIT 1;

-- name: OccurrenceLatestWithCard :one
SELECT * FROM card_occurrences WHERE series_id = @series_id AND card_id IS NOT NULL ORDER BY occurs_at DESC LIMIT 1;

-- name: ChecklistTitlesByCard :many
SELECT title FROM checklist_items WHERE card_id = @card_id ORDER BY position, id;

-- name: CardLabelsCopy :exec
INSERT INTO card_labels (card_id, label_id)
SELECT @to_card_id::uuid, l.label_id FROM card_labels l WHERE l.card_id = @from_card_id::uuid;

-- name: OccurrenceSetCard :exec
UPDATE card_occurrences SET card_id = @card_id WHERE series_id = @series_id AND occurs_at = @occurs_at;
