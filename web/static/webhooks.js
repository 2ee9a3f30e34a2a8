// @ts-check
// The workspace's webhooks, for its admins: created (the signing secret shown once, beside how to verify
// a signature), their events chosen from the API's types, turned on and off, tested with a ping, their
// secret rotated, deleted; each one's deliveries (status, attempts, the answer's code, the next attempt)
// and redelivering one. Others see that only admins manage them. Loaded with import() when first opened.
import { html, useState, useEffect, useRef, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, When, humanize, announce, copyText } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';

/** @typedef {api.Schemas['WebhookOut']} Webhook */
/** @typedef {api.Schemas['WebhookDeliveryOut']} Delivery */
/** @typedef {NonNullable<api.Schemas['CreateWebhookInputBody']['events']>[number]} EventType */

const HOOKS = '/orgs/{orgSlug}/workspaces/{wsSlug}/webhooks';
const HOOK = '/orgs/{orgSlug}/workspaces/{wsSlug}/webhooks/{webhookId}';

/** Every event type of the API's enum ("*" apart), typed by it: one added or removed fails the type-check. */
/** @type {Record<Exclude<EventType, '*'>, true>} */
const eventSet = {
  card_created: true, card_updated: true, card_moved: true, card_archived: true, card_deleted: true, card_assigned: true,
  comment_added: true, comment_deleted: true, member_added: true, member_removed: true, due_date_reached: true,
  project_created: true, project_updated: true, project_deleted: true, document_created: true, document_updated: true,
  document_submitted: true, document_reviewed: true, mission_status_changed: true, mission_question: true, pipeline_run_finished: true,
  pipeline_notice: true, pilotage_record_created: true, pilotage_record_updated: true, pilotage_record_deleted: true,
  pilotage_action_proposed: true, pilotage_action_reviewed: true, pilotage_action_applied: true, webhook_disabled: true,
  automation_rules_disabled: true,
};
const eventTypes = /** @type {Exclude<EventType, '*'>[]} */ (Object.keys(eventSet));

/** How a receiver checks a delivery's signature (docs/webhooks.md), shown beside a new secret. */
const verifyExample = `func verify(secret string, h http.Header, body []byte) bool {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	ts, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > 5*time.Minute {
		return false // too old or too new: a replay
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.%s", h.Get("webhook-id"), ts, body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return slices.ContainsFunc(strings.Fields(h.Get("webhook-signature")),
		func(s string) bool { return hmac.Equal([]byte(s), []byte(want)) })
}`;

/** The events a webhook listens to, in words. @param {string[]|null} events */
function eventWords(events) {
  if (!events?.length) return 'nothing';
  if (events.includes('*')) return 'every event';
  return events.map(humanize).join(', ');
}

/** Whether the caller administers the workspace (only admins may see and use webhooks). @param {{org: string, ws: string}} p */
function useAdmin({ org, ws }) {
  return useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}', { orgSlug: org, wsSlug: ws }, undefined, s)
    .then((w) => w.myRole === 'admin'), [org, ws]);
}

/** @param {{org: string, ws: string}} props */
function NotAdmin({ org, ws }) {
  return html`<p class="muted" data-empty="not-admin">Only the workspace’s admins manage its webhooks, which send its events to other services. Ask one of them: they are listed in <a href=${`/w/${org}/${ws}/members`}>Members</a>.</p>`;
}

