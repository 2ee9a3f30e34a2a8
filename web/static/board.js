// @ts-check
// The board: a project's columns in order and their cards; filters; creating, moving (drag and drop, or
// the keyboard) and opening cards. It refreshes when the workspace may have changed (live.js).
import { html, useState, useEffect, useMemo, useRef, useLoad, useAction, ErrorMessage, Loading, formatDue, dueDay, todayDay, announce } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { watchWorkspace } from './live.js';
import { CardDetail } from './card.js';
import { Icon } from './icons.js';
import { ViewSwitcher } from './switcher.js';

/** @typedef {api.Schemas['CardOut']} Card */
/** @typedef {api.Schemas['ColumnOut']} Column */
/** @typedef {api.Schemas['WorkspaceMemberOut']} Member */

/** @param {{org: string, ws: string, project: string, card: string}} props */
export function Board({ org, ws, project, card }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  // A read that overlaps a move (started before it was saved, or landing while it is in flight) may
  // show the card where it was: the board is read again once no move is in flight.
  const inFlight = useRef(0);
  const epoch = useRef(0);
  const staleWhileMoving = useRef(false);
  const reloadRef = useRef(() => {});
  const data = useLoad(async (signal) => {
    const e0 = epoch.current;
    const [proj, columns, cards, labels, members, series] = await Promise.all([
      api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}', params, undefined, signal),
      api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns', params, undefined, signal),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards', params, undefined, signal),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/labels', params, undefined, signal),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/members', params, undefined, signal),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/card-series', params, undefined, signal),
    ]);
    performance.mark('board-data');
    if (epoch.current !== e0 || inFlight.current > 0) {
      if (inFlight.current > 0) staleWhileMoving.current = true;
      else setTimeout(() => reloadRef.current(), 0);
    }
    // The cards of running recurring series get the board's repeat marker.
    const recurring = new Set(series.flatMap((s) => s.cardIds));
    return { proj, columns: [...columns].sort((a, b) => a.order - b.order), cards, labels, members, recurring };
  }, [org, ws, project]);
  // The filters live in the URL's query (beside ?card=), so a link opens the board filtered the same way.
  const [filter, setFilter] = useState(() => {
    const q = new URLSearchParams(location.search);
    return { label: q.get('label') || '', assignee: q.get('assignee') || '', priority: q.get('priority') || '' };
  });
  useEffect(() => {
    const q = new URLSearchParams(location.search);
    for (const [k, v] of Object.entries(filter)) { if (v) q.set(k, v); else q.delete(k); }
    const s = q.toString();
    if (s !== location.search.slice(1)) history.replaceState(history.state, '', location.pathname + (s ? '?' + s : ''));
  }, [filter, card]);
  const [moveError, setMoveError] = useState(/** @type {unknown} */ (null));
  const focusAfter = useRef('');
  const focusColumn = useRef('');
  const reload = data.reload;
  reloadRef.current = reload;

  // Read again when the workspace may have changed: on focus, or for the feed's events of this project.
  useEffect(() => watchWorkspace(org, ws, (evs) => {
    if (evs && !evs.some((e) => e.projectId === project)) return;
    if (inFlight.current > 0) staleWhileMoving.current = true;
    else reload();
  }), [org, ws, project]);
  useEffect(() => {
    if (!data.data) return;
    // Interactive once this render is on screen: the next frame.
    requestAnimationFrame(() => { performance.mark('board-interactive'); document.body.dataset.boardReady = String(Date.now()); });
    if (focusAfter.current) {
      /** @type {HTMLElement|null} */ (document.querySelector(`[data-card-id="${focusAfter.current}"]`))?.focus();
      focusAfter.current = '';
    }
    if (focusColumn.current) {
      // The moved column's button keeps the focus; at an edge, where it is disabled, the other one takes it.
      const [id, dir] = focusColumn.current.split(':');
      const b = /** @type {HTMLButtonElement|null} */ (document.querySelector(`[data-column-move="${id}:${dir}"]`));
      (b && !b.disabled ? b : /** @type {HTMLElement|null} */ (document.querySelector(`[data-column-move="${id}:${dir === 'left' ? 'right' : 'left'}"]`)))?.focus();
      focusColumn.current = '';
    }
  }, [data.data]);

  // Closing a card's detail gives the focus back to its card on the board.
  const lastOpen = useRef('');
  useEffect(() => {
    if (card) lastOpen.current = card;
    else if (lastOpen.current) {
      /** @type {HTMLElement|null} */ (document.querySelector(`[data-card-id="${lastOpen.current}"]`))?.focus();
      lastOpen.current = '';
    }
  }, [card]);

  const byColumn = useMemo(() => {
    /** @type {Map<string, Card[]>} */
    const m = new Map();
    for (const c of data.data?.columns || []) m.set(c.id, []);
    for (const c of data.data?.cards || []) {
      if (c.archived) continue;
      if (filter.label && !c.labels.some((l) => l.id === filter.label)) continue;
      if (filter.assignee && (filter.assignee === 'none' ? c.assigneeId : c.assigneeId !== filter.assignee)) continue;
      if (filter.priority && c.priority !== filter.priority) continue;
      m.get(c.columnId)?.push(c);
    }
    for (const list of m.values()) list.sort((a, b) => a.order - b.order);
    return m;
  }, [data.data, filter]);

  // Which columns the board shows whole, for the scroll cue when some are out of sight.
  const boardRef = useRef(/** @type {HTMLDivElement|null} */ (null));
  const [view, setView] = useState({ first: -1, last: -1, left: false, right: false });
  useEffect(() => {
    const el = boardRef.current;
    if (!el) return;
    const update = () => {
      const r = el.getBoundingClientRect();
      let first = -1, last = -1;
      el.querySelectorAll(':scope > .column').forEach((c, i) => {
        const b = c.getBoundingClientRect();
        if (b.left >= r.left - 1 && b.right <= r.right + 1) { if (first < 0) first = i; last = i; }
      });
      const next = { first, last, left: el.scrollLeft > 1, right: el.scrollLeft + el.clientWidth < el.scrollWidth - 1 };
      setView((v) => (v.first === next.first && v.last === next.last && v.left === next.left && v.right === next.right ? v : next));
    };
    update();
    el.addEventListener('scroll', update, { passive: true });
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => { el.removeEventListener('scroll', update); ro.disconnect(); };
  }, [!!data.data, data.data?.columns.length]);
  /** @param {number} dir */
  const scrollColumns = (dir) => boardRef.current?.scrollBy({ left: dir * boardRef.current.clientWidth * 0.8, behavior: 'smooth' });

  const names = useMemo(() => new Map((data.data?.members || []).map((m) => [m.userId, m.name || m.email])), [data.data]);

  /**
   * Moves a card to index in column (its place among the column's cards without it), at once on screen,
   * then on the server; a refusal puts the board back as the server has it.
   * @param {string} cardId @param {string} columnId @param {number} index
   */
  const move = async (cardId, columnId, index) => {
    const d = data.data;
    if (!d) return;
    const moving = d.cards.find((c) => c.id === cardId);
    if (!moving) return;
    const target = d.cards.filter((c) => c.columnId === columnId && c.id !== cardId && !c.archived).sort((a, b) => a.order - b.order);
    index = Math.max(0, Math.min(index, target.length));
    if (moving.columnId === columnId) {
      const same = d.cards.filter((c) => c.columnId === columnId && !c.archived).sort((a, b) => a.order - b.order);
      if (same.indexOf(moving) === index) return;
    }
    target.splice(index, 0, moving);
    /** @type {Map<string, {columnId: string, order: number}>} */
    const places = new Map();
    target.forEach((c, i) => places.set(c.id, { columnId, order: i }));
    const from = d.cards.filter((c) => c.columnId === moving.columnId && c.id !== cardId && !c.archived && moving.columnId !== columnId).sort((a, b) => a.order - b.order);
    from.forEach((c, i) => places.set(c.id, { columnId: c.columnId, order: i }));
    focusAfter.current = cardId;
    data.set({ ...d, cards: d.cards.map((c) => (places.has(c.id) ? { ...c, ...places.get(c.id) } : c)) });
    const col = d.columns.find((c) => c.id === columnId);
    announce(`${moving.title} moved to ${col?.name}, position ${index + 1}`);
    setMoveError(null);
    inFlight.current++;
    epoch.current++;
    try {
      await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}', { ...params, cardId }, { columnId, order: index });
      epoch.current++;
      if (--inFlight.current === 0 && staleWhileMoving.current) {
        staleWhileMoving.current = false;
        reload();
      }
    } catch (e) {
      inFlight.current--;
      setMoveError(e);
      reload();
    }
  };

  /**
   * Moves a column to index among the project's columns, at once on screen, then on the server (the same
   * call as the project settings); a refusal puts the board back as the server has it.
   * @param {string} columnId @param {number} index @param {string} [focus] what keeps the focus after
   */
  const moveColumn = async (columnId, index, focus) => {
    const d = data.data;
    if (!d) return;
    const from = d.columns.findIndex((c) => c.id === columnId);
    index = Math.max(0, Math.min(index, d.columns.length - 1));
    if (from < 0 || from === index) return;
    const columns = [...d.columns];
    const [col] = columns.splice(from, 1);
    columns.splice(index, 0, col);
    focusColumn.current = focus || '';
    data.set({ ...d, columns: columns.map((c, i) => ({ ...c, order: i })) });
    announce(`Column ${col.name} moved to position ${index + 1} of ${columns.length}`);
    setMoveError(null);
    inFlight.current++;
    epoch.current++;
    try {
      await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns/{columnId}', { ...params, columnId }, { order: index });
      epoch.current++;
      if (--inFlight.current === 0 && staleWhileMoving.current) {
        staleWhileMoving.current = false;
        reload();
      }
    } catch (e) {
      inFlight.current--;
      setMoveError(e);
      reload();
    }
  };

  /** @param {Card} c */
  const replaceCard = (c) => data.set((d) => d && { ...d, cards: d.cards.some((x) => x.id === c.id) ? d.cards.map((x) => (x.id === c.id ? c : x)) : [...d.cards, c] });

  if (data.error && !data.data) return html`<${ErrorMessage} error=${data.error} />`;
  if (!data.data) return html`<${Loading} />`;
  const { proj, columns, labels, members } = data.data;
  const archived = !!proj.archivedAt;
  const open = card ? data.data.cards.find((c) => c.id === card) : undefined;
  const base = `/w/${org}/${ws}/p/${project}`;
  return html`<div class="board-page">
    <div class="board-head">
      <h1>${proj.name}</h1>
      <a class="project-members-link" href=${base + '/members'}>Project members</a>
      <a class="settings-link" href=${base + '/settings'}>Project settings</a>
      <a class="automations-link" href=${base + '/automations'}>Automations</a>
      <${ViewSwitcher} org=${org} ws=${ws} project=${project} current="board" />
      <form class="filters" aria-label="Filter cards" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
        <label>Label <select value=${filter.label} onChange=${(/** @type {any} */ e) => setFilter({ ...filter, label: e.currentTarget.value })}>
          <option value="">Any</option>${labels.map((l) => html`<option value=${l.id}>${l.name}</option>`)}</select></label>
        <label>Assignee <select value=${filter.assignee} onChange=${(/** @type {any} */ e) => setFilter({ ...filter, assignee: e.currentTarget.value })}>
          <option value="">Anyone</option><option value="none">Nobody</option>${members.map((m) => html`<option value=${m.userId}>${m.name || m.email}</option>`)}</select></label>
        <label>Priority <select value=${filter.priority} onChange=${(/** @type {any} */ e) => setFilter({ ...filter, priority: e.currentTarget.value })}>
          <option value="">Any</option><option value="high">High</option><option value="medium">Medium</option><option value="low">Low</option></select></label>
      </form>
    </div>
    ${archived && html`<p class="archived-banner" role="note">This project is archived: it is read-only. <a href=${base + '/settings'}>Restore it in the project settings</a> to change it.</p>`}
    <p id="move-hint" class="visually-hidden">${archived ? 'Press Enter to open the card.' : 'Press Enter to open the card. Alt with the arrow keys moves it: left and right to another column, up and down within the column.'}</p>
    <${ErrorMessage} error=${moveError || data.error} />
    ${(view.left || view.right) && html`<div class="board-scroll" role="group" aria-label="Scroll the columns">
      <button type="button" class="secondary icon-button" disabled=${!view.left} onClick=${() => scrollColumns(-1)} aria-label="Show the columns to the left"><${Icon} name="left" /></button>
      <span class="muted" data-testid="columns-shown">${view.first < 0 ? `${columns.length} columns: scroll sideways to see them` : `Columns ${view.first + 1} to ${view.last + 1} of ${columns.length} shown`}</span>
      <button type="button" class="secondary icon-button" disabled=${!view.right} onClick=${() => scrollColumns(1)} aria-label="Show the columns to the right"><${Icon} name="right" /></button>
    </div>`}
    <div class=${'board-wrap' + (view.left ? ' more-left' : '') + (view.right ? ' more-right' : '')}>
    <div class="board" role="list" aria-label="Columns" ref=${boardRef}>
      ${columns.map((col, ci) => html`<${ColumnView} key=${col.id} column=${col} cards=${byColumn.get(col.id) || []} names=${names} recurring=${data.data.recurring}
        base=${base} params=${params} move=${move} onCreated=${replaceCard} readOnly=${archived}
        index=${ci} count=${columns.length} moveColumn=${moveColumn}
        left=${columns[ci - 1]?.id} right=${columns[ci + 1]?.id} columnCards=${(/** @type {string} */ id) => byColumn.get(id) || []} />`)}
      ${columns.length === 0 && html`<p class="muted">This project has no column yet: add one in the <a href=${base + '/settings'}>project settings</a>.</p>`}
    </div>
    </div>
    ${open && html`<${CardDetail} key=${open.id} card=${open} org=${org} ws=${ws} project=${project} columns=${columns} labels=${labels} members=${members}
      cards=${data.data.cards} onChange=${replaceCard} onClose=${() => navigate(base)} onLabels=${reload} readOnly=${archived}
      onDeleted=${() => { data.set((d) => d && { ...d, cards: d.cards.filter((x) => x.id !== open.id) }); navigate(base); }} />`}
    ${card && !open && html`<p class="error" role="alert">That card is not on this board (archived or deleted).</p>`}
  </div>`;
}

