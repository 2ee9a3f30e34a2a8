// @ts-check
// A card's "Repeat" section: the series it is an occurrence of (a rule from presets — daily, weekly on
// chosen days, monthly on day N — or an RFC 5545 rule typed in), its time zone (the browser's by
// default), its mode, and stopping it. Occurrences are created by the server (docs/recurring.md).
import { html, useState, useLoad, useAction, ErrorMessage, ConfirmButton, formatDate, formatTime, humanize, announce } from './ui.js';
import * as api from './api.js';

const recurrencePath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/recurrence';
const DAYS = [['MO', 'Monday'], ['TU', 'Tuesday'], ['WE', 'Wednesday'], ['TH', 'Thursday'], ['FR', 'Friday'], ['SA', 'Saturday'], ['SU', 'Sunday']];

/** @typedef {api.Schemas['CardSeriesOut']} Series */

/** The preset a rule is, for the form to start from. @param {string} rule */
function presetOf(rule) {
  if (rule === 'FREQ=DAILY') return { kind: 'daily', days: [], day: 1 };
  const w = /^FREQ=WEEKLY;BYDAY=((?:MO|TU|WE|TH|FR|SA|SU)(?:,(?:MO|TU|WE|TH|FR|SA|SU))*)$/.exec(rule);
  if (w) return { kind: 'weekly', days: w[1].split(','), day: 1 };
  const m = /^FREQ=MONTHLY;BYMONTHDAY=(\d{1,2})$/.exec(rule);
  if (m) return { kind: 'monthly', days: [], day: Number(m[1]) };
  return { kind: 'custom', days: [], day: 1 };
}

/** @param {string} d */
const when = (d) => `${formatDate(d)} ${formatTime(d)}`;

/** @param {{params: Record<string,string>, onSaved?: () => void}} props */
export function Repeat({ params, onSaved }) {
  const loaded = useLoad(async (signal) => {
    try { return await api.get(recurrencePath, params, undefined, signal); }
    catch (e) { if (/** @type {any} */ (e)?.status === 404) return null; throw e; }
  }, [params.cardId]);
  return html`<section aria-labelledby="repeat-title"><h3 id="repeat-title">Repeat</h3>
    <${ErrorMessage} error=${loaded.error} />
    ${loaded.data !== undefined && html`<${RepeatForm} key=${loaded.data ? loaded.data.updatedAt : 'none'} series=${loaded.data}
      params=${params} onSeries=${(/** @type {Series} */ s) => { loaded.set(s); onSaved?.(); }} />`}
  </section>`;
}

/** @param {{series: Series|null, params: Record<string,string>, onSeries: (s: Series) => void}} props */
function RepeatForm({ series, params, onSeries }) {
  const [run, busy, error] = useAction();
  const running = series && !series.stopped ? series : null;
  const start = presetOf(running?.rule || '');
  const [kind, setKind] = useState(running ? start.kind : 'none');
  const [days, setDays] = useState(/** @type {string[]} */ (start.days.length ? start.days : ['MO']));
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const save = (/** @type {Event} */ e) => {
    e.preventDefault();
    const fd = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
    const rule = kind === 'daily' ? 'FREQ=DAILY'
      : kind === 'weekly' ? `FREQ=WEEKLY;BYDAY=${days.join(',')}`
      : kind === 'monthly' ? `FREQ=MONTHLY;BYMONTHDAY=${fd.get('monthDay')}`
      : String(fd.get('rule') || '').trim();
    /** @type {api.Schemas['SetRecurrenceInputBody']} */
    const body = { rule, timeZone: String(fd.get('timeZone') || browserZone).trim(), mode: /** @type {any} */ (fd.get('mode')) };
    const first = String(fd.get('start') || '');
    if (first) body.start = first;
    run(async () => {
      onSeries(await api.put(recurrencePath, params, body));
      announce('The card repeats');
    });
  };
  return html`
    ${running ? html`<p class="repeat-summary">Repeats <code>${running.rule}</code> in ${running.timeZone}, ${humanize(running.mode)}.
      This occurrence: ${when(running.occursAt)}.${running.nextAt ? html` Next: <span class="repeat-next">${when(running.nextAt)}</span>.` : ' No next occurrence.'}</p>`
    : html`<p class="muted">${series?.stopped ? 'This card\u2019s series was stopped.' : 'This card does not repeat.'} Choose how often a new copy of it appears.</p>`}
    <form class="repeat-form" onSubmit=${save}>
      <label>Repeat <select name="kind" value=${kind} onChange=${(/** @type {any} */ e) => setKind(e.currentTarget.value)}>
        <option value="none">Never</option><option value="daily">Daily</option><option value="weekly">Weekly</option>
        <option value="monthly">Monthly</option><option value="custom">Custom rule</option></select></label>
      ${kind === 'weekly' && html`<fieldset class="repeat-days"><legend>On</legend>
        ${DAYS.map(([code, name]) => html`<label><input type="checkbox" name=${'day-' + code} checked=${days.includes(code)}
          onChange=${(/** @type {any} */ e) => setDays(e.currentTarget.checked ? DAYS.map((d) => d[0]).filter((d) => d === code || days.includes(d)) : days.filter((d) => d !== code))} /> ${name}</label>`)}
      </fieldset>`}
      ${kind === 'monthly' && html`<label>On day <input name="monthDay" type="number" min="1" max="31" required defaultValue=${String(start.day)} /></label>`}
      ${kind === 'custom' && html`<label>Rule (RFC 5545) <input name="rule" required maxlength="500" placeholder="FREQ=WEEKLY;BYDAY=MO,TH" defaultValue=${running?.rule || ''} /></label>`}
      ${kind !== 'none' && html`
        <label>Time zone <input name="timeZone" required maxlength="64" defaultValue=${running?.timeZone || browserZone} /></label>
        <label>First occurrence (local time) <input name="start" type="datetime-local" /></label>
        <label>New copy <select name="mode" defaultValue=${running?.mode || 'on_schedule'}>
          <option value="on_schedule">On schedule</option><option value="after_completion">After completion</option></select></label>
        <button type="submit" disabled=${busy || (kind === 'weekly' && days.length === 0)}>${running ? 'Save repeat' : 'Repeat'}</button>`}
    </form>
    ${running && html`<${ConfirmButton} label="Stop repeating" title="Stop repeating this card?"
      detail="No new copy will be made. The copies already made stay." confirmLabel="Stop repeating"
      onConfirm=${async () => { onSeries(await api.del(recurrencePath, params)); announce('The card no longer repeats'); }} />`}
    <${ErrorMessage} error=${error} />`;
}
