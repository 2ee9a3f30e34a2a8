-- +goose Up
-- webhooks are a workspace's outbound subscriptions: the activities whose type is in events (or every
-- one, '*') are posted to url, signed with the secret. Secrets are kept sealed (AES-GCM with a key
-- derived from the server's secret), never in clear: the api shows a secret once, when it is made.
-- After a rotation the previous secret keeps signing alongside the new one until
-- previous_secret_expires_at, so receivers can switch without losing a delivery.
-- consecutive_failures counts the deliveries that failed for good since the last success; past the
-- configured limit the webhook is disabled (disabled_reason says why) and the workspace's admins are told.
CREATE TABLE webhooks (
    id                         uuid PRIMARY KEY,
    workspace_id               uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    url                        text NOT NULL,
    description                text NOT NULL DEFAULT '',
    events                     text[] NOT NULL,
    enabled                    boolean NOT NULL DEFAULT true,
    secret                     bytea NOT NULL,
    previous_secret            bytea,
    previous_secret_expires_at timestamptz,
    consecutive_failures       integer NOT NULL DEFAULT 0,
    disabled_reason            text,
    created_by                 uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id, created_at);
-- record_activities probes this index for every activity: a workspace without an enabled webhook
-- costs one lookup that finds nothing.
CREATE INDEX webhooks_enabled_idx ON webhooks (workspace_id) WHERE enabled;

-- webhook_deliveries are the messages sent or to send: id is the webhook-id header (msg_…), the same
-- for every attempt, so receivers can drop duplicates. An activity's delivery is inserted with the
-- activity, in its transaction, with a null payload: the first attempt builds the payload from the
-- activity row and keeps it, so every retry and redelivery sends the same bytes. A pipeline step's
-- delivery has no webhook: it names its url and its step (source). status: pending (to send, or to
-- retry at next_attempt_at), succeeded, failed (given up, or the webhook answered 410).
CREATE TABLE webhook_deliveries (
    id              text PRIMARY KEY,
    workspace_id    uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    webhook_id      uuid REFERENCES webhooks (id) ON DELETE CASCADE,
    url             text,
    source          text,
    event_type      text NOT NULL,
    -- activity_id has no foreign key, as notifications' card ids: the record outlives the activity.
    activity_id     uuid,
    -- payload is kept as the bytes sent (not jsonb, which would reorder keys): every attempt signs the same body.
    payload         bytea,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    response_status integer,
    response_body   text,
    duration_ms     integer,
    error           text,
    next_attempt_at timestamptz,
    last_attempt_at timestamptz,
    -- redelivered_at starts a redelivery's retry window afresh (the first round's starts at created_at).
    redelivered_at  timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CHECK (webhook_id IS NOT NULL OR url IS NOT NULL)
);
-- Ids are time-ordered (msg_ and a UUIDv7), so a webhook's deliveries list newest first by id alone.
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id DESC) WHERE webhook_id IS NOT NULL;

-- record_activities (as migration 00027 left it) also answers 'webhook/<webhookId>/<activityId>' for each enabled
-- webhook of the activity's workspace (a project activity's is its project's) whose events list the
-- activity's type or '*'. The caller inserts one delivery and one job per key in the same
-- transaction. Same signature, so the statement that calls it does not change.
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

    RETURN QUERY
    SELECT 'webhook/' || w.id || '/' || a.id
    FROM unnest(ids, project_ids, workspace_ids, types) AS a(id, project_id, workspace_id, type)
    CROSS JOIN LATERAL (SELECT coalesce(nullif(a.workspace_id, '')::uuid,
                                        (SELECT p.workspace_id FROM projects p WHERE p.id = nullif(a.project_id, '')::uuid)) AS id) ws
    JOIN webhooks w ON w.workspace_id = ws.id AND w.enabled
    WHERE a.type = ANY (w.events) OR '*' = ANY (w.events);
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
DROP TABLE webhook_deliveries, webhooks;
