// @ts-check
// The frame of the signed-in screens: the organization and workspace switcher, the navigation, the
// unread notifications and sign-out.
import { html, useState, useEffect } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { session } from './session.js';
import { watchWorkspace } from './live.js';

/** @param {{org?: string, ws?: string, children?: any}} props */
export function Shell({ org, ws, children }) {
  const [unread, setUnread] = useState(0);
  useEffect(() => {
    const load = () => api.get('/notifications/count').then((c) => setUnread(c.count), () => {});
    load();
    const stop = org && ws ? watchWorkspace(org, ws, load) : () => {};
    const t = setInterval(load, 60000);
    return () => { stop(); clearInterval(t); };
  }, [org, ws]);
  const base = org && ws ? `/w/${org}/${ws}` : '';
  const current = org && ws ? `${org}/${ws}` : '';
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${base || '/'}>Pilot</a>
      <label class="switcher"><span class="visually-hidden">Workspace</span>
        <select aria-label="Organization and workspace" value=${current} onChange=${(/** @type {any} */ e) => navigate('/w/' + e.currentTarget.value)}>
          ${!current && html`<option value="">Choose a workspace</option>`}
          ${session.places.map((o) => html`<optgroup label=${o.name}>
            ${o.workspaces.map((w) => html`<option value=${o.slug + '/' + w.slug}>${o.name} / ${w.name}</option>`)}
          </optgroup>`)}
        </select>
      </label>
      ${base && html`<form class="search" role="search" onSubmit=${(/** @type {any} */ e) => { e.preventDefault(); const q = new FormData(e.currentTarget).get('q'); navigate(`${base}/search?q=${encodeURIComponent(String(q || ''))}`); }}>
        <label for="top-search" class="visually-hidden">Search</label>
        <input id="top-search" name="q" type="search" placeholder="Search" required />
      </form>`}
      <nav aria-label="Main">
        ${base && html`<a href=${base}>Projects</a>
        <a href=${base + '/agents'}>Agents</a>
        <a href=${base + '/proposals'}>Proposals</a>
        <a href=${base + '/docs'}>Documents</a>
        <a href=${base + '/pilotage'}>Pilotage</a>
        <a href=${base + '/inbox'} aria-label=${`Inbox, ${unread} unread`}>Inbox${unread > 0 && html` <span class="badge">${unread}</span>`}</a>`}
        <a href="/sign-out">Sign out</a>
      </nav>
    </header>
    <main id="main" tabindex="-1">${children}</main>
  </div>`;
}
