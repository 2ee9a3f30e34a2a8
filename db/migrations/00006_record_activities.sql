-- +goose Up
-- record_activities stores activities and enqueues their jobs (queries/activity.sql, ActivitiesRecord):
-- each notification fan-out job always, each automation job only when an enabled rule of its project
-- listens to its trigger ('' means always). Jobs are written as River job rows, the way River's
-- insert-only clients for other languages write them; their arguments, kind, queue, priority and
-- attempts come from the Go job types (db.jobRowOf).
--
-- It is a function for one reason: plan_cache_mode. Its statements take arrays, whose lengths make
-- PostgreSQL re-plan them on every call (0.4 ms) when sent directly; here they keep one generic plan
-- per session.
-- +goose StatementBegin
CREATE FUNCTION record_activities(
    ids uuid[], project_ids uuid[], card_ids text[], actor_ids text[], types text[], metas jsonb[],
    recipients jsonb[], notify_members boolean[],
    job_args jsonb[], job_kinds text[], job_queues text[], job_priorities smallint[], job_max_attempts smallint[],
    job_projects uuid[], job_triggers text[]
) RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    INSERT INTO activities (id, project_id, card_id, actor_id, type, meta, recipients, notify_members)
    SELECT a.id, a.project_id, nullif(a.card_id, '')::uuid, nullif(a.actor_id, '')::uuid, a.type, a.meta,
           ARRAY(SELECT jsonb_array_elements_text(a.recipients))::uuid[], a.notify_members
    FROM unnest(ids, project_ids, card_ids, actor_ids, types, metas, recipients, notify_members)
         AS a(id, project_id, card_id, actor_id, type, meta, recipients, notify_members);

    INSERT INTO river_job (args, kind, queue, priority, max_attempts)
    SELECT j.args, j.kind, j.queue, j.priority, j.max_attempts
    FROM unnest(job_args, job_kinds, job_queues, job_priorities, job_max_attempts, job_projects, job_triggers)
         AS j(args, kind, queue, priority, max_attempts, project_id, trigger)
    WHERE j.trigger = ''
       OR EXISTS (SELECT 1 FROM automation_rules r
                  WHERE r.project_id = j.project_id AND r.trigger = j.trigger AND r.enabled);
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION record_activities;
