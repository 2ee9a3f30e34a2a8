// @ts-check
// The tracker's views of cards besides the board: a project's list (a sortable, filterable table with
// bulk actions) and "My work" (the cards assigned to me across the workspace, by due date). Loaded on
// first use (switcher.js). Filters and sort live in the URL's query, so a link opens the same view.
import { html, useState, useEffect, useMemo, useRef, useLoad, ErrorMessage, Loading, ConfirmButton, humanize, announce, dueDay, dueValue, todayDay } from './ui.js';
import * as api from './api.js';
import { watchWorkspace } from './live.js';
import { ViewSwitcher } from './switcher.js';

/** @typedef {api.Schemas['CardOut']} Card */
/** @typedef {api.Schemas['ColumnOut']} Column */

const cardPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}';

// Due dates are days: the app sets them at that day's midnight UTC (ui.js dueValue), and a due date's day
// is the same calendar day in every time zone (ui.js dueDay), as the card's date picker shows it.

/** The day (YYYY-MM-DD) of a due date, or ''. @param {string|null|undefined} iso */
export function dayOf(iso) { return dueDay(iso); }

/** Today (YYYY-MM-DD) in the person's time zone. */
export function today() { return todayDay(); }

/** A day (YYYY-MM-DD) as a Date at midnight UTC. @param {string} day */
export function dayDate(day) { return new Date(day + 'T00:00:00Z'); }

/** The day n days after day. @param {string} day @param {number} n */
export function addDays(day, n) {
  const d = dayDate(day);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** The weekday a week starts on in the person's locale (0 Sunday … 6 Saturday); Monday when unknown. */
export function firstWeekday() {
  try {
    const loc = /** @type {any} */ (new Intl.Locale(navigator.language || 'en'));
    const info = typeof loc.getWeekInfo === 'function' ? loc.getWeekInfo() : loc.weekInfo;
    if (info && info.firstDay) return info.firstDay % 7;
  } catch { /* an old browser: Monday */ }
  return 1;
}

/** The first day of the week holding day. @param {string} day */
export function weekStartOf(day) { return addDays(day, -((dayDate(day).getUTCDay() - firstWeekday() + 7) % 7)); }

/** A day in the person's language. @param {string} day @param {Intl.DateTimeFormatOptions} [o] */
export function formatDay(day, o = { year: 'numeric', month: 'short', day: 'numeric' }) {
  return day ? dayDate(day).toLocaleDateString(undefined, { ...o, timeZone: 'UTC' }) : '';
}

/**
 * A due date moved to day, keeping its time of day (in the person's time zone) when it has one; a day
 * without one (midnight UTC, or midnight where the person is) is that day's midnight UTC, as the card's
 * date picker sets it (ui.js dueValue).
 * @param {string|null} iso @param {string} day
 */
export function dueOn(iso, day) {
  const d = iso ? new Date(iso) : null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return null;
  if (!d || isNaN(d.getTime()) || d.toISOString().endsWith('T00:00:00.000Z')
    || (d.getHours() === 0 && d.getMinutes() === 0 && d.getSeconds() === 0)) return dueValue(day);
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), d.getHours(), d.getMinutes(), d.getSeconds()).toISOString();
}

/**
 * A project's data for its views: the project, its columns in order, its cards, labels and the
 * workspace's members.
 * @param {{orgSlug: string, wsSlug: string, projectId: string}} params @param {AbortSignal} signal
 */
export async function loadProject(params, signal) {
  const [proj, columns, cards, labels, members] = await Promise.all([
    api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}', params, undefined, signal),
    api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns', params, undefined, signal),
    api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards', params, { archived: 'false' }, signal),
    api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/labels', params, undefined, signal),
    api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/members', params, undefined, signal),
  ]);
  return { proj, columns: [...columns].sort((a, b) => a.order - b.order), cards: cards.filter((c) => !c.archived), labels, members };
}

/** Writes the query (empty values left out) into the address bar, without a new history entry. @param {Record<string,string>} q */
export function replaceQuery(q) {
  const s = new URLSearchParams(Object.entries(q).filter(([, v]) => v)).toString();
  history.replaceState(history.state, '', location.pathname + (s ? '?' + s : ''));
}

const rank = { high: 0, medium: 1, low: 2 };
/** @type {[string, string][]} */
const sortable = [['title', 'Title'], ['column', 'Column'], ['priority', 'Priority'], ['assignee', 'Assignee'], ['due', 'Due'], ['labels', 'Labels']];
const filterKeys = ['q', 'column', 'priority', 'assignee', 'label'];