/** @param {{org: string, ws: string}} props */
export function Webhooks({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const admin = useAdmin({ org, ws });
  const list = useLoad((s) => (admin.data ? api.getAll(HOOKS, params, undefined, s) : Promise.resolve(null)), [org, ws, admin.data]);
  const [created, setCreated] = useState(/** @type {api.Schemas['WebhookWithSecretOut']|null} */ (null));
  const base = `/w/${org}/${ws}`;
  const head = html`<h1>Webhooks</h1>
    <p class="hint">A webhook sends the workspace’s events (a card created, moved, a comment…) as signed JSON POSTs to a URL of yours, retried for a day until it answers 2xx.</p>`;
  if (admin.error) return html`${head}<${ErrorMessage} error=${admin.error} />`;
  if (admin.data === undefined) return html`${head}<${Loading} />`;
  if (!admin.data) return html`${head}<${NotAdmin} org=${org} ws=${ws} />`;
  return html`${head}
    ${created ? html`<${SecretShown} title=${`Your new webhook to ${created.url}`} secret=${created.secret}
        onDone=${() => { const id = created.id; setCreated(null); navigate(`${base}/webhooks/${id}`); }} doneLabel="Open the webhook" />`
      : html`<${HookForm} params=${params} onDone=${(/** @type {any} */ w) => { setCreated(w); list.reload(); }} />`}
    <section class="panel" aria-labelledby="hooks-h">
      <h2 id="hooks-h">The workspace’s webhooks</h2>
      <${ErrorMessage} error=${list.error} />
      ${list.loading && !list.data ? html`<${Loading} />` : !list.data?.length
        ? html`<p class="muted" data-empty="webhooks">No webhook yet. Create one above with the URL of a service that should hear of the workspace’s events.</p>`
        : html`<ul class="hooks">${list.data.map((w) => html`<li key=${w.id} data-webhook-id=${w.id}>
            <a href=${`${base}/webhooks/${w.id}`}><strong>${w.description || w.url}</strong></a>
            ${w.description && html` <span class="muted">${w.url}</span>`}
            <span class=${'tag ' + (w.enabled ? 'ok' : 'warn')}>${w.enabled ? 'On' : 'Off'}</span>
            <br /><span class="muted">Sends ${eventWords(w.events)}${w.consecutiveFailures > 0 ? ` · ${w.consecutiveFailures} deliveries failed in a row` : ''}</span>
          </li>`)}</ul>`}
    </section>`;
}

/**
 * A secret shown once, with its copy button and how to verify a signature with it.
 * @param {{title: string, secret: string, onDone: () => void, doneLabel: string}} props
 */
function SecretShown({ title, secret, onDone, doneLabel }) {
  const [copied, setCopied] = useState(false);
  const ref = useRef(/** @type {HTMLElement|null} */ (null));
  useEffect(() => { ref.current?.focus(); }, [secret]);
  return html`<section class="panel secret-shown" tabindex="-1" ref=${ref} aria-labelledby="secret-h">
    <h2 id="secret-h">${title}</h2>
    <div class="secret-grid">
      <div>
        <p>Its signing secret, <strong>shown only this once</strong>: keep it where your receiver reads it.</p>
        <p><code class="secret" data-secret=${secret}>${secret}</code></p>
        <div class="actions">
          <button type="button" class="secondary" onClick=${async () => setCopied(await copyText(secret))}>Copy the secret</button>
          <button type="button" onClick=${onDone}>${doneLabel}</button>
          ${copied && html`<span class="muted" role="status">Copied.</span>`}
        </div>
      </div>
      <div>
        <p>Each delivery carries <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers (Standard Webhooks). Check the raw body before parsing it, in Go:</p>
        <pre class="code" tabindex="0" aria-label="How to verify a signature, in Go"><code>${verifyExample}</code></pre>
      </div>
    </div>
  </section>`;
}

/** The event checkboxes: every event, or some. @param {{id: string, value: string[], onChange: (v: string[]) => void}} props */
function EventPicker({ id, value, onChange }) {
  const all = value.includes('*');
  return html`<fieldset class="events">
    <legend>Events it sends</legend>
    <div class="check"><input type="checkbox" id=${id + '-all'} checked=${all} onChange=${(/** @type {any} */ e) => onChange(e.currentTarget.checked ? ['*'] : [])} />
      <label for=${id + '-all'}>Every event, including those added later</label></div>
    <div class="event-grid">
      ${eventTypes.map((t) => html`<div class="check" key=${t}><input type="checkbox" id=${`${id}-${t}`} value=${t} disabled=${all}
        checked=${all || value.includes(t)} onChange=${(/** @type {any} */ e) => onChange(e.currentTarget.checked ? [...value, t] : value.filter((x) => x !== t))} />
        <label for=${`${id}-${t}`}>${humanize(t)}</label></div>`)}
    </div>
  </fieldset>`;
}

/**
 * Creating a webhook, or editing one (its URL, description and events).
 * @param {{params: Record<string,string>, hook?: Webhook, onDone: (w: any) => void, onCancel?: () => void}} props
 */
function HookForm({ params, hook, onDone, onCancel }) {
  const [url, setUrl] = useState(hook?.url || '');
  const [description, setDescription] = useState(hook?.description || '');
  const [events, setEvents] = useState(/** @type {string[]} */ (hook?.events || []));
  const [run, busy, error, setError] = useAction();
  const id = hook ? 'edit-hook' : 'new-hook';
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    if (!events.length) { setError(new Error('Choose at least one event to send, or every event.')); return; }
    const body = { url: url.trim(), description: description.trim(), events: /** @type {EventType[]} */ (events) };
    run(async () => {
      const w = hook ? await api.patch(HOOK, { ...params, webhookId: hook.id }, body) : await api.post(HOOKS, params, body);
      if (!hook) { setUrl(''); setDescription(''); setEvents([]); }
      onDone(w);
    });
  };
  return html`<form class="panel hook-form" aria-labelledby=${id + '-h'} onSubmit=${submit}>
    <h2 id=${id + '-h'}>${hook ? 'Edit the webhook' : 'New webhook'}</h2>
    <label for=${id + '-url'}>URL</label>
    <input id=${id + '-url'} type="url" required placeholder="https://example.com/hooks/pilot" value=${url} onInput=${(/** @type {any} */ e) => setUrl(e.currentTarget.value)} />
    <label for=${id + '-description'}>Description</label>
    <input id=${id + '-description'} maxlength="500" value=${description} onInput=${(/** @type {any} */ e) => setDescription(e.currentTarget.value)} aria-describedby=${id + '-description-hint'} />
    <p id=${id + '-description-hint'} class="hint">What receives it, such as “Chat notifications”. Optional.</p>
    <${EventPicker} id=${id + '-event'} value=${events} onChange=${setEvents} />
    <${ErrorMessage} error=${error} />
    <div class="actions">
      <button type="submit" disabled=${busy}>${hook ? 'Save the webhook' : 'Create the webhook'}</button>
      ${onCancel && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel</button>`}
    </div>
  </form>`;
}

/** A webhook's page. @param {{org: string, ws: string, webhook: string}} props */
export function WebhookPage({ org, ws, webhook }) {
  const p = { orgSlug: org, wsSlug: ws, webhookId: webhook };
  const admin = useAdmin({ org, ws });
  const hook = useLoad((s) => (admin.data ? api.get(HOOK, p, undefined, s) : Promise.resolve(null)), [org, ws, webhook, admin.data]);
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState('');
  const [run, busy, error] = useAction();
  const [tick, setTick] = useState(0);
  const base = `/w/${org}/${ws}/webhooks`;
  if (admin.error || hook.error) return html`<h1>Webhook</h1><${ErrorMessage} error=${admin.error || hook.error} /><p><a href=${base}>All webhooks</a></p>`;
  if (admin.data === false) return html`<h1>Webhook</h1><${NotAdmin} org=${org} ws=${ws} />`;
  if (!hook.data) return html`<h1>Webhook</h1><${Loading} />`;
  const w = hook.data;
  return html`<h1>Webhook to ${w.url}</h1>
    <p><a href=${base}>All webhooks</a></p>
    ${secret && html`<${SecretShown} title="Its new signing secret" secret=${secret} onDone=${() => setSecret('')} doneLabel="Done" />`}
    ${editing ? html`<${HookForm} params=${{ orgSlug: org, wsSlug: ws }} hook=${w} onCancel=${() => setEditing(false)}
        onDone=${(/** @type {Webhook} */ x) => { hook.set(x); setEditing(false); announce('Webhook saved'); }} />`
      : html`<section class="panel" aria-labelledby="hook-h">
        <h2 id="hook-h">${w.description || 'Its settings'} <span class=${'tag ' + (w.enabled ? 'ok' : 'warn')} data-enabled=${String(w.enabled)}>${w.enabled ? 'On' : 'Off'}</span></h2>
        <p>Sends <span data-events>${eventWords(w.events)}</span> to <code>${w.url}</code>.</p>
        ${w.disabledReason && html`<p class="error">Turned off by its deliveries: ${w.disabledReason}. Fix the receiver, then turn it on again.</p>`}
        ${w.consecutiveFailures > 0 && html`<p class="muted">${w.consecutiveFailures} deliveries in a row failed for good.</p>`}
        ${w.previousSecretExpiresAt && new Date(w.previousSecretExpiresAt).getTime() > Date.now() && html`<p class="muted">The previous secret still signs beside the new one until <${When} iso=${w.previousSecretExpiresAt} />.</p>`}
        <p class="muted">Created <${When} iso=${w.createdAt} />.</p>
        <div class="actions">
          <button type="button" onClick=${() => setEditing(true)}>Edit the webhook</button>
          <button type="button" class="secondary" disabled=${busy} onClick=${() => run(async () => {
            const x = await api.patch(HOOK, p, { enabled: !w.enabled });
            hook.set(x);
            announce(`Webhook turned ${x.enabled ? 'on' : 'off'}`);
          })}>${w.enabled ? 'Turn off' : 'Turn on'}</button>
          <button type="button" class="secondary" disabled=${busy} onClick=${() => run(async () => {
            await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/webhooks/{webhookId}/test', p);
            announce('Test ping sent');
            setTick((t) => t + 1);
          })}>Send a test ping</button>
          <${ConfirmButton} label="Rotate the secret" title="Rotate the signing secret?" confirmLabel="Rotate the secret" className="secondary"
            detail=${html`<p>A new secret signs the deliveries from now on, shown once. The old one keeps signing beside it for 24 hours, so your receiver can switch within the day.</p>`}
            onConfirm=${async () => { const x = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/webhooks/{webhookId}/rotate-secret', p); setSecret(x.secret); hook.set(x); }} />
          <${ConfirmButton} label="Delete the webhook" title=${`Delete the webhook to ${w.url}?`} confirmLabel="Delete the webhook"
            detail=${html`<p>Nothing is sent to it any more, and its deliveries are deleted with it. This cannot be undone.</p>`}
            onConfirm=${async () => { await api.del(HOOK, p); announce('Webhook deleted'); navigate(base); }} />
        </div>
        <${ErrorMessage} error=${error} />
      </section>`}
    <${Deliveries} p=${p} tick=${tick} />`;
}

/** A webhook's deliveries, newest first, read again while one is pending. @param {{p: Record<string,string>, tick: number}} props */
function Deliveries({ p, tick }) {
  const list = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/webhooks/{webhookId}/deliveries', p, { limit: 50 }, s), [p.webhookId, tick]);
  const [run, busy, error] = useAction();
  const pending = list.data?.some((d) => d.status === 'pending');
  const reload = list.reload;
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(reload, 2000);
    return () => clearTimeout(t);
  }, [pending, list.data]);
  return html`<section class="panel" aria-labelledby="deliveries-h">
    <h2 id="deliveries-h">Deliveries</h2>
    <p class="actions"><button type="button" class="secondary" onClick=${reload} disabled=${list.loading}>Refresh</button></p>
    <${ErrorMessage} error=${list.error || error} />
    ${list.loading && !list.data ? html`<${Loading} />` : !list.data?.length
      ? html`<p class="muted" data-empty="deliveries">Nothing sent yet. Send a test ping to try the receiver, or wait for an event it listens to.</p>`
      : html`<div class="table-wrap"><table class="settings-table deliveries">
        <caption class="visually-hidden">The webhook’s deliveries, newest first</caption>
        <thead><tr><th scope="col">Event</th><th scope="col">Made</th><th scope="col">Status</th><th scope="col">Attempts</th>
          <th scope="col">Answer</th><th scope="col">Last attempt</th><th scope="col">Next attempt</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${list.data.map((d) => html`<tr key=${d.id} data-delivery-id=${d.id} data-status=${d.status}>
          <td>${humanize(d.event)}</td>
          <td><${When} iso=${d.createdAt} /></td>
          <td><span class=${'status ' + d.status}>${humanize(d.status)}</span></td>
          <td data-attempts>${d.attempts}</td>
          <td>${d.responseStatus ? html`<span data-code>${d.responseStatus}</span>${d.durationMs !== null && html` <span class="muted">in ${d.durationMs} ms</span>`}` : html`<span class="muted">none</span>`}
            ${d.error && html`<br /><span class="error">${d.error}</span>`}</td>
          <td>${d.lastAttemptAt ? html`<${When} iso=${d.lastAttemptAt} />` : html`<span class="muted">not yet</span>`}</td>
          <td>${d.nextAttemptAt ? html`<${When} iso=${d.nextAttemptAt} />` : html`<span class="muted">none</span>`}</td>
          <td><button type="button" class="secondary" disabled=${busy} aria-label=${`Redeliver the ${humanize(d.event).toLowerCase()} delivery made ${new Date(d.createdAt).toLocaleString()}`}
            onClick=${() => run(async () => {
              const x = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { ...p, deliveryId: d.id });
              announce('Redelivery asked');
              list.set((ds) => ds?.map((y) => (y.id === x.id ? x : y)));
              reload();
            })}>Redeliver</button></td>
        </tr>`)}</tbody>
      </table></div>`}
  </section>`;
}
