-- +goose Up
-- Every change to what the api's guard resolves (users, organizations, workspaces, projects and the
-- organization and workspace memberships) notifies channel pilot_access, so each api process empties
-- its cache of resolved access (internal/accesscache) as soon as the change commits. These tables change
-- rarely; card writes never touch them.
-- +goose StatementBegin
CREATE FUNCTION notify_access_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('pilot_access', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER users_access_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER organizations_access_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER organization_members_access_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON organization_members
    FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER workspaces_access_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON workspaces
    FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER workspace_members_access_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON workspace_members
    FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();
CREATE TRIGGER projects_access_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects
    FOR EACH STATEMENT EXECUTE FUNCTION notify_access_change();

-- +goose Down
DROP TRIGGER projects_access_change ON projects;
DROP TRIGGER workspace_members_access_change ON workspace_members;
DROP TRIGGER workspaces_access_change ON workspaces;
DROP TRIGGER organization_members_access_change ON organization_members;
DROP TRIGGER organizations_access_change ON organizations;
DROP TRIGGER users_access_change ON users;
DROP FUNCTION notify_access_change;
