// @ts-check
// Live updates: event streams with EventSource, and the board's refresh.
import * as api from './api.js';

/**
 * Follows a server-sent event stream: each event once, in order, whatever the connection does. The
 * browser reconnects by itself after a network error (sending Last-Event-ID); when it gives up (the
 * server answered an error, or restarted), this opens the stream again after a pause, and the events
 * replayed from the start are skipped up to the last one seen. stop() ends it; so does an event for
 * which onEvent returns true (the stream's last).
 * @param {string} url
 * @param {string[]} types the event names to listen to
 * @param {(type: string, data: any, id: number) => boolean|void} onEvent
 * @param {(state: 'open'|'reconnecting'|'closed') => void} [onState]
 */
export function follow(url, types, onEvent, onState = () => {}) {
  let last = 0;
  let stopped = false;
  /** @type {EventSource|null} */
  let es = null;
  let delay = 1000;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  // A page the browser keeps after it is left (the back-forward cache) lets go of its stream, or six such
  // pages take every connection to the host and the next page load waits; it follows again if shown again.
  const hide = () => { clearTimeout(timer); es?.close(); es = null; };
  const show = (/** @type {PageTransitionEvent} */ e) => { if (e.persisted && !stopped && !es) open(); };
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    es?.close();
    removeEventListener('pagehide', hide);
    removeEventListener('pageshow', show);
    onState('closed');
  };
  const open = () => {
    if (stopped) return;
    es = new EventSource(url, { withCredentials: true });
    es.onopen = () => { delay = 1000; onState('open'); };
    es.onerror = () => {
      if (stopped || !es) return;
      if (es.readyState === EventSource.CLOSED) {
        onState('reconnecting');
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, 15000);
      } else onState('reconnecting');
    };
    for (const t of types) {
      es.addEventListener(t, (ev) => {
        const m = /** @type {MessageEvent} */ (ev);
        const id = Number(m.lastEventId) || 0;
        if (id && id <= last) return; // replayed: seen already
        if (id) last = id;
        let data;
        try { data = JSON.parse(m.data); } catch { data = m.data; }
        if (onEvent(t, data, id) === true) stop();
      });
    }
  };
  addEventListener('pagehide', hide);
  addEventListener('pageshow', show);
  open();
  return stop;
}

/**
 * The activity types of the workspace's event feed (GET …/workspaces/{wsSlug}/events): each is an
 * event name of the stream, so EventSource needs them named.
 */
const feedTypes = ['card_created', 'card_updated', 'card_moved', 'card_archived', 'card_deleted', 'card_assigned',
  'comment_added', 'comment_deleted', 'member_added', 'member_removed', 'project_created', 'project_updated',
  'project_deleted', 'document_created', 'document_updated', 'document_submitted', 'document_reviewed',
  'mission_status_changed', 'mission_question', 'pipeline_run_finished', 'pilotage_record_created', 'pilotage_record_updated',
  'pilotage_record_deleted', 'pilotage_action_proposed', 'pilotage_action_reviewed', 'pilotage_action_applied',
  'due_date_reached'];

/** @typedef {{id?: string, type: string, workspaceId?: string, projectId?: string|null, cardId?: string|null}} FeedEvent */
/** @typedef {(events?: FeedEvent[]) => void} OnChange */

/** One feed connection per workspace, shared by the screens that watch it. */
const watched = new Map();

/**
 * Keeps a workspace's screen current: onChange runs when something in the workspace may have changed,
 * with the feed's events when it has them (several close together come in one call), or with none.
 * That is when the window regains focus or the tab becomes visible again, and for each event of the
 * workspace's event feed, which one EventSource per workspace follows (reconnecting by itself; a
 * `reload` event, a cursor too old, means reading everything again). A server without the feed answers
 * 404: the focus refresh alone then.
 * @param {string} org @param {string} ws @param {OnChange} onChange
 * @returns {() => void} stops watching
 */
export function watchWorkspace(org, ws, onChange) {
  const key = org + '/' + ws;
  let w = watched.get(key);
  if (!w) {
    w = openFeed(org, ws);
    watched.set(key, w);
  }
  w.subs.add(onChange);
  const onFocus = () => onChange();
  const onVisible = () => { if (document.visibilityState === 'visible') onChange(); };
  addEventListener('focus', onFocus);
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    removeEventListener('focus', onFocus);
    document.removeEventListener('visibilitychange', onVisible);
    w.subs.delete(onChange);
    if (w.subs.size === 0) {
      w.stop();
      watched.delete(key);
    }
  };
}

/** @param {string} org @param {string} ws */
function openFeed(org, ws) {
  /** @type {{subs: Set<OnChange>, stop: () => void}} */
  const w = { subs: new Set(), stop: () => {} };
  /** @type {FeedEvent[]} */
  let pending = [];
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const flush = () => { const evs = pending; pending = []; w.subs.forEach((f) => f(evs)); };
  const url = api.href('/orgs/{orgSlug}/workspaces/{wsSlug}/events', { orgSlug: org, wsSlug: ws });
  const open = () => {
    let opened = false;
    const stop = follow(url, [...feedTypes, 'reload'], (type, data) => {
      if (type === 'reload') {
        w.subs.forEach((f) => f());
        setTimeout(open, 0);
        return true;
      }
      pending.push(/** @type {FeedEvent} */ (data));
      clearTimeout(timer);
      timer = setTimeout(flush, 150);
      return false;
    }, (state) => {
      // The page says whether the workspace's changes reach it live (a style or a test can read it).
      document.documentElement.dataset.feed = state;
      if (state === 'open') opened = true;
      else if (state === 'reconnecting' && !opened) stop();
    });
    w.stop = () => { clearTimeout(timer); stop(); };
  };
  open();
  return w;
}
