-- +goose Up
-- record_activities stores activities and answers which of the given (project, trigger) pairs an
-- enabled automation rule listens to, as 'project/trigger' keys, so that the store enqueues (through
-- River's client, in the same transaction) only the automation jobs that will do something. Jobs carry
-- River's insert notification, and no SQL of ours writes River's tables.
--
-- It is a function for one reason: plan_cache_mode. Its statements take arrays, whose lengths make
-- PostgreSQL re-plan them on every call (0.4 ms) when sent directly; here they keep one generic plan
-- per session.
--
-- Databases that applied migration 00006 before this change hold its earlier form (15 arguments, the
-- last seven describing job rows): it is dropped first.
DROP FUNCTION IF EXISTS record_activities(uuid[], uuid[], text[], text[], text[], jsonb[], jsonb[], boolean[], jsonb[],
    text[], text[], smallint[], smallint[], uuid[], text[]);

-- +goose StatementBegin
CREATE FUNCTION record_activities(
    ids uuid[], project_ids uuid[], card_ids text[], actor_ids text[], types text[], metas jsonb[],
    recipients jsonb[], notify_members boolean[], trigger_projects uuid[], triggers text[]
) RETURNS SETOF text LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    INSERT INTO activities (id, project_id, card_id, actor_id, type, meta, recipients, notify_members)
    SELECT a.id, a.project_id, nullif(a.card_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members
    FROM unnest(ids, project_ids, card_ids, actor_ids, types, metas, recipients, notify_members)
         AS a(id, project_id, card_id, actor_id, type, meta, recipients, notify_members);

    RETURN QUERY
    SELECT DISTINCT t.project_id || '/' || t.trigger
    FROM unnest(trigger_projects, triggers) AS t(project_id, trigger)
    WHERE EXISTS (SELECT 1 FROM automation_rules r
                  WHERE r.project_id = t.project_id AND r.trigger = t.trigger AND r.enabled);
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION record_activities(uuid[], uuid[], text[], text[], text[], jsonb[], jsonb[], boolean[], uuid[], text[]);
