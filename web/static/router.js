// @ts-check
// The app's routes: the path in the address bar names the screen, so a reload or a link opens it again.
import { useState, useEffect } from './vendor/preact-hooks.js';

const listeners = new Set();

/** Opens path in the app (no page load). @param {string} path @param {{replace?: boolean}} [o] */
export function navigate(path, o = {}) {
  if (o.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  listeners.forEach((f) => f());
  window.scrollTo(0, 0);
}

addEventListener('popstate', () => listeners.forEach((f) => f()));

/** The current location; the component re-renders when it changes. */
export function useLocation() {
  const [, set] = useState(0);
  useEffect(() => {
    const f = () => set((n) => n + 1);
    listeners.add(f);
    return () => { listeners.delete(f); };
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/**
 * Matches path against a pattern with :name parts: the parameters, or null.
 * @param {string} pattern @param {string} path @returns {Record<string,string>|null}
 */
export function match(pattern, path) {
  const p = pattern.split('/');
  const s = path.replace(/\/+$/, '').split('/');
  if (path === '/' && pattern === '/') return {};
  if (p.length !== s.length) return null;
  /** @type {Record<string,string>} */
  const out = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) {
      if (!s[i]) return null;
      out[p[i].slice(1)] = decodeURIComponent(s[i]);
    } else if (p[i] !== s[i]) return null;
  }
  return out;
}

/** Follows a same-origin link inside the app; other clicks (new tab, modifier keys) are the browser's. @param {MouseEvent} e */
export function onLinkClick(e) {
  const a = /** @type {HTMLElement} */ (e.target).closest?.('a');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const href = a.getAttribute('href');
  if (!href || !href.startsWith('/') || href.startsWith('//') || a.hasAttribute('download') || a.target || a.dataset.native !== undefined) return;
  e.preventDefault();
  navigate(href);
}
