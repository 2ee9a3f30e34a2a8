// @ts-check
// The view library (Preact with htm templates: no build step) and the pieces every screen shares.
import { h, render } from './vendor/preact.js';
import { useState, useEffect, useRef, useCallback, useMemo, useErrorBoundary } from './vendor/preact-hooks.js';
import htm from './vendor/htm.js';
import { message } from './api.js';

/** Tagged templates that build Preact elements; text in them is always text, never markup. */
export const html = htm.bind(h);
export { h, render, useState, useEffect, useRef, useCallback, useMemo };

/**
 * An error said in words (the API's message), announced to screen readers.
 * @param {{error: unknown}} props
 */
export function ErrorMessage({ error }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${message(error)}</p>`;
}

/**
 * Shows what went wrong, in words, when a screen fails to render, instead of a blank page.
 * @param {{children?: any}} props
 */
export function Boundary({ children }) {
  const [error, reset] = useErrorBoundary();
  if (error) {
    return html`<div class="panel"><p class="error" role="alert">This screen failed: ${message(error)}</p>
      <p><button onClick=${reset}>Try again</button> <a href="/">Go to your workspace</a></p></div>`;
  }
  return children;
}

/**
 * Loads with f whenever deps change: {data, error, loading, reload, set}.
 * @template T
 * @param {(signal: AbortSignal) => Promise<T>} f
 * @param {ReadonlyArray<unknown>} deps
 */
export function useLoad(f, deps) {
  const [state, setState] = useState(/** @type {{data: T|undefined, error: unknown, loading: boolean}} */ ({ data: undefined, error: null, loading: true }));
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    f(ctl.signal).then(
      (data) => { if (!ctl.signal.aborted) setState({ data, error: null, loading: false }); },
      (error) => { if (!ctl.signal.aborted && error?.name !== 'AbortError') setState((s) => ({ ...s, error, loading: false })); },
    );
    return () => ctl.abort();
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  /** @param {T | ((d: T|undefined) => T)} d */
  const set = (d) => setState((s) => ({ ...s, data: typeof d === 'function' ? /** @type {any} */ (d)(s.data) : d }));
  return { ...state, reload, set };
}

/**
 * Runs an action with its error kept for display and a busy flag (to disable the button).
 * @returns {[(f: () => Promise<unknown>) => Promise<boolean>, boolean, unknown, (e: unknown) => void]}
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const run = useCallback(async (/** @type {() => Promise<unknown>} */ f) => {
    setBusy(true);
    setError(null);
    try {
      await f();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return [run, busy, error, setError];
}

/** @param {{label?: string}} props */
export function Loading({ label = 'Loading…' }) {
  return html`<p class="muted" role="status">${label}</p>`;
}

/** @param {string|null|undefined} iso */
export function formatDate(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d.getTime()) ? '' : d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** @param {string|null|undefined} iso */
export function formatTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d.getTime()) ? '' : d.toLocaleString();
}

/**
 * The day (YYYY-MM-DD) an ISO time falls on in the person's time zone, for an <input type=date>: the
 * same day formatDate shows.
 * @param {string|null|undefined} iso
 */
export function dateInput(iso) {
  const d = iso ? new Date(iso) : null;
  if (!d || isNaN(d.getTime())) return '';
  return `${String(d.getFullYear()).padStart(4, '0')}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** An <input type=date> value as the API's time (that day's midnight in the person's time zone), or null. @param {string} v */
export function dateValue(v) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v || '');
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).toISOString() : null;
}

/** Reads a form's named fields. @param {Event} e @returns {Record<string,string>} */
export function formValues(e) {
  e.preventDefault();
  const f = /** @type {HTMLFormElement} */ (e.currentTarget);
  /** @type {Record<string,string>} */
  const out = {};
  new FormData(f).forEach((v, k) => { if (typeof v === 'string') out[k] = v; });
  return out;
}

const live = { el: /** @type {HTMLElement|null} */ (null) };
/** Says msg to screen readers (the page's polite live region). @param {string} msg */
export function announce(msg) {
  live.el ??= document.getElementById('announce');
  if (live.el) { live.el.textContent = ''; live.el.textContent = msg; }
}

/** A value of the API's enums in words: in_progress reads "In progress". @param {string|null|undefined} v */
export function humanize(v) {
  if (!v) return '';
  const s = String(v).replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const rtf = typeof Intl !== 'undefined' && Intl.RelativeTimeFormat ? new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }) : null;
/** @type {[Intl.RelativeTimeFormatUnit, number][]} */
const spans = [['year', 31536000], ['month', 2592000], ['week', 604800], ['day', 86400], ['hour', 3600], ['minute', 60]];
/**
 * A time relative to now in the person's language ("2 hours ago", "in 3 days"); its full date and
 * time is the element's title when shown with <${When}>.
 * @param {string|null|undefined} iso
 */
export function relativeTime(iso) {
  if (!iso) return '';
  const t = new Date(iso).getTime();
  if (isNaN(t)) return '';
  const secs = Math.round((t - Date.now()) / 1000);
  if (!rtf) return formatTime(iso);
  for (const [unit, n] of spans) if (Math.abs(secs) >= n) return rtf.format(Math.round(secs / n), unit);
  return rtf.format(0, 'minute');
}

/**
 * Who acted, as a person reads it: their name, or for an agent "Planner (agent) for Ann" (the person
 * who started its mission or approved its action).
 * @param {{actorName?: string, actorType?: string, agent?: {name: string}|null, onBehalfOf?: {name: string}|null}} a
 * @param {string} [name] the name to show when the answer has no actorName (a comment's author)
 */
