// @ts-check
// A project's calendar of due dates, by month or by week, in the person's language, the week starting
// on their locale's first day. Dragging a card to another day changes its due date; with the keyboard,
// Alt with the arrow keys moves a focused card a day (left, right) or a week (up, down), and each card's
// "Date" button opens a date field. The view and the date shown live in the URL. Loaded on first use.
import { html, useState, useEffect, useMemo, useRef, useLoad, ErrorMessage, Loading, announce } from './ui.js';
import * as api from './api.js';
import { watchWorkspace } from './live.js';
import { ViewSwitcher } from './switcher.js';
import { loadProject, dayOf, today, addDays, weekStartOf, formatDay, dueOn, replaceQuery, dayDate } from './views.js';

/** @typedef {api.Schemas['CardOut']} Card */

const cardPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}';

/** @param {{org: string, ws: string, project: string, query: URLSearchParams}} props */
export function Calendar({ org, ws, project, query }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  const data = useLoad((signal) => loadProject(params, signal), [org, ws, project]);
  const [view, setView] = useState(query.get('view') === 'week' ? 'week' : 'month');
  const [anchor, setAnchor] = useState(/^\d{4}-\d{2}-\d{2}$/.test(query.get('date') || '') ? /** @type {string} */ (query.get('date')) : today());
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [editing, setEditing] = useState('');
  const focusAfter = useRef('');
  useEffect(() => replaceQuery({ view: view === 'month' ? '' : view, date: anchor === today() ? '' : anchor }), [view, anchor]);
  useEffect(() => watchWorkspace(org, ws, (evs) => { if (!evs || evs.some((e) => e.projectId === project)) data.reload(); }), [org, ws, project]);
  useEffect(() => {
    if (!focusAfter.current) return;
    /** @type {HTMLElement|null} */ (document.querySelector(`.cal-card[data-card-id="${focusAfter.current}"]`))?.focus();
    focusAfter.current = '';
  });

  const d = data.data;
  const byDay = useMemo(() => {
    /** @type {Map<string, Card[]>} */
    const m = new Map();
    for (const c of d?.cards || []) {
      const k = dayOf(c.dueDate);
      if (!k) continue;
      if (!m.has(k)) m.set(k, []);
      m.get(k)?.push(c);
    }
    for (const list of m.values()) list.sort((a, b) => a.title.localeCompare(b.title));
    return m;
  }, [d]);

  if (data.error && !d) return html`<${ErrorMessage} error=${data.error} />`;
  if (!d) return html`<${Loading} />`;
  const { proj, cards } = d;

  // The days shown: the weeks of the anchor's month, or the anchor's week.
  const first = view === 'month' ? anchor.slice(0, 8) + '01' : anchor;
  const start = weekStartOf(first);
  const monthEnd = addDays(addDays(first, 31).slice(0, 8) + '01', -1);
  const weeks = view === 'month' ? Math.ceil((dayDate(monthEnd).getTime() - dayDate(start).getTime()) / 864e5 / 7 + 1 / 7) : 1;
  /** @type {string[][]} */
  const rows = [];
  for (let w = 0; w < weeks; w++) rows.push(Array.from({ length: 7 }, (_, i) => addDays(start, w * 7 + i)));
  const shown = rows.flat();
  const now = today();
  const title = view === 'month' ? formatDay(first, { month: 'long', year: 'numeric' })
    : `${formatDay(shown[0], { month: 'short', day: 'numeric' })} – ${formatDay(shown[6], { year: 'numeric', month: 'short', day: 'numeric' })}`;
  const step = (/** @type {number} */ n) => {
    if (view === 'week') setAnchor(addDays(anchor, 7 * n));
    else { const m = dayDate(first); m.setUTCMonth(m.getUTCMonth() + n); setAnchor(m.toISOString().slice(0, 10)); }
  };

  /**
   * Gives a card the due date day: at once on screen, then on the server; a refusal is said in words
   * and the calendar read again.
   * @param {string} id @param {string|null} day
   */
  const setDue = async (id, day) => {
    const c = d.cards.find((x) => x.id === id);
    if (!c || dayOf(c.dueDate) === (day || '')) return;
    const dueDate = day ? dueOn(c.dueDate, day) : null;
    data.set({ ...d, cards: d.cards.map((x) => (x.id === id ? { ...x, dueDate } : x)) });
    focusAfter.current = id;
    if (day && !shown.includes(day)) setAnchor(day);
    announce(day ? `${c.title} due ${formatDay(day, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' })}` : `${c.title} has no due date`);
    setError(null);
    try {
      await api.patch(cardPath, { ...params, cardId: id }, { dueDate });
    } catch (e) {
      setError(e);
      data.reload();
    }
  };
  /** @param {KeyboardEvent} e @param {Card} c */
  const onKey = (e, c) => {
    if (!e.altKey || e.target !== e.currentTarget) return;
    const n = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 }[e.key];
    if (!n) return;
    e.preventDefault();
    setDue(c.id, addDays(dayOf(c.dueDate) || now, n));
  };
  /** @param {Card} c */
  const chip = (c) => html`<${CardChip} key=${c.id} card=${c} base=${`/w/${org}/${ws}/p/${project}`} onKey=${onKey}
    editing=${editing === c.id} onEdit=${(/** @type {boolean} */ on) => setEditing(on ? c.id : '')} setDue=${setDue} />`;
  const undated = cards.filter((c) => !c.dueDate).sort((a, b) => a.title.localeCompare(b.title));
  const weekdays = rows[0].map((day) => [formatDay(day, { weekday: 'long' }), formatDay(day, { weekday: 'short' })]);

  return html`<div class="calendar-page">
    <div class="board-head">
      <h1>${proj.name}</h1>
      <${ViewSwitcher} org=${org} ws=${ws} project=${project} current="calendar" />
    </div>
    <div class="cal-bar">
      <h2 id="cal-title" aria-live="polite">${title}</h2>
      <div class="actions">
        <button type="button" class="secondary" onClick=${() => step(-1)}>Previous ${view}</button>
        <button type="button" class="secondary" onClick=${() => setAnchor(now)}>Today</button>
        <button type="button" class="secondary" onClick=${() => step(1)}>Next ${view}</button>
        <span role="group" aria-label="Calendar view" class="toggle">
          <button type="button" aria-pressed=${view === 'month'} onClick=${() => setView('month')}>Month</button>
          <button type="button" aria-pressed=${view === 'week'} onClick=${() => setView('week')}>Week</button>
        </span>
      </div>
    </div>
    <p id="cal-hint" class="visually-hidden">Alt with the left and right arrows moves the card's due date a day; with up and down, a week.</p>
    <${ErrorMessage} error=${error || data.error} />
    ${cards.length === 0 && html`<p class="muted">This project has no card yet. <a href=${`/w/${org}/${ws}/p/${project}`}>Add cards on the board</a>, then give them due dates here.</p>`}
    <div class="table-wrap"><table class=${'calendar ' + view} aria-labelledby="cal-title">
      <thead><tr>${weekdays.map(([long, short]) => html`<th scope="col" abbr=${long}>${short}</th>`)}</tr></thead>
      <tbody>${rows.map((week) => html`<tr>${week.map((day) => html`<${DayCell} key=${day} day=${day} today=${day === now}
        outside=${view === 'month' && day.slice(0, 7) !== first.slice(0, 7)} cards=${byDay.get(day) || []} chip=${chip} onDrop=${setDue} />`)}</tr>`)}</tbody>
    </table></div>
    <section class="cal-undated" aria-labelledby="cal-undated"
      onDragOver=${(/** @type {DragEvent} */ e) => e.preventDefault()}
      onDrop=${(/** @type {DragEvent} */ e) => { e.preventDefault(); const id = e.dataTransfer?.getData('text/plain'); if (id) setDue(id, null); }}>
      <h2 id="cal-undated">No due date <span class="count">(${undated.length})</span></h2>
      ${undated.length === 0 ? html`<p class="muted">Every card has a due date.</p>`
        : html`<p class="hint">Drag a card onto a day, or use its Date button, to give it a due date.</p><ul class="cal-cards">${undated.map(chip)}</ul>`}
    </section>
  </div>`;
}