/** @param {{org: string, ws: string, project: string, query: URLSearchParams}} props */
export function ProjectList({ org, ws, project, query }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  const data = useLoad((signal) => loadProject(params, signal), [org, ws, project]);
  const [f, setF] = useState(() => {
    /** @type {Record<string,string>} */
    const o = { sort: query.get('sort') || 'column', dir: query.get('dir') === 'desc' ? 'desc' : 'asc' };
    for (const k of filterKeys) o[k] = query.get(k) || '';
    return o;
  });
  useEffect(() => replaceQuery({ ...f, sort: f.sort === 'column' ? '' : f.sort, dir: f.dir === 'asc' ? '' : f.dir }), [f]);
  useEffect(() => watchWorkspace(org, ws, (evs) => { if (!evs || evs.some((e) => e.projectId === project)) data.reload(); }), [org, ws, project]);
  const [selected, setSelected] = useState(/** @type {Set<string>} */ (new Set()));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState(/** @type {{text: string, failed: {title: string, error: unknown}[]}|null} */ (null));

  const d = data.data;
  const names = useMemo(() => new Map((d?.members || []).map((m) => [m.userId, m.name || m.email])), [d]);
  const colIndex = useMemo(() => new Map((d?.columns || []).map((c, i) => [c.id, i])), [d]);
  const rows = useMemo(() => {
    if (!d) return [];
    const q = f.q.trim().toLowerCase();
    const out = d.cards.filter((c) => (!q || c.title.toLowerCase().includes(q))
      && (!f.column || c.columnId === f.column) && (!f.priority || c.priority === f.priority)
      && (!f.assignee || (f.assignee === 'none' ? !c.assigneeId : c.assigneeId === f.assignee))
      && (!f.label || c.labels.some((l) => l.id === f.label)));
    /** @type {(c: Card) => string|number} */
    const key = {
      title: (/** @type {Card} */ c) => c.title.toLowerCase(),
      column: (/** @type {Card} */ c) => (colIndex.get(c.columnId) ?? 99) * 1e12 + c.order,
      priority: (/** @type {Card} */ c) => rank[c.priority],
      assignee: (/** @type {Card} */ c) => (c.assigneeId ? (names.get(c.assigneeId) || '').toLowerCase() : '\uffff'),
      due: (/** @type {Card} */ c) => dayOf(c.dueDate) || '\uffff',
      labels: (/** @type {Card} */ c) => c.labels.map((l) => l.name.toLowerCase()).sort().join(',') || '\uffff',
    }[f.sort] || ((/** @type {Card} */ c) => c.title);
    const sign = f.dir === 'desc' ? -1 : 1;
    return out.sort((a, b) => { const x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : a.title.localeCompare(b.title)) * sign; });
  }, [d, f, names, colIndex]);
  const chosen = rows.filter((c) => selected.has(c.id));
  const allBox = useRef(/** @type {HTMLInputElement|null} */ (null));
  useEffect(() => { if (allBox.current) allBox.current.indeterminate = chosen.length > 0 && chosen.length < rows.length; });

  if (data.error && !d) return html`<${ErrorMessage} error=${data.error} />`;
  if (!d) return html`<${Loading} />`;
  const { proj, columns, labels, members } = d;
  const board = `/w/${org}/${ws}/p/${project}`;
  /** @param {string} k @param {string} v */
  const set = (k, v) => setF({ ...f, [k]: v });
  const filtered = filterKeys.some((k) => f[k]);
  /** @param {string} id */
  const toggle = (id) => { const s = new Set(selected); if (s.has(id)) s.delete(id); else s.add(id); setSelected(s); };

  /**
   * Applies act to each chosen card, one request each, then says how many succeeded (verb) and which
   * failed with the API's message; the failed ones stay selected.
   * @param {string} verb @param {(c: Card) => Promise<unknown>} act
   */
  const bulk = async (verb, act) => {
    const targets = chosen;
    if (!targets.length) return;
    setBusy(true);
    setOutcome(null);
    /** @type {{title: string, id: string, error: unknown}[]} */
    const failed = [];
    for (const c of targets) {
      try { await act(c); } catch (error) { failed.push({ title: c.title, id: c.id, error }); }
    }
    const text = `${targets.length - failed.length} ${verb}` + (failed.length ? `, ${failed.length} failed.` : '.');
    setOutcome({ text, failed });
    announce(text);
    setSelected(new Set(failed.map((x) => x.id)));
    setBusy(false);
    data.reload();
  };
  /** @param {Event} e @param {string} name */
  const pick = (e, name) => {
    e.preventDefault();
    return /** @type {HTMLSelectElement} */ (/** @type {HTMLFormElement} */ (e.currentTarget).elements.namedItem(name)).value;
  };
  /** @param {Card} c @param {api.Schemas['UpdateCardInputBody']} body */
  const patch = (c, body) => api.patch(cardPath, { ...params, cardId: c.id }, body);

  /** @param {string} k @param {string} label */
  const th = (k, label) => {
    const on = f.sort === k;
    return html`<th scope="col" aria-sort=${on ? (f.dir === 'asc' ? 'ascending' : 'descending') : undefined}>
      <button type="button" class="sort" onClick=${() => setF({ ...f, sort: k, dir: on && f.dir === 'asc' ? 'desc' : 'asc' })}>
        ${label}<span aria-hidden="true">${on ? (f.dir === 'asc' ? ' ▲' : ' ▼') : ''}</span></button></th>`;
  };

  return html`<div class="list-page">
    <div class="board-head">
      <h1>${proj.name}</h1>
      <${ViewSwitcher} org=${org} ws=${ws} project=${project} current="list" />
    </div>
    <form class="filters" aria-label="Filter cards" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <label>Title contains <input type="search" name="q" value=${f.q} onInput=${(/** @type {any} */ e) => set('q', e.currentTarget.value)} /></label>
      <label>Column <select name="column" value=${f.column} onChange=${(/** @type {any} */ e) => set('column', e.currentTarget.value)}>
        <option value="">Any</option>${columns.map((c) => html`<option value=${c.id}>${c.name}</option>`)}</select></label>
      <label>Priority <select name="priority" value=${f.priority} onChange=${(/** @type {any} */ e) => set('priority', e.currentTarget.value)}>
        <option value="">Any</option>${['high', 'medium', 'low'].map((p) => html`<option value=${p}>${humanize(p)}</option>`)}</select></label>
      <label>Assignee <select name="assignee" value=${f.assignee} onChange=${(/** @type {any} */ e) => set('assignee', e.currentTarget.value)}>
        <option value="">Anyone</option><option value="none">Nobody</option>${members.map((m) => html`<option value=${m.userId}>${m.name || m.email}</option>`)}</select></label>
      <label>Label <select name="label" value=${f.label} onChange=${(/** @type {any} */ e) => set('label', e.currentTarget.value)}>
        <option value="">Any</option>${labels.map((l) => html`<option value=${l.id}>${l.name}</option>`)}</select></label>
      ${filtered && html`<button type="button" class="secondary" onClick=${() => setF({ sort: f.sort, dir: f.dir, q: '', column: '', priority: '', assignee: '', label: '' })}>Clear filters</button>`}
    </form>
    <${ErrorMessage} error=${data.error} />
    ${chosen.length > 0 && html`<section class="bulk panel" aria-label="Bulk actions">
      <p><strong>${chosen.length} selected</strong></p>
      <div class="actions">
        <form class="inline" onSubmit=${(/** @type {Event} */ e) => { const to = pick(e, 'column'); const col = columns.find((c) => c.id === to); bulk(`moved to ${col?.name}`, (c) => patch(c, { columnId: to })); }}>
          <label>Move to <select name="column">${columns.map((c) => html`<option value=${c.id}>${c.name}</option>`)}</select></label>
          <button type="submit" disabled=${busy}>Move</button></form>
        <form class="inline" onSubmit=${(/** @type {Event} */ e) => { const who = pick(e, 'assignee'); bulk(who ? 'assigned' : 'unassigned', (c) => patch(c, { assigneeId: who || null })); }}>
          <label>Assign to <select name="assignee"><option value="">Nobody</option>${members.map((m) => html`<option value=${m.userId}>${m.name || m.email}</option>`)}</select></label>
          <button type="submit" disabled=${busy}>Assign</button></form>
        ${labels.length > 0 && html`<form class="inline" onSubmit=${(/** @type {Event} */ e) => { const l = pick(e, 'label'); bulk('labelled', (c) => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/labels/{labelId}', { ...params, cardId: c.id, labelId: l })); }}>
          <label>Add label <select name="label">${labels.map((l) => html`<option value=${l.id}>${l.name}</option>`)}</select></label>
          <button type="submit" disabled=${busy}>Add label</button></form>`}
        <${ConfirmButton} label="Archive" title=${`Archive ${chosen.length} ${chosen.length === 1 ? 'card' : 'cards'}?`} disabled=${busy}
          detail=${html`<p>They leave the board, the list and the calendar; their history is kept.</p>`}
          onConfirm=${() => bulk('archived', (c) => patch(c, { archived: true }))} />
        <button type="button" class="secondary" onClick=${() => setSelected(new Set())}>Clear the selection</button>
      </div>
    </section>`}
    <div class="bulk-result" role="status">${outcome && html`<p>${outcome.text}</p>
      ${outcome.failed.length > 0 && html`<ul class="error">${outcome.failed.map((x) => html`<li>${x.title}: ${api.message(x.error)}</li>`)}</ul>`}`}</div>
    ${d.cards.length === 0 ? html`<p class="muted">This project has no card yet. <a href=${board}>Add cards on the board</a>.</p>`
      : rows.length === 0 ? html`<p class="muted">No card matches these filters. Change them or clear them to see every card.</p>`
      : html`<div class="table-wrap"><table class="card-table">
        <caption class="visually-hidden">Cards of ${proj.name}, ${rows.length} shown</caption>
        <thead><tr>
          <th scope="col"><input type="checkbox" ref=${allBox} aria-label="Select every card shown"
            checked=${chosen.length === rows.length} onChange=${(/** @type {any} */ e) => setSelected(e.currentTarget.checked ? new Set(rows.map((c) => c.id)) : new Set())} /></th>
          ${sortable.map(([k, label]) => th(k, label))}
        </tr></thead>
        <tbody>${rows.map((c) => html`<tr key=${c.id} data-card-id=${c.id} class=${selected.has(c.id) ? 'selected' : ''}>
          <td><input type="checkbox" aria-label=${'Select ' + c.title} checked=${selected.has(c.id)} onChange=${() => toggle(c.id)} /></td>
          <td><a href=${`${board}?card=${c.id}`}>${c.title}</a></td>
          <td>${columns.find((x) => x.id === c.columnId)?.name || ''}</td>
          <td><span class=${'priority ' + c.priority}>${humanize(c.priority)}</span></td>
          <td>${c.assigneeId ? names.get(c.assigneeId) || 'Someone' : html`<span class="muted">Nobody</span>`}</td>
          <td>${c.dueDate ? html`<time datetime=${dayOf(c.dueDate)} class=${dayOf(c.dueDate) < today() ? 'due overdue' : 'due'}>${formatDay(dayOf(c.dueDate))}</time>` : ''}</td>
          <td>${c.labels.length > 0 && html`<ul class="labels" aria-label="Labels">${c.labels.map((l) => html`<li class="label" style=${{ '--label': l.color }}>${l.name}</li>`)}</ul>`}</td>
        </tr>`)}</tbody>
      </table></div>`}
  </div>`;
}

