-- +goose Up
-- Locks: adds a stored generated column to comments, which rewrites the table under an ACCESS
-- EXCLUSIVE lock, then builds a GIN index: comments (reads too) wait until it commits.
-- comments.search_vector: a comment's text (weight C, below a card's title A and description B), so
-- GET WS/search finds a card by its comments too (SearchWorkspace), through its own GIN index.
ALTER TABLE comments ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', content), 'C')
) STORED;
CREATE INDEX comments_search_idx ON comments USING gin (search_vector);

-- +goose Down
ALTER TABLE comments DROP COLUMN search_vector;
