-- +goose Up
-- record_activities also answers, as 'notify/<activity id>' keys, the activities someone other than
-- their actor would hear of: a member of the project who is not the actor (when the project's members
-- are notified), or a recipient who is not the actor. The recording enqueues a notification job only
-- for those (dbcore.ActivityRecord.Jobs): a card created in a project whose only member is its creator
-- no longer inserts a job that would notify no one. The job still checks, when it runs, who may read
-- the activity.

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_activities(
    ids uuid[], project_ids text[], workspace_ids text[], card_ids text[], document_ids text[], actor_ids text[],
    types text[], metas jsonb[], recipients jsonb[], notify_members boolean[], trigger_projects uuid[], triggers text[]
) RETURNS SETOF text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    INSERT INTO activities (id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients, notify_members)
    SELECT a.id, nullif(a.project_id, '')::uuid, nullif(a.workspace_id, '')::uuid, nullif(a.card_id, '')::uuid,
           nullif(a.document_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members
    FROM unnest(ids, project_ids, workspace_ids, card_ids, document_ids, actor_ids, types, metas, recipients, notify_members)
         AS a(id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients, notify_members);

    RETURN QUERY
    SELECT DISTINCT t.project_id || '/' || t.trigger
    FROM unnest(trigger_projects, triggers) AS t(project_id, trigger)
    WHERE EXISTS (SELECT 1 FROM automation_rules r
                  WHERE r.project_id = t.project_id AND r.trigger = t.trigger AND r.enabled);

    RETURN QUERY
    SELECT 'notify/' || a.id
    FROM unnest(ids, project_ids, actor_ids, recipients, notify_members) AS a(id, project_id, actor_id, recipients, notify_members)
    WHERE (a.notify_members AND a.project_id <> ''
           AND EXISTS (SELECT 1 FROM project_members pm
                       WHERE pm.project_id = a.project_id::uuid AND pm.user_id IS DISTINCT FROM nullif(a.actor_id, '')::uuid))
       OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(a.recipients) r(user_id) WHERE r.user_id <> a.actor_id);
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION record_activities(
    ids uuid[], project_ids text[], workspace_ids text[], card_ids text[], document_ids text[], actor_ids text[],
    types text[], metas jsonb[], recipients jsonb[], notify_members boolean[], trigger_projects uuid[], triggers text[]
) RETURNS SETOF text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    INSERT INTO activities (id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients, notify_members)
    SELECT a.id, nullif(a.project_id, '')::uuid, nullif(a.workspace_id, '')::uuid, nullif(a.card_id, '')::uuid,
           nullif(a.document_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members
    FROM unnest(ids, project_ids, workspace_ids, card_ids, document_ids, actor_ids, types, metas, recipients, notify_members)
         AS a(id, project_id, workspace_id, card_id, document_id, actor_id, type, meta, recipients, notify_members);

    RETURN QUERY
    SELECT DISTINCT t.project_id || '/' || t.trigger
    FROM unnest(trigger_projects, triggers) AS t(project_id, trigger)
    WHERE EXISTS (SELECT 1 FROM automation_rules r
                  WHERE r.project_id = t.project_id AND r.trigger = t.trigger AND r.enabled);
END
$$;
-- +goose StatementEnd
