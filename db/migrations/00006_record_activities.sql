-- +goose Up
-- This migration once created record_activities in a form that wrote River's job rows by SQL. Jobs are
-- now enqueued through River's client (db/activity.go) and the function is created by migration 00010,
-- which also removes that earlier form from databases that applied this migration before. New
-- databases apply nothing here.
SELECT 1;

-- +goose Down
SELECT 1;
