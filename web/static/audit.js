// @ts-check
// The audit log (docs/audit.md): an organization's, for its owners and admins, filtered by actor, kind
// and time, paged by keyset ("Load more") and exported as JSON lines or CSV; and a person's own account
// activity on /settings. Loaded when one of them first opens.
import { html, useState, useEffect, useLoad, ErrorMessage, Loading, When, humanize, formValues } from './ui.js';
import * as api from './api.js';

const ORG = '/organizations/{orgSlug}';
const ORG_MEMBERS = '/organizations/{orgSlug}/members';
const AUDIT = '/organizations/{orgSlug}/audit-log';
const EXPORT = '/organizations/{orgSlug}/audit-log/export';
const ACCOUNT = '/auth/audit-log';

/** @typedef {api.Schemas['AuditEntryOut']} Entry */
/** @typedef {Entry['kind']} Kind */

/** Every kind of the API's enum (a kind missing here fails the type check). @type {Record<Kind, 1>} */
const KINDS = {
  sign_in: 1, sign_in_failed: 1, password_changed: 1, password_reset: 1, two_factor_enabled: 1,
  two_factor_disabled: 1, session_ended: 1, token_created: 1, token_revoked: 1, sso_linked: 1, sso_unlinked: 1,
  member_invited: 1, invitation_revoked: 1, member_added: 1, member_changed: 1, member_removed: 1,
  webhook_created: 1, webhook_changed: 1, webhook_deleted: 1, automation_created: 1, automation_changed: 1,
  automation_deleted: 1, pipeline_created: 1, pipeline_changed: 1, pipeline_deleted: 1, project_exported: 1,
  project_imported: 1, organization_deleted: 1, workspace_deleted: 1, project_deleted: 1, plugin_installed: 1,
  plugin_uninstalled: 1, plugin_settings_changed: 1,
};
const kinds = /** @type {Kind[]} */ (Object.keys(KINDS));

/** What changed, in a line: each field and its value (before → after when both are named). @param {Record<string, any>} c */
function changesText(c) {
  const show = (/** @type {any} */ v) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  if (c.before && c.after && typeof c.before === 'object' && typeof c.after === 'object') {
    const keys = [...new Set([...Object.keys(c.before), ...Object.keys(c.after)])]
      .filter((k) => JSON.stringify(c.before[k]) !== JSON.stringify(c.after[k]));
    return keys.map((k) => `${humanize(k)}: ${show(c.before[k])} → ${show(c.after[k])}`).join('; ');
  }
  return Object.entries(c).map(([k, v]) => `${humanize(k)}: ${show(v)}`).join('; ');
}

/**
 * Pages of a keyset list: the entries so far, and "Load more" while there is a next page.
 * @param {(cursor: string|undefined, signal?: AbortSignal) => Promise<{items: Entry[], next: string|null}>} load
 * @param {unknown[]} deps
 */
function usePages(load, deps) {
  const [state, setState] = useState(/** @type {{items: Entry[], next: string|null, loading: boolean, error: unknown}} */ ({ items: [], next: null, loading: true, error: null }));
  useEffect(() => {
    const ctl = new AbortController();
    setState({ items: [], next: null, loading: true, error: null });
    load(undefined, ctl.signal).then((p) => { if (!ctl.signal.aborted) setState({ items: p.items, next: p.next, loading: false, error: null }); },
      (error) => { if (!ctl.signal.aborted && error?.name !== 'AbortError') setState((s) => ({ ...s, loading: false, error })); });
    return () => ctl.abort();
  }, deps);
  const more = () => {
    if (!state.next) return;
    setState((s) => ({ ...s, loading: true }));
    load(state.next).then((p) => setState((s) => ({ items: [...s.items, ...p.items], next: p.next, loading: false, error: null })),
      (error) => setState((s) => ({ ...s, loading: false, error })));
  };
  return { ...state, more };
}

/** @param {{pages: ReturnType<typeof usePages>, what: string}} props */
function LoadMore({ pages, what }) {
  if (!pages.next) return null;
  return html`<p><button type="button" class="secondary" data-more disabled=${pages.loading} onClick=${pages.more}>Load more ${what}</button></p>`;
}

/** A datetime-local value as RFC 3339 ('' stays ''). @param {string} v */
const isoOf = (v) => (v ? new Date(v).toISOString() : '');

/** The organization's audit log, for its owners and admins. @param {{org: string, ws: string}} props */
export function AuditLog({ org, ws }) {
  const params = { orgSlug: org };
  const info = useLoad((s) => api.get(ORG, params, undefined, s), [org]);
  const role = info.data?.myRole;
  const admin = role === 'owner' || role === 'admin';
  const back = html`<p><a href=${`/w/${org}/${ws}/settings/organization`}>Organization settings</a></p>`;
  if (info.error) return html`<h1>Audit log</h1><${ErrorMessage} error=${info.error} />`;
  if (!info.data) return html`<h1>Audit log</h1><${Loading} />`;
  if (!admin) {
    return html`<h1>Audit log</h1>
      <p class="panel" role="alert" data-refused="audit">Only the owners and admins of ${info.data.name} can read its audit log: it names every member's sign-in addresses and devices. Ask one of them if you need to know who did something.</p>${back}`;
  }
  return html`<${OrgAudit} org=${org} name=${info.data.name} back=${back} />`;
}

