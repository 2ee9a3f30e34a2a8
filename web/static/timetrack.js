// @ts-check
// Time tracking: a card's estimate, timer and time entries (in its detail), the running timer in the
// shell (seen on every page, stopped from anywhere), a card's total on the board, and the workspace's
// time report with its CSV download.
import { html, useState, useEffect, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, formValues, formatTime, todayDay, announce } from './ui.js';
import * as api from './api.js';
import { session } from './session.js';

/** @typedef {api.Schemas['CardOut']} Card */
/** @typedef {api.Schemas['TimeEntryOut']} Entry */

const cardPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}';
const TIMER = '/timer';
const TIMER_STOP = '/timer/stop';
const TIMER_START = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/timer';
const ENTRIES = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/time-entries';
const ENTRY = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/time-entries/{entryId}';
const REPORT = '/orgs/{orgSlug}/workspaces/{wsSlug}/time-report';
const REPORT_CSV = '/orgs/{orgSlug}/workspaces/{wsSlug}/time-report/export';

/** The event the timer's changes are told by, so the shell's indicator and a card's detail agree. */
const TIMER_EVENT = 'pilot:timer';
const timerChanged = () => dispatchEvent(new Event(TIMER_EVENT));

/** A duration as people write it: "1 h 30 min", "45 min", "0 min". @param {number} s */
export function hours(s) {
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/** A running clock, "1:02:03". @param {number} s */
function clock(s) {
  const t = Math.max(0, Math.floor(s));
  return `${Math.floor(t / 3600)}:${String(Math.floor(t / 60) % 60).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}`;
}

/**
 * Reads a duration typed as "1h 30m", "1.5h", "90m", "1:30" or "90" (minutes): seconds, or null when it
 * is not one.
 * @param {string} text
 */
export function parseDuration(text) {
  const t = text.trim().toLowerCase();
  if (!t) return null;
  let m;
  if ((m = /^(\d+):([0-5]\d)$/.exec(t))) return (Number(m[1]) * 60 + Number(m[2])) * 60;
  if ((m = /^(\d+(?:[.,]\d+)?)$/.exec(t))) return Math.round(Number(m[1].replace(',', '.')) * 60);
  if ((m = /^(?:(\d+(?:[.,]\d+)?)\s*h(?:ours?|rs?)?)?\s*(?:(\d+)\s*m(?:in(?:utes?)?)?)?$/.exec(t)) && (m[1] || m[2])) {
    return Math.round(Number((m[1] || '0').replace(',', '.')) * 3600) + Number(m[2] || 0) * 60;
  }
  return null;
}

/** Seconds since an instant. @param {string|null|undefined} iso */
const since = (iso) => iso ? (Date.now() - Date.parse(iso)) / 1000 : 0;

/** Re-renders every second while on. @param {boolean} on */
function useTick(on) {
  const [, set] = useState(0);
  useEffect(() => {
    if (!on) return undefined;
    const t = setInterval(() => set((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [on]);
}

/** The person's timer, kept fresh when it changes here or every half minute (another device). */
function useTimer() {
  const timer = useLoad((s) => api.get(TIMER, {}, undefined, s), []);
  useEffect(() => {
    const reload = () => timer.reload();
    addEventListener(TIMER_EVENT, reload);
    const t = setInterval(reload, 30000);
    return () => { removeEventListener(TIMER_EVENT, reload); clearInterval(t); };
  }, []);
  return timer;
}

/** The shell's running timer: its card, its clock and a Stop button, on every page. */
export function TimerIndicator() {
  const timer = useTimer();
  const [run, busy, error] = useAction();
  const r = timer.data?.running;
  useTick(!!r);
  if (!r) return null;
  return html`<div class="timer-indicator" role="status" aria-label="Running timer">
    <a href=${`/w/${r.orgSlug}/${r.workspaceSlug}/p/${r.entry.projectId}?card=${r.entry.cardId}`} title=${r.projectName}>${r.cardTitle}</a>
    <span class="timer-clock">${clock(since(r.entry.startedAt))}</span>
    <button type="button" class="secondary" disabled=${busy} onClick=${() => run(async () => { await api.post(TIMER_STOP, {}); timerChanged(); announce('Timer stopped'); })}>Stop timer</button>
    <${ErrorMessage} error=${error} />
  </div>`;
}

/** A card's logged time on its board tile: "1 h 30 min of 4 h". @param {{card: Card}} props */
export function CardTime({ card }) {
  if (!card.timeSpentSeconds && card.estimateSeconds == null) return null;
  const over = card.estimateSeconds != null && card.timeSpentSeconds > card.estimateSeconds;
  return html`<span class=${over ? 'card-time over' : 'card-time'} title="Time logged${card.estimateSeconds != null ? ' of the estimate' : ''}">
    <span class="visually-hidden">Time logged: </span>${hours(card.timeSpentSeconds)}${card.estimateSeconds != null && ` of ${hours(card.estimateSeconds)}`}</span>`;
}

/** Whether the person administers the workspace (anyone's entries are theirs to change). @param {Record<string,string>} params */
function isAdmin(params) {
  return session.places.find((o) => o.slug === params.orgSlug)?.workspaces.find((w) => w.slug === params.wsSlug)?.myRole === 'admin';
}

/**
 * The card detail's time: its estimate, the person's timer on it, its entries with add, edit and delete.
 * @param {{card: Card, params: Record<string,string>, onChange: (c: Card) => void}} props
 */
export function CardTimeSection({ card, params, onChange }) {
  const timer = useTimer();
  const entries = useLoad((s) => api.getAll(ENTRIES, params, undefined, s), [params.cardId]);
  const [run, busy, error] = useAction();
  const [editing, setEditing] = useState('');
  const mine = timer.data?.running?.entry;
  const runningHere = mine?.cardId === card.id;
  useTick(runningHere);
  // The card again (its total) and its entries, after a change.
  const changed = async () => { onChange(await api.get(cardPath, params)); entries.reload(); };
  useEffect(() => {
    addEventListener(TIMER_EVENT, changed);
    return () => removeEventListener(TIMER_EVENT, changed);
  }, [params.cardId]);
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return html`<section aria-labelledby="time-title"><h3 id="time-title">Time</h3>
    <p class="time-summary">Logged <strong>${hours(card.timeSpentSeconds)}</strong>${card.estimateSeconds != null && html` of an estimate of <strong>${hours(card.estimateSeconds)}</strong>`}.</p>
    <form class="inline" key=${card.estimateSeconds} onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      const s = v.estimate.trim() ? parseDuration(v.estimate) : null;
      if (v.estimate.trim() && s == null) { run(async () => { throw new Error('Write the estimate as 2h, 1h 30m, 90m or 1:30.'); }); return; }
      run(async () => { onChange(await api.patch(cardPath, params, { estimateSeconds: s })); announce('Estimate saved'); });
    }}>
      <label for="time-estimate">Estimate</label>
      <input id="time-estimate" name="estimate" placeholder="e.g. 2h 30m" defaultValue=${card.estimateSeconds != null ? hours(card.estimateSeconds).replace(' min', 'm').replace(' h', 'h') : ''} />
      <button type="submit" class="secondary" disabled=${busy}>Save estimate</button>
    </form>
    <div class="actions">
      ${runningHere
        ? html`<span class="timer-clock" aria-label="Timer running">${clock(since(mine?.startedAt))}</span>
          <button type="button" disabled=${busy} onClick=${() => run(async () => { await api.post(TIMER_STOP, {}); timerChanged(); })}>Stop timer</button>`
        : html`<button type="button" disabled=${busy} onClick=${() => run(async () => { await api.post(TIMER_START, params, { timeZone: tz }); timerChanged(); })}>Start timer</button>
          ${mine && html`<span class="muted">Starting it stops your timer on another card.</span>`}`}
    </div>
    <form class="time-add" onSubmit=${(/** @type {Event} */ e) => {
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      const s = parseDuration(v.duration);
      run(async () => {
        if (s == null) throw new Error('Write the time spent as 1h 30m, 90m, 1.5h or 1:30.');
        await api.post(ENTRIES, params, { durationSeconds: s, date: v.date, note: v.note });
        f.reset();
        await changed();
        announce('Time logged');
      });
    }}>
      <label>Time spent <input name="duration" required placeholder="1h 30m" /></label>
      <label>Day <input type="date" name="date" required defaultValue=${todayDay()} /></label>
      <label>Note <input name="note" maxlength="1000" /></label>
      <button type="submit" disabled=${busy}>Log time</button>
    </form>
    <${ErrorMessage} error=${error || entries.error} />
    ${entries.data?.length === 0 && html`<p class="muted">No time logged yet: start the timer, or log time you spent.</p>`}
    <ul class="time-entries">${entries.data?.map((x) => html`<li key=${x.id}>
      ${editing === x.id
        ? html`<${EditEntry} entry=${x} params=${params} onDone=${async (/** @type {boolean} */ saved) => { setEditing(''); if (saved) await changed(); }} />`
        : html`<span class="time-entry-duration">${x.running ? 'running' : hours(x.durationSeconds)}</span>
          <span>${x.userName} · ${x.date}${x.note && ` · ${x.note}`}</span>
          ${x.startedAt && html`<span class="muted"> (${formatTime(x.startedAt)})</span>`}
          ${(x.userId === session.user?.id || isAdmin(params)) && html`
            ${!x.running && html`<button type="button" class="link" aria-label=${'Edit the entry of ' + x.date} onClick=${() => setEditing(x.id)}>Edit</button>`}
            <${ConfirmButton} label="Delete" className="link danger" title="Delete this time entry?"
              detail=${html`<p>${hours(x.durationSeconds)} by ${x.userName} on ${x.date} is taken off the card's total.</p>`}
              onConfirm=${async () => { await api.del(ENTRY, { ...params, entryId: x.id }); if (x.running) timerChanged(); await changed(); }} />`}`}
    </li>`)}</ul>
  </section>`;
}

/** @param {{entry: Entry, params: Record<string,string>, onDone: (saved: boolean) => void}} props */
function EditEntry({ entry, params, onDone }) {
  const [run, busy, error] = useAction();
  return html`<form class="time-add" onSubmit=${(/** @type {Event} */ e) => {
    const v = formValues(e);
    const s = parseDuration(v.duration);
    run(async () => {
      if (s == null) throw new Error('Write the time spent as 1h 30m, 90m, 1.5h or 1:30.');
      await api.patch(ENTRY, { ...params, entryId: entry.id }, { durationSeconds: s, date: v.date, note: v.note });
      onDone(true);
    });
  }}>
    <label>Time spent <input name="duration" required defaultValue=${hours(entry.durationSeconds).replace(' min', 'm').replace(' h', 'h')} /></label>
    <label>Day <input type="date" name="date" required defaultValue=${entry.date} /></label>
    <label>Note <input name="note" maxlength="1000" defaultValue=${entry.note} /></label>
    <button type="submit" disabled=${busy}>Save</button>
    <button type="button" class="secondary" onClick=${() => onDone(false)}>Cancel</button>
    <${ErrorMessage} error=${error} />
  </form>`;
}

/** A day `n` days before today, YYYY-MM-DD. @param {number} n */
function daysAgo(n) {
  const d = new Date();
  d.setDate(d.getDate() - n);
  return [d.getFullYear(), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('-');
}

/** The workspace's time report: period, project and person filters, totals, rows and the CSV download. @param {{org: string, ws: string, project?: string}} props */
export function TimeReport({ org, ws, project = '' }) {
  const params = { orgSlug: org, wsSlug: ws };
  const [filter, setFilter] = useState({ from: daysAgo(29), to: todayDay(), projectId: project, userId: '' });
  const projects = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects', params, undefined, s), [org, ws]);
  const members = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/members', params, undefined, s), [org, ws]);
  /** @type {Record<string,string>} */
  const query = { from: filter.from, to: filter.to };
  if (filter.projectId) query.projectId = filter.projectId;
  if (filter.userId) query.userId = filter.userId;
  const report = useLoad((s) => api.get(REPORT, params, /** @type {any} */ (query), s), [org, ws, JSON.stringify(query)]);
  const csv = api.href(REPORT_CSV, params) + '?' + new URLSearchParams(query).toString();
  const r = report.data;
  return html`<section class="time-report" aria-labelledby="report-title">
    <h1 id="report-title">Time report</h1>
    <form class="report-filters" onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      setFilter({ from: v.from, to: v.to, projectId: v.project, userId: v.person });
    }}>
      <label>From <input type="date" name="from" required defaultValue=${filter.from} /></label>
      <label>To <input type="date" name="to" required defaultValue=${filter.to} /></label>
      <label>Project <select name="project" defaultValue=${filter.projectId}>
        <option value="">Every project</option>
        ${projects.data?.map((p) => html`<option value=${p.id} defaultSelected=${p.id === filter.projectId}>${p.name}</option>`)}</select></label>
      <label>Person <select name="person">
        <option value="">Everyone</option>
        ${members.data?.map((m) => html`<option value=${m.userId}>${m.name || m.email}</option>`)}</select></label>
      <button type="submit">Show</button>
      <a class="button secondary" href=${csv} download="time-report.csv">Download CSV</a>
    </form>
    <${ErrorMessage} error=${report.error || projects.error || members.error} />
    ${report.loading && !r && html`<${Loading} />`}
    ${r && (r.rows.length === 0
      ? html`<p class="muted">No time was logged in this period. People log time on a card's detail, with its timer or by hand.</p>`
      : html`<p>Total: <strong>${hours(r.totalSeconds)}</strong>${r.truncated && html` <span class="muted">(the first 5000 rows; the CSV has them all)</span>`}</p>
        <div class="report-totals">
          <table><caption>By person</caption><thead><tr><th scope="col">Person</th><th scope="col">Time</th></tr></thead>
            <tbody>${r.byPerson.map((t) => html`<tr><td>${t.name}</td><td>${hours(t.seconds)}</td></tr>`)}</tbody></table>
          <table><caption>By card</caption><thead><tr><th scope="col">Card</th><th scope="col">Time</th></tr></thead>
            <tbody>${r.byCard.map((t) => html`<tr><td>${t.name}</td><td>${hours(t.seconds)}</td></tr>`)}</tbody></table>
        </div>
        <table class="report-rows"><caption>By day</caption>
          <thead><tr><th scope="col">Day</th><th scope="col">Person</th><th scope="col">Project</th><th scope="col">Card</th><th scope="col">Time</th></tr></thead>
          <tbody>${r.rows.map((x) => html`<tr><td>${x.date}</td><td>${x.userName}</td><td>${x.projectName}</td>
            <td><a href=${`/w/${org}/${ws}/p/${x.projectId}?card=${x.cardId}`}>${x.cardTitle}</a></td><td>${hours(x.seconds)}</td></tr>`)}</tbody>
        </table>`)}
  </section>`;
}
