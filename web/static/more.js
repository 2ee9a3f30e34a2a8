// @ts-check
// Notifications, search and documents (the pilotage cockpit is in cockpit.js).
import { html, useState, useLoad, useAction, ErrorMessage, Loading, formatTime, formValues } from './ui.js';
import * as api from './api.js';
import { markdown, snippet } from './markdown.js';
import { navigate } from './router.js';

/** @param {{org: string, ws: string}} props */
export function Inbox({ org, ws }) {
  const list = useLoad((s) => api.get('/notifications', {}, { limit: 50 }, s), []);
  const [run, busy, error] = useAction();
  return html`<h1>Notifications</h1>
    <p><button class="secondary" disabled=${busy} onClick=${() => run(async () => { await api.patch('/notifications/read-all'); list.reload(); })}>Mark all as read</button></p>
    <${ErrorMessage} error=${list.error || error} />
    ${list.loading && !list.data ? html`<${Loading} />` : list.data?.length === 0 ? html`<p class="muted">Nothing new.</p>` : html`<ul class="notifications">
      ${list.data?.map((n) => {
        const a = n.activity;
        const link = a?.cardId && a?.projectId ? `/w/${org}/${ws}/p/${a.projectId}?card=${a.cardId}` : '';
        return html`<li class=${n.readAt ? 'read' : 'unread'}>
          <p><strong>${(a?.type || 'activity').replace(/_/g, ' ')}</strong> <span class="muted">${formatTime(n.createdAt)}</span> ${!n.readAt && html`<span class="badge">new</span>`}</p>
          <p>${link && html`<a href=${link}>Open the card</a> `}${!n.readAt && html`<button class="link" onClick=${() => run(async () => { await api.patch('/notifications/{id}/read', { id: n.id }); list.reload(); })}>Mark as read</button>`}</p>
        </li>`;
      })}</ul>`}`;
}