/** @param {{org: string, name: string, back: any}} props */
function OrgAudit({ org, name, back }) {
  const params = { orgSlug: org };
  const members = useLoad((s) => api.getAll(ORG_MEMBERS, params, undefined, s), [org]);
  const [filter, setFilter] = useState(/** @type {{actor: string, kind: string, since: string, until: string}} */ ({ actor: '', kind: '', since: '', until: '' }));
  const query = { actor: filter.actor || undefined, kind: /** @type {any} */ (filter.kind || undefined),
    since: filter.since || undefined, until: filter.until || undefined };
  const pages = usePages((cursor, signal) => api.getPage(AUDIT, params, { ...query, cursor, limit: 50 }, signal),
    [org, filter.actor, filter.kind, filter.since, filter.until]);
  /** @type {Record<string, string>} */
  const names = {};
  for (const m of members.data || []) names[m.userId] = m.name || m.email;
  const qs = new URLSearchParams(Object.entries(query).filter(([, v]) => v).map(([k, v]) => [k, String(v)])).toString();
  const exportURL = (/** @type {string} */ format) => api.href(EXPORT, params) + '?' + (qs ? qs + '&' : '') + 'format=' + format;
  const filtered = Object.values(filter).some(Boolean);
  return html`<h1>Audit log</h1>
    ${back}
    <p class="hint">Security and administration events of ${name}: who did what, when, and from where. Entries are never changed.</p>
    <form class="panel audit-filters" aria-label="Filter the audit log" onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      setFilter({ actor: v.actor, kind: v.kind, since: isoOf(v.since), until: isoOf(v.until) });
    }}>
      <label for="audit-actor">Who</label>
      <select id="audit-actor" name="actor">
        <option value="">Anyone</option>
        ${(members.data || []).map((m) => html`<option value=${m.userId}>${m.name || m.email}</option>`)}
      </select>
      <label for="audit-kind">What</label>
      <select id="audit-kind" name="kind">
        <option value="">Any event</option>
        ${kinds.map((k) => html`<option value=${k}>${humanize(k)}</option>`)}
      </select>
      <label for="audit-since">From</label>
      <input id="audit-since" name="since" type="datetime-local" />
      <label for="audit-until">Before</label>
      <input id="audit-until" name="until" type="datetime-local" />
      <button type="submit">Filter</button>
      ${filtered && html`<button type="reset" class="secondary" onClick=${() => setFilter({ actor: '', kind: '', since: '', until: '' })}>Show everything</button>`}
    </form>
    <p class="audit-export">
      <a class="button secondary" data-native download href=${exportURL('jsonl')}>Export as JSON lines</a>
      <a class="button secondary" data-native download href=${exportURL('csv')}>Export as CSV</a>
    </p>
    <${ErrorMessage} error=${pages.error || members.error} />
    ${pages.loading && pages.items.length === 0 ? html`<${Loading} />` : pages.items.length === 0
      ? html`<p class="muted" data-empty="audit">${filtered ? 'No event matches these filters. Widen them, or show everything.' : 'Nothing recorded yet. Invitations, role changes, webhooks, automations, pipelines, exports and deletions will show here.'}</p>`
      : html`<div class="table-scroll"><table class="audit">
        <caption class="visually-hidden">Audit log of ${name}, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">On</th>
          <th scope="col">From</th><th scope="col">Client</th><th scope="col">Changes</th></tr></thead>
        <tbody>${pages.items.map((x) => html`<tr data-audit=${x.kind}>
          <td><${When} iso=${x.at} /></td>
          <td>${x.actorId ? names[x.actorId] || x.actorEmail || 'A former member' : x.actorEmail || 'Nobody signed in'}</td>
          <td>${humanize(x.kind)}</td>
          <td>${x.targetType && html`<span class="muted">${humanize(x.targetType)}</span> `}${x.targetName || x.targetId}</td>
          <td>${x.clientIp || '—'}</td>
          <td class="audit-agent">${x.userAgent || '—'}</td>
          <td class="audit-changes">${changesText(x.changes)}</td>
        </tr>`)}</tbody>
      </table></div>`}
    <${LoadMore} pages=${pages} what="events" />`;
}

/** The signed-in person's account events: sign-ins, password, second factor, sessions, tokens, links. */
export function AccountActivity() {
  const pages = usePages((cursor, signal) => api.getPage(ACCOUNT, {}, { cursor, limit: 20 }, signal), []);
  return html`<section class="panel" aria-labelledby="activity-h">
    <h2 id="activity-h">Your account's activity</h2>
    <p class="hint">Sign-ins (and failed ones), password and second-factor changes, sessions ended, tokens and sign-in providers. If you do not recognize something, change your password and end your other sessions.</p>
    <${ErrorMessage} error=${pages.error} />
    ${pages.loading && pages.items.length === 0 ? html`<${Loading} />` : pages.items.length === 0
      ? html`<p class="muted">Nothing recorded yet.</p>`
      : html`<div class="table-scroll"><table class="audit account-activity">
        <thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">From</th><th scope="col">Client</th><th scope="col">Details</th></tr></thead>
        <tbody>${pages.items.map((x) => html`<tr data-audit=${x.kind}>
          <td><${When} iso=${x.at} /></td>
          <td>${humanize(x.kind)}</td>
          <td>${x.clientIp || '—'}</td>
          <td class="audit-agent">${x.userAgent || '—'}</td>
          <td class="audit-changes">${[x.targetName, changesText(x.changes)].filter(Boolean).join(' · ')}</td>
        </tr>`)}</tbody>
      </table></div>`}
    <${LoadMore} pages=${pages} what="activity" />
  </section>`;
}
