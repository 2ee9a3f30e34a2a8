-- +goose Up
-- rate_limit_hits counts attempts per key (a client address or an account) in fixed windows, so a limit
-- holds across every api process: a client cannot multiply its login attempts by the number of
-- replicas. The limiter estimates a sliding window from the current and the previous window, as
-- httprate does in memory. Rows older than two windows are deleted by the next hit.
CREATE TABLE rate_limit_hits (
    key          text NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer NOT NULL,
    PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limit_hits_window_start ON rate_limit_hits (window_start);

-- email_job_id is the River job sending the invitation's e-mail, so deleting the organization cancels
-- the e-mails of its pending invitations in the same transaction.
ALTER TABLE workspace_invitations ADD COLUMN email_job_id bigint;

-- +goose Down
ALTER TABLE workspace_invitations DROP COLUMN email_job_id;
DROP TABLE rate_limit_hits;