/**
 * @param {{column: Column, cards: Card[], names: Map<string,string>, recurring: Set<string>, base: string, params: Record<string,string>,
 *   move: (id: string, col: string, index: number) => void, onCreated: (c: Card) => void, left?: string, right?: string,
 *   columnCards: (id: string) => Card[], readOnly?: boolean, index: number, count: number,
 *   moveColumn: (id: string, index: number, focus?: string) => void}} props
 */
function ColumnView({ column, cards, names, recurring, base, params, move, onCreated, left, right, columnCards, readOnly, index, count, moveColumn }) {
  const [drop, setDrop] = useState(-1);
  const [colOver, setColOver] = useState(false);
  /** @param {DragEvent} e */
  const isColumnDrag = (e) => !!e.dataTransfer?.types.includes(COLUMN_TYPE);
  const [run, busy, error] = useAction();
  const listRef = useRef(/** @type {HTMLOListElement|null} */ (null));
  /** @param {DragEvent} e */
  const indexAt = (e) => {
    const items = [...(listRef.current?.querySelectorAll('[data-card-id]:not(.dragging)') || [])];
    const i = items.findIndex((el) => { const r = el.getBoundingClientRect(); return e.clientY < r.top + r.height / 2; });
    return i < 0 ? items.length : i;
  };
  /** @param {KeyboardEvent} e @param {Card} c @param {number} i */
  const onKey = (e, c, i) => {
    if (e.key === 'Enter' && e.target === e.currentTarget) { navigate(`${base}?card=${c.id}`); return; }
    if (!e.altKey || readOnly) return;
    const to = { ArrowLeft: left, ArrowRight: right }[e.key];
    if (to) { e.preventDefault(); move(c.id, to, Math.min(i, columnCards(to).length)); }
    else if (e.key === 'ArrowUp' && i > 0) { e.preventDefault(); move(c.id, column.id, i - 1); }
    else if (e.key === 'ArrowDown' && i < cards.length - 1) { e.preventDefault(); move(c.id, column.id, i + 1); }
  };
  return html`<section class=${'column' + (colOver ? ' column-drop' : '')} role="listitem" aria-labelledby=${'col-' + column.id} data-column-id=${column.id}
    onDragOver=${(/** @type {DragEvent} */ e) => { if (!readOnly && isColumnDrag(e)) { e.preventDefault(); setColOver(true); } }}
    onDragLeave=${(/** @type {DragEvent} */ e) => { if (!/** @type {Node} */ (e.currentTarget).contains(/** @type {Node} */ (e.relatedTarget))) setColOver(false); }}
    onDrop=${(/** @type {DragEvent} */ e) => { if (!isColumnDrag(e)) return; e.preventDefault(); setColOver(false); const id = e.dataTransfer?.getData(COLUMN_TYPE); if (id && !readOnly) moveColumn(id, index); }}>
    <div class="column-head" draggable=${!readOnly}
      onDragStart=${(/** @type {DragEvent} */ e) => { if (e.target !== e.currentTarget) return; e.dataTransfer?.setData(COLUMN_TYPE, column.id); if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move'; }}>
      <h2 id=${'col-' + column.id}>${column.name} <span class="count" aria-label=${cards.length + ' cards'}>${cards.length}</span></h2>
      ${!readOnly && html`<span class="column-move">
        <button type="button" class="secondary icon-button" data-column-move=${column.id + ':left'} disabled=${index === 0}
          aria-label=${`Move column ${column.name} left`} title="Move column left" onClick=${() => moveColumn(column.id, index - 1, column.id + ':left')}><${Icon} name="left" /></button>
        <button type="button" class="secondary icon-button" data-column-move=${column.id + ':right'} disabled=${index === count - 1}
          aria-label=${`Move column ${column.name} right`} title="Move column right" onClick=${() => moveColumn(column.id, index + 1, column.id + ':right')}><${Icon} name="right" /></button>
      </span>`}
    </div>
    <ol ref=${listRef} class=${'cards' + (drop >= 0 ? ' drop-target' : '')} aria-labelledby=${'col-' + column.id}
      onDragOver=${(/** @type {DragEvent} */ e) => { if (isColumnDrag(e)) return; e.preventDefault(); if (e.dataTransfer) e.dataTransfer.dropEffect = 'move'; setDrop(indexAt(e)); }}
      onDragLeave=${(/** @type {DragEvent} */ e) => { if (!listRef.current?.contains(/** @type {Node} */ (e.relatedTarget))) setDrop(-1); }}
      onDrop=${(/** @type {DragEvent} */ e) => { if (isColumnDrag(e)) return; e.preventDefault(); const id = e.dataTransfer?.getData('text/plain'); const i = indexAt(e); setDrop(-1); if (id && !readOnly) move(id, column.id, i); }}>
      ${cards.map((c, i) => html`${drop === i && html`<li class="drop-line" aria-hidden="true"></li>`}<${CardTile} key=${c.id} card=${c} names=${names} repeats=${recurring.has(c.id)} base=${base} readOnly=${readOnly}
        onKey=${(/** @type {KeyboardEvent} */ e) => onKey(e, c, i)} />`)}
      ${drop === cards.length && html`<li class="drop-line" aria-hidden="true"></li>`}
    </ol>
    ${!readOnly && html`<form class="add-card" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const input = /** @type {HTMLInputElement} */ (f.elements.namedItem('title'));
      const title = input.value.trim();
      if (!title) return;
      run(async () => {
        const c = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns/{columnId}/cards', { ...params, columnId: column.id }, { title });
        onCreated(c);
        input.value = '';
        announce(`Card ${title} added to ${column.name}`);
      });
    }}>
      <label class="visually-hidden" for=${'new-' + column.id}>New card in ${column.name}</label>
      <input id=${'new-' + column.id} name="title" placeholder="Add a card" maxlength="500" autocomplete="off" />
      <button type="submit" disabled=${busy}>Add</button>
      <${ErrorMessage} error=${error} />
    </form>`}
  </section>`;
}

