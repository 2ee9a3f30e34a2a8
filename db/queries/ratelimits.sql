-- name: RateLimitHit :one
-- RateLimitHit counts one attempt for a key in the current window (windows are aligned on the
-- database's clock, the one clock every api process shares) and answers the counts of the current and
-- the previous window and how far into the current one this hit is. It also deletes the rows of
-- windows that no estimate reads any more.
WITH win AS (
    SELECT date_bin(make_interval(secs => @window_secs::float8), now(), timestamptz '2000-01-01') AS start
), gc AS (
    DELETE FROM rate_limit_hits
    WHERE window_start < (SELECT start FROM win) - make_interval(secs => @window_secs::float8)
), cur AS (
    INSERT INTO rate_limit_hits (key, window_start, hits)
    SELECT @key::text, start, 1 FROM win
    ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_hits.hits + 1
    RETURNING hits
)
SELECT cur.hits::integer AS hits,
       coalesce((SELECT p.hits FROM rate_limit_hits p
                 WHERE p.key = @key::text AND p.window_start = win.start - make_interval(secs => @window_secs::float8)), 0)::integer AS previous_hits,
       extract(epoch FROM now() - win.start)::float8 AS elapsed_secs
FROM cur, win;
