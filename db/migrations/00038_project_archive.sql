-- +goose Up
-- A project can be archived: kept readable and restorable, left out of the default projects list, its
-- cards read-only while it is. A nullable column without a default changes only the catalog (a brief
-- ACCESS EXCLUSIVE lock on projects, no rewrite).
ALTER TABLE projects ADD COLUMN archived_at timestamptz;

-- +goose Down
ALTER TABLE projects DROP COLUMN archived_at;
