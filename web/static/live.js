// @ts-check
// Live updates: event streams with EventSource, and the board's refresh.

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
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    es?.close();
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
  open();
  return stop;
}

/**
 * Keeps a workspace's screen current: onChange runs when something in the workspace may have changed.
 * Today that is when the window regains focus or the tab becomes visible again. This is the one place
 * the workspace's event feed (GET …/workspaces/{wsSlug}/events, activity events such as card_moved)
 * plugs in: follow() it here and call onChange(event) for each event.
 * @param {string} org @param {string} ws
 * @param {(event?: {type: string, projectId?: string, cardId?: string}) => void} onChange
 * @returns {() => void} stops watching
 */
export function watchWorkspace(org, ws, onChange) {
  void org; void ws;
  const onFocus = () => onChange();
  const onVisible = () => { if (document.visibilityState === 'visible') onChange(); };
  addEventListener('focus', onFocus);
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    removeEventListener('focus', onFocus);
    document.removeEventListener('visibilitychange', onVisible);
  };
}
