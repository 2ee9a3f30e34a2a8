-- +goose Up
-- A card's project is already guaranteed, and cascaded, through its column: (column_id, project_id)
-- references columns (id, project_id), whose project_id references projects ON DELETE CASCADE. The
-- direct foreign key only cost every card insert one more lookup.
ALTER TABLE cards DROP CONSTRAINT cards_project_id_fkey;

-- +goose Down
ALTER TABLE cards ADD CONSTRAINT cards_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects (id) ON DELETE CASCADE;