/** @param {{org: string, ws: string}} props */
export function MyWork({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const data = useLoad(async (signal) => {
    const [cards, projects] = await Promise.all([
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/my-cards', params, undefined, signal),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects', params, undefined, signal),
    ]);
    return { cards, projects: new Map(projects.map((p) => [p.id, p.name])) };
  }, [org, ws]);
  useEffect(() => watchWorkspace(org, ws, () => data.reload()), [org, ws]);
  if (data.error && !data.data) return html`<h1>My work</h1><${ErrorMessage} error=${data.error} />`;
  if (!data.data) return html`<h1>My work</h1><${Loading} />`;
  const { cards, projects } = data.data;
  const now = today();
  const weekEnd = addDays(weekStartOf(now), 6);
  /** @type {[string, string, Card[]][]} */
  const groups = [['overdue', 'Overdue', []], ['week', 'Due this week', []], ['later', 'Later', []], ['none', 'No due date', []]];
  for (const c of cards) {
    const due = dayOf(c.dueDate);
    groups[!due ? 3 : due < now ? 0 : due <= weekEnd ? 1 : 2][2].push(c);
  }
  for (const [, , list] of groups) list.sort((a, b) => (dayOf(a.dueDate) || '\uffff').localeCompare(dayOf(b.dueDate) || '\uffff') || rank[a.priority] - rank[b.priority] || a.title.localeCompare(b.title));
  return html`<h1>My work</h1>
    <${ErrorMessage} error=${data.error} />
    ${cards.length === 0 ? html`<p class="muted">Nothing is assigned to you in this workspace. Cards assigned to you on any board appear here: <a href=${`/w/${org}/${ws}`}>open a project</a> and assign yourself a card.</p>`
      : groups.map(([k, title, list]) => html`<section class="my-group" aria-labelledby=${'my-' + k} data-group=${k}>
        <h2 id=${'my-' + k}>${title} <span class="count">(${list.length})</span></h2>
        ${list.length === 0 ? html`<p class="muted">${{ overdue: 'Nothing overdue.', week: 'Nothing due this week.', later: 'Nothing due later.', none: 'Every card of yours has a due date.' }[k]}</p>`
          : html`<ul class="my-cards">${list.map((c) => html`<li data-card-id=${c.id}>
            <a href=${`/w/${org}/${ws}/p/${c.projectId}?card=${c.id}`}>${c.title}</a>
            <p class="meta"><span>${projects.get(c.projectId) || 'A project'}</span>
              <span class=${'my-prio ' + c.priority}>${humanize(c.priority)} priority</span>
              ${c.dueDate && html`<span class=${k === 'overdue' ? 'due overdue' : 'due'}>Due ${formatDay(dayOf(c.dueDate))}</span>`}</p>
          </li>`)}</ul>`}
      </section>`)}`;
}
