// @ts-check
// The frame of the signed-in screens: the organization and workspace switcher, the navigation, the
// unread notifications and sign-out.
import { html, useState, useEffect } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { session } from './session.js';
import { watchWorkspace } from './live.js';
import { NewPlace, WorkspaceGate } from './team.js';
import { TimerIndicator } from './timetrack.js';

/** @param {{org?: string, ws?: string, children?: any}} props */
export function Shell({ org, ws, children }) {
  const [unread, setUnread] = useState(0);
  const [creating, setCreating] = useState(/** @type {''|'organization'|'workspace'} */ (''));
  const known = !!org && !!ws && session.places.some((o) => o.slug === org && o.workspaces.some((w) => w.slug === ws));
  useEffect(() => {
    const load = () => api.get('/notifications/count').then((c) => setUnread(c.count), () => {});
    load();
    const stop = org && ws && known ? watchWorkspace(org, ws, load) : () => {};
    const t = setInterval(load, 60000);
    return () => { stop(); clearInterval(t); };
  }, [org, ws, known]);
  const base = org && ws ? `/w/${org}/${ws}` : '';
  const current = org && ws ? `${org}/${ws}` : '';
  return html`<div class="shell">
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${base || '/'}>Pilot</a>
      <label class="switcher"><span class="visually-hidden">Workspace</span>
        <select aria-label="Organization and workspace" value=${current} onChange=${(/** @type {any} */ e) => {
          const v = e.currentTarget.value;
          if (v === 'new:organization' || v === 'new:workspace') { e.currentTarget.value = current; setCreating(v.slice(4)); } else navigate('/w/' + v);
        }}>
          ${!current && html`<option value="">Choose a workspace</option>`}
          ${session.places.map((o) => html`<optgroup label=${o.name}>
            ${o.workspaces.map((w) => html`<option value=${o.slug + '/' + w.slug}>${o.name} / ${w.name}</option>`)}
          </optgroup>`)}
          <optgroup label="Create">
            ${session.places.some((o) => o.myRole === 'owner' || o.myRole === 'admin') && html`<option value="new:workspace">New workspace…</option>`}
            <option value="new:organization">New organization…</option>
          </optgroup>
        </select>
      </label>
      ${creating && html`<${NewPlace} kind=${creating} org=${org} onClose=${() => setCreating('')} />`}
      ${base && html`<form class="search" role="search" onSubmit=${(/** @type {any} */ e) => { e.preventDefault(); const q = new FormData(e.currentTarget).get('q'); navigate(`${base}/search?q=${encodeURIComponent(String(q || ''))}`); }}>
        <label for="top-search" class="visually-hidden">Search</label>
        <input id="top-search" name="q" type="search" placeholder="Search" required />
      </form>`}
      <nav aria-label="Main">
        ${base && html`<a href=${base}>Projects</a>
        <a href=${base + '/agents'}>Agents</a>
        <a href=${base + '/my-work'}>My work</a>
        <a href=${base + '/portfolio'}>Portfolio</a>
        <a href=${base + '/proposals'}>Proposals</a>
        <a href=${base + '/docs'}>Documents</a>
        <a href=${base + '/pilotage'}>Pilotage</a>
        <a href=${base + '/pipelines'}>Pipelines</a>
        <a href=${base + '/time'}>Time</a>
        <a href=${base + '/members'}>Members</a>
        <a href=${base + '/settings/workspace'}>Settings</a>
        <a href=${base + '/inbox'} aria-label=${`Inbox, ${unread} unread`}>Inbox${unread > 0 && html` <span class="badge">${unread}</span>`}</a>`}
        <a href="/settings" aria-current=${location.pathname.startsWith('/settings') ? 'page' : undefined}>Account</a>
        <a href="/sign-out">Sign out</a>
      </nav>
      <${TimerIndicator} />
    </header>
    <main id="main" tabindex="-1">${org && ws ? html`<${WorkspaceGate} org=${org} ws=${ws}>${children}<//>` : children}</main>
  </div>`;
}