/**
 * A day of the calendar: its number and its cards; a card dropped on it is due that day.
 * @param {{day: string, today: boolean, outside: boolean, cards: Card[], chip: (c: Card) => any,
 *   onDrop: (id: string, day: string) => void}} props
 */
function DayCell({ day, today: isToday, outside, cards, chip, onDrop }) {
  const [over, setOver] = useState(false);
  const label = formatDay(day, { weekday: 'long', month: 'long', day: 'numeric' });
  return html`<td data-day=${day} class=${['day', isToday && 'today', outside && 'outside', over && 'drop-target'].filter(Boolean).join(' ')}
    onDragOver=${(/** @type {DragEvent} */ e) => { e.preventDefault(); if (e.dataTransfer) e.dataTransfer.dropEffect = 'move'; setOver(true); }}
    onDragLeave=${(/** @type {DragEvent} */ e) => { if (!/** @type {Node} */ (e.currentTarget).contains(/** @type {Node} */ (e.relatedTarget))) setOver(false); }}
    onDrop=${(/** @type {DragEvent} */ e) => { e.preventDefault(); setOver(false); const id = e.dataTransfer?.getData('text/plain'); if (id) onDrop(id, day); }}>
    <div class="day-num"><time datetime=${day} aria-label=${label + (isToday ? ', today' : '')}>${formatDay(day, { day: 'numeric' })}</time></div>
    ${cards.length > 0 && html`<ul class="cal-cards" aria-label=${'Due ' + label}>${cards.map(chip)}</ul>`}
  </td>`;
}

