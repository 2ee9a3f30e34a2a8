-- name: AuditInsert :exec
-- AuditInsert appends an entry. Its organization is the one given, or else the workspace's, or else the
-- project's (so an engine that knows only a workspace or a project records under the right organization);
-- its workspace likewise the one given or the project's.
INSERT INTO audit_log (id, organization_id, workspace_id, kind, actor_id, actor_email, client_ip, user_agent,
    target_type, target_id, target_name, changes)
VALUES (@id,
    COALESCE(sqlc.narg(organization_id)::uuid,
        (SELECT w.organization_id FROM workspaces w WHERE w.id = sqlc.narg(workspace_id)::uuid),
        (SELECT w.organization_id FROM projects p JOIN workspaces w ON w.id = p.workspace_id
            WHERE p.id = sqlc.narg(project_id)::uuid)),
    COALESCE(sqlc.narg(workspace_id)::uuid,
        (SELECT p.workspace_id FROM projects p WHERE p.id = sqlc.narg(project_id)::uuid)),
    @kind, sqlc.narg(actor_id)::uuid, @actor_email, @client_ip, @user_agent,
    @target_type, @target_id, @target_name, @changes);

-- name: AuditListOrg :many
-- AuditListOrg is one page of an organization's entries, newest first (ties by id, also descending):
-- those before the keyset (at, id) of the previous page's last, matching the filters given (an empty
-- actor, kinds or a NULL bound filters nothing).
SELECT * FROM audit_log
WHERE organization_id = @organization_id
  AND (at, id) < (@after_at::timestamptz, @after_id::uuid)
  AND (sqlc.narg(actor_id)::uuid IS NULL OR actor_id = sqlc.narg(actor_id)::uuid)
  AND (cardinality(@kinds::text[]) = 0 OR kind = ANY (@kinds::text[]))
  AND (sqlc.narg(since)::timestamptz IS NULL OR at >= sqlc.narg(since)::timestamptz)
  AND (sqlc.narg(until)::timestamptz IS NULL OR at < sqlc.narg(until)::timestamptz)
ORDER BY at DESC, id DESC
LIMIT @lim;

-- name: AuditListAccount :many
-- AuditListAccount is one page of a person's account entries (those of no organization: sign-ins,
-- password and second-factor changes, sessions, tokens), newest first, as AuditListOrg: those the person
-- made, and the failed sign-ins to their account (which have no actor).
SELECT * FROM audit_log
WHERE organization_id IS NULL
  AND (actor_id = @user_id::uuid OR (kind = 'sign_in_failed' AND target_id = @user_id::text))
  AND (at, id) < (@after_at::timestamptz, @after_id::uuid)
  AND (cardinality(@kinds::text[]) = 0 OR kind = ANY (@kinds::text[]))
  AND (sqlc.narg(since)::timestamptz IS NULL OR at >= sqlc.narg(since)::timestamptz)
  AND (sqlc.narg(until)::timestamptz IS NULL OR at < sqlc.narg(until)::timestamptz)
ORDER BY at DESC, id DESC
LIMIT @lim;

-- name: AuditPrune :execrows
-- AuditPrune deletes the entries older than cutoff, at most lim of them (the oldest), so that one batch
-- holds its locks briefly. The caller sets pilot.audit_retention for its transaction: the trigger refuses
-- every other delete.
DELETE FROM audit_log WHERE id IN (
    SELECT old.id FROM audit_log old WHERE old.at < @cutoff::timestamptz ORDER BY old.at LIMIT @lim);

-- name: AuditAllowRetention :exec
-- AuditAllowRetention lets the retention job's deletes through the append-only trigger, for the rest of
-- its transaction only (set_config's is_local).
SELECT set_config('pilot.audit_retention', 'on', true);
