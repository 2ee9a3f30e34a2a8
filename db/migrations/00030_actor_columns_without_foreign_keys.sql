-- +goose Up
-- cards.created_by and activities.actor_id name who acted, as the pilotage tables' actor columns do
-- (migration 00012), without a foreign key to users. Users are never deleted, so the keys only checked
-- that an id the store itself took from the authenticated caller exists; each check cost an index probe
-- and a FOR KEY SHARE lock on the actor's users row, which every create by the same person shares
-- (PostgreSQL then keeps a MultiXact for the row's lockers). Measured in docs/performance.md.
ALTER TABLE cards DROP CONSTRAINT cards_created_by_fkey;
ALTER TABLE activities DROP CONSTRAINT activities_actor_id_fkey;

-- +goose Down
ALTER TABLE cards ADD CONSTRAINT cards_created_by_fkey FOREIGN KEY (created_by) REFERENCES users (id);
ALTER TABLE activities ADD CONSTRAINT activities_actor_id_fkey FOREIGN KEY (actor_id) REFERENCES users (id);
