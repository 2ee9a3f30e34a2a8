-- +goose Up
-- Locks: builds an index on webhook_deliveries without CONCURRENTLY: deliveries' writes wait until
-- it is built.
-- Finished webhook deliveries (succeeded or failed) are kept for WEBHOOK_DELIVERY_RETENTION after their
-- last event (made, last attempted, redelivered), then a periodic sweep deletes them, oldest first, in
-- batches. This index serves the sweep: it holds the finished deliveries only, ordered by that last
-- event, so a batch reads the oldest without touching the pending ones or scanning the table.
CREATE INDEX webhook_deliveries_finished_idx
    ON webhook_deliveries ((greatest(created_at, last_attempt_at, redelivered_at)))
    WHERE status <> 'pending';

-- +goose Down
DROP INDEX webhook_deliveries_finished_idx;