/**
 * A card on the calendar: draggable, focusable (Alt+arrows move its date), its title a link to it on the
 * board, and a date field behind its Date button.
 * @param {{card: Card, base: string, onKey: (e: KeyboardEvent, c: Card) => void, editing: boolean,
 *   onEdit: (on: boolean) => void, setDue: (id: string, day: string|null) => void}} props
 */
function CardChip({ card: c, base, onKey, editing, onEdit, setDue }) {
  const id = 'due-' + c.id;
  return html`<li class=${'cal-card ' + c.priority} draggable="true" tabindex="0" data-card-id=${c.id} aria-describedby="cal-hint"
    onKeyDown=${(/** @type {KeyboardEvent} */ e) => onKey(e, c)}
    onDragStart=${(/** @type {DragEvent} */ e) => { e.dataTransfer?.setData('text/plain', c.id); if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move'; }}>
    <a href=${`${base}?card=${c.id}`} tabindex="-1">${c.title}</a>
    <button type="button" class="link" aria-expanded=${editing} aria-controls=${editing ? id + '-form' : undefined}
      aria-label=${'Change the due date of ' + c.title} onClick=${() => onEdit(!editing)}>Date</button>
    ${editing && html`<form id=${id + '-form'} class="cal-edit" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      const v = /** @type {HTMLInputElement} */ (/** @type {HTMLFormElement} */ (e.currentTarget).elements.namedItem('due')).value;
      onEdit(false);
      setDue(c.id, v || null);
    }}>
      <label for=${id}>Due date of ${c.title}</label>
      <input id=${id} name="due" type="date" defaultValue=${dayOf(c.dueDate)} />
      <div class="actions"><button type="submit">Save</button>
        <button type="button" class="secondary" onClick=${() => onEdit(false)}>Cancel</button></div>
    </form>`}
  </li>`;
}