/** @param {{org: string, ws: string, q: string}} props */
export function Search({ org, ws, q }) {
  const res = useLoad((s) => (q ? api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/search', { orgSlug: org, wsSlug: ws }, { q }, s) : Promise.resolve([])), [org, ws, q]);
  return html`<h1>Search</h1>
    <form role="search" onSubmit=${(/** @type {Event} */ e) => { const v = formValues(e); navigate(`/w/${org}/${ws}/search?q=${encodeURIComponent(v.q)}`); }}>
      <label for="search-q">Words, "quoted phrases", or -excluded</label>
      <input id="search-q" name="q" type="search" defaultValue=${q} required maxlength="200" />
      <button type="submit">Search</button>
    </form>
    <${ErrorMessage} error=${res.error} />
    ${res.loading ? html`<${Loading} />` : q && res.data?.length === 0 ? html`<p class="muted">No match.</p>` : html`<ol class="results">
      ${res.data?.map((r) => html`<li>
        <a href=${r.kind === 'card' ? `/w/${org}/${ws}/p/${r.projectId}?card=${r.id}` : `/w/${org}/${ws}/docs?doc=${r.id}`}><strong>${r.title}</strong></a>
        <span class="muted"> ${r.kind}${r.status ? ', ' + r.status : ''}</span>
        <p class="snippet">${snippet(r.snippet)}</p>
      </li>`)}</ol>`}`;
}

/** @typedef {api.Schemas['DocumentNodeOut']} DocNode */

/** @param {{nodes: DocNode[]|null, org: string, ws: string, current: string}} props */
function Tree({ nodes, org, ws, current }) {
  if (!nodes?.length) return null;
  return html`<ul class="tree">${nodes.map((n) => html`<li>
    <a href=${`/w/${org}/${ws}/docs?doc=${n.id}`} aria-current=${n.id === current ? 'page' : undefined}>${n.title}</a> <span class="muted">${n.status.replace('_', ' ')}</span>
    <${Tree} nodes=${n.children} org=${org} ws=${ws} current=${current} /></li>`)}</ul>`;
}

/** @param {{org: string, ws: string, doc: string}} props */
export function Documents({ org, ws, doc }) {
  const params = { orgSlug: org, wsSlug: ws };
  const tree = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/all', params, undefined, s), [org, ws]);
  const ws_ = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}', params, undefined, s), [org, ws]);
  const [run, busy, error] = useAction();
  return html`<h1>Documents</h1>
    <div class="split">
      <nav aria-label="Documents">
        <${ErrorMessage} error=${tree.error} />
        <${Tree} nodes=${tree.data} org=${org} ws=${ws} current=${doc} />
        ${tree.data?.length === 0 && html`<p class="muted">No document yet.</p>`}
        <form onSubmit=${(/** @type {Event} */ e) => {
          const v = formValues(e);
          run(async () => {
            const d = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/documents', params, { title: v.title, docType: 'document', contextType: 'workspace', contextId: ws_.data?.id || '', contentFormat: 'markdown', content: '' });
            tree.reload();
            navigate(`/w/${org}/${ws}/docs?doc=${d.id}`);
          });
        }}>
          <label for="doc-title">New document</label>
          <input id="doc-title" name="title" required maxlength="300" />
          <${ErrorMessage} error=${error} />
          <button type="submit" disabled=${busy || !ws_.data}>Create</button>
        </form>
      </nav>
      <div>${doc ? html`<${DocumentView} key=${doc} org=${org} ws=${ws} id=${doc} onChange=${tree.reload} />` : html`<p class="muted">Choose a document.</p>`}</div>
    </div>`;
}

/** @param {{org: string, ws: string, id: string, onChange: () => void}} props */
function DocumentView({ org, ws, id, onChange }) {
  const params = { orgSlug: org, wsSlug: ws, documentId: id };
  const d = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}', params, undefined, s), [id]);
  const [editing, setEditing] = useState(false);
  const [run, busy, error] = useAction();
  if (d.error) return html`<${ErrorMessage} error=${d.error} />`;
  if (!d.data) return html`<${Loading} />`;
  const doc = d.data;
  const act = (/** @type {() => Promise<any>} */ f) => run(async () => { d.set(await f()); onChange(); });
  return html`<article class="document" aria-labelledby="doc-h">
    <h2 id="doc-h">${doc.title}</h2>
    <p class="muted">${doc.docType} · <span class=${'status ' + doc.status}>${doc.status.replace('_', ' ')}</span> · updated ${formatTime(doc.updatedAt)}</p>
    ${editing ? html`<form onSubmit=${(/** @type {Event} */ e) => { const v = formValues(e); act(async () => { const r = await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}', params, { title: v.title, content: v.content }); setEditing(false); return r; }); }}>
        <label for="doc-edit-title">Title</label><input id="doc-edit-title" name="title" defaultValue=${doc.title} required />
        <label for="doc-edit-content">Content (markdown)</label><textarea id="doc-edit-content" name="content" rows="16" defaultValue=${doc.content}></textarea>
        <p class="actions"><button type="submit" disabled=${busy}>Save</button> <button type="button" class="secondary" onClick=${() => setEditing(false)}>Cancel</button></p>
      </form>`
      : html`<div class="markdown">${doc.contentFormat === 'markdown' ? markdown(doc.content) : html`<pre>${doc.content}</pre>`}</div>
        <p class="actions">
          <button onClick=${() => setEditing(true)}>Edit</button>
          ${(doc.status === 'draft' || doc.status === 'changes_requested') && html`<button class="secondary" disabled=${busy} onClick=${() => act(() => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}/submit-review', params))}>Submit for review</button>`}
          ${doc.status === 'pending_review' && html`<button disabled=${busy} onClick=${() => act(() => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}/review', params, { status: 'approved' }))}>Approve</button>
            <button class="secondary" disabled=${busy} onClick=${() => act(() => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}/review', params, { status: 'changes_requested' }))}>Request changes</button>`}
        </p>`}
    <${ErrorMessage} error=${error} />
  </article>`;
}