/** The drag data type of a column dragged by its header (a card's is text/plain, its id). */
const COLUMN_TYPE = 'application/x-pilot-column';

/** @param {{card: Card, names: Map<string,string>, repeats: boolean, base: string, onKey: (e: KeyboardEvent) => void, readOnly?: boolean}} props */
function CardTile({ card: c, names, repeats, base, onKey, readOnly }) {
  const done = c.checklist.filter((i) => i.done).length;
  const overdue = c.dueDate && dueDay(c.dueDate) < todayDay();
  return html`<li class="card" draggable=${!readOnly} tabindex="0" data-card-id=${c.id} aria-describedby="move-hint"
    onKeyDown=${onKey}
    onDragStart=${(/** @type {DragEvent} */ e) => { e.dataTransfer?.setData('text/plain', c.id); if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move'; /** @type {HTMLElement} */ (e.currentTarget).classList.add('dragging'); }}
    onDragEnd=${(/** @type {DragEvent} */ e) => /** @type {HTMLElement} */ (e.currentTarget).classList.remove('dragging')}>
    <a class="card-title" href=${`${base}?card=${c.id}`} tabindex="-1">${c.title}</a>
    ${c.labels.length > 0 && html`<ul class="labels" aria-label="Labels">${c.labels.map((l) => html`<li class="label" style=${{ '--label': l.color }}>${l.name}</li>`)}</ul>`}
    <p class="meta">
      <span class=${'priority ' + c.priority} title="Priority">${c.priority}</span>
      ${c.assigneeId && html`<span title="Assignee">${names.get(c.assigneeId) || 'Someone'}</span>`}
      ${c.dueDate && html`<span class=${overdue ? 'due overdue' : 'due'} title="Due date">Due ${formatDue(c.dueDate)}</span>`}
      ${repeats && html`<span class="repeats" title="Repeats">↻<span class="visually-hidden"> Repeats</span></span>`}
      ${c.checklist.length > 0 && html`<span class="meta-icon" title="Checklist"><${Icon} name="checklist" /><span class="visually-hidden">Checklist done: </span> ${done}/${c.checklist.length}</span>`}
      ${c.commentCount > 0 && html`<span class="meta-icon comments" title="Comments"><${Icon} name="comment" /> ${c.commentCount}<span class="visually-hidden">${c.commentCount === 1 ? ' comment' : ' comments'}</span></span>`}
      ${c.attachmentCount > 0 && html`<span class="meta-icon attachments" title="Attachments"><${Icon} name="attachment" /> ${c.attachmentCount}<span class="visually-hidden">${c.attachmentCount === 1 ? ' attachment' : ' attachments'}</span></span>`}
    </p>
  </li>`;
}