export function actorLabel(a, name = a.actorName || '') {
  if (a.actorType !== 'agent') return name;
  const label = `${a.agent?.name || name} (agent)`;
  return a.onBehalfOf?.name ? `${label} for ${a.onBehalfOf.name}` : label;
}

/** A count with its thousands separated. @param {number} n */
export const count = (n) => n.toLocaleString('en');

/** A duration in seconds, in words: "45 s", "3 min 20 s", "2 h 5 min". @param {number} s */
export function duration(s) {
  const t = Math.round(s);
  if (t < 60) return `${t} s`;
  if (t < 3600) return `${Math.floor(t / 60)} min${t % 60 ? ` ${t % 60} s` : ''}`;
  return `${Math.floor(t / 3600)} h${Math.floor(t % 3600 / 60) ? ` ${Math.floor(t % 3600 / 60)} min` : ''}`;
}

/** A <time> with the relative time as text and the full local date and time as its title. @param {{iso: string|null|undefined}} props */
export function When({ iso }) {
  if (!iso) return null;
  return html`<time datetime=${iso} title=${formatTime(iso)}>${relativeTime(iso)}</time>`;
}

/**
 * A button that asks before a destructive action, in a modal <dialog>: title and detail say what will
 * happen; with typed, the person must type that text (a name) to confirm. onConfirm's error is shown in
 * the dialog, which stays open; on success it closes.
 * @param {{label: string, title: string, detail?: any, typed?: string, confirmLabel?: string,
 *   className?: string, disabled?: boolean, onConfirm: () => Promise<unknown>}} props
 */
export function ConfirmButton({ label, title, detail, typed, confirmLabel, className = 'danger', disabled, onConfirm }) {
  const ref = useRef(/** @type {HTMLDialogElement|null} */ (null));
  const [text, setText] = useState('');
  const [run, busy, error, setError] = useAction();
  const id = useMemo(() => 'confirm-' + Math.random().toString(36).slice(2, 9), []);
  const open = () => { setText(''); setError(null); ref.current?.showModal(); };
  const close = () => ref.current?.close();
  const ok = !typed || text === typed;
  return html`<button type="button" class=${className} disabled=${disabled} onClick=${open}>${label}</button>
    <dialog ref=${ref} class="confirm" aria-labelledby=${id + '-h'}>
      <form method="dialog" onSubmit=${async (/** @type {Event} */ e) => { e.preventDefault(); if (ok && await run(onConfirm)) close(); }}>
        <h2 id=${id + '-h'}>${title}</h2>
        ${detail && html`<div class="detail">${detail}</div>`}
        ${typed && html`<label for=${id + '-typed'}>Type <strong>${typed}</strong> to confirm</label>
          <input id=${id + '-typed'} autocomplete="off" value=${text} onInput=${(/** @type {any} */ e) => setText(e.currentTarget.value)} />`}
        <${ErrorMessage} error=${error} />
        <div class="actions">
          <button type="submit" class="danger" disabled=${busy || !ok}>${confirmLabel || label}</button>
          <button type="button" class="secondary" onClick=${close}>Cancel</button>
        </div>
      </form>
    </dialog>`;
}

/** Copies text to the clipboard; resolves whether it could. @param {string} text */
export async function copyText(text) {
  try { await navigator.clipboard.writeText(text); announce('Copied'); return true; } catch { return false; }
}

/** Offers text as a file download named name. @param {string} name @param {string} text @param {string} [type] */
export function download(name, text, type = 'text/plain') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url; a.download = name; document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A screen whose module is loaded when it first opens (import()), so the first screen does not carry
 * it: load resolves to the module, name is its component, props are given to it.
 * @param {{load: () => Promise<any>, name: string, props: Record<string, any>}} p
 */
export function Lazy({ load, name, props }) {
  const [mod, setMod] = useState(/** @type {any} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => { load().then((m) => setMod(() => m), setError); }, [load]);
  if (error) return html`<${ErrorMessage} error=${error} /><p><button onClick=${() => location.reload()}>Reload the page</button></p>`;
  if (!mod) return html`<${Loading} />`;
  return h(mod[name], props);
}

// A card's due and start dates are days. The app writes a day as that day's midnight UTC (dueValue) and
// reads a midnight UTC as that calendar day in every time zone, so a card due on the 5th shows the 5th
// in Los Angeles and in Tokyo alike; any other time (one an API client set, or a day the app once wrote
// at midnight in the writer's time zone) is read as the day it falls on in the person's time zone.

/** The day (YYYY-MM-DD) of a due or start date, for an <input type=date>, or ''. @param {string|null|undefined} iso */
export function dueDay(iso) {
  const d = iso ? new Date(iso) : null;
  if (!d || isNaN(d.getTime())) return '';
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0) {
    return d.toISOString().slice(0, 10);
  }
  return dateInput(iso);
}

/** A day (YYYY-MM-DD, as an <input type=date> gives it) as the API's due date: its midnight UTC; or null. @param {string} day */
export function dueValue(day) {
  return /^\d{4}-\d{2}-\d{2}$/.test(day || '') ? `${day}T00:00:00Z` : null;
}

/** A due or start date shown as its day in the person's language. @param {string|null|undefined} iso */
export function formatDue(iso) {
  const day = dueDay(iso);
  return day ? new Date(day + 'T00:00:00Z').toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }) : '';
}

/** Today (YYYY-MM-DD) in the person's time zone, to compare with dueDay. */
export function todayDay() {
  const d = new Date();
  return [d.getFullYear(), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('-');
}
