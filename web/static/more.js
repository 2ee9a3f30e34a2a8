// @ts-check
// Notifications, search and documents (the pilotage cockpit is in cockpit.js).
import { html, useState, useLoad, useAction, ErrorMessage, Loading, formatTime, formValues, humanize, When, ConfirmButton, actorLabel } from './ui.js';
import * as api from './api.js';
import { markdown, snippet } from './markdown.js';
import { navigate } from './router.js';
import { session } from './session.js';

/** @typedef {api.Schemas['NotificationOut']} Notice */

/** What a card's changed field is called: dueDate reads "due date", scopeId "scope". */
const fieldNames = /** @type {Record<string,string>} */ ({ dueDate: 'due date', startDate: 'start date', scopeId: 'scope', archived: 'archive state', customFields: 'custom fields' });

/** Names in words, joined: a, b and c. @param {string[]} xs */
const listed = (xs) => xs.length < 2 ? xs.join('') : xs.slice(0, -1).join(', ') + ' and ' + xs[xs.length - 1];

/**
 * What a notification says happened, after who did it: "moved it to Done".
 * @param {Notice['activity']} a @param {string} me
 */
function whatHappened(a, me) {
  const m = /** @type {Record<string, any>} */ (a.meta || {});
  switch (a.type) {
    case 'card_created': return 'created the card';
    case 'card_updated': return m.fields?.length ? 'changed its ' + listed(m.fields.map((/** @type {string} */ f) => fieldNames[f] || f)) : 'changed it';
    case 'card_moved': return 'moved it to ' + (m.toColumnName || humanize(m.toStatus) || 'another column');
    case 'card_archived': return 'archived it';
    case 'card_deleted': return 'deleted it';
    case 'card_assigned': return m.assigneeId === me ? 'assigned it to you' : m.assigneeId ? 'assigned it to someone else' : 'left it unassigned';
    case 'comment_added': return m.excerpt ? `commented: “${m.excerpt}”` : 'commented';
    case 'member_added': return m.userId === me ? 'added you to the project' : 'added a member to the project';
    case 'member_removed': return m.userId === me ? 'removed you from the project' : 'removed a member from the project';
    case 'due_date_reached': return 'Its due date has passed';
    case 'document_submitted': return 'submitted it for review';
    case 'document_reviewed': return (m.status === 'approved' ? 'approved it' : 'asked for changes') + (m.notes ? `: “${m.notes}”` : '');
    case 'project_deleted': return `deleted the project ${m.name || ''}`.trim();
    case 'webhook_disabled': return `A webhook (${m.url || 'unknown address'}) was disabled${m.reason ? ': ' + m.reason : ''}`;
    case 'automation_rules_disabled': return `Automation rules were disabled as their author left: ${listed((m.rules || []).map((/** @type {{name: string}} */ r) => r.name))}`;
    case 'pipeline_notice': return m.message || 'A pipeline sent a notice';
    case 'mission_question': return 'asks you about its mission; answer it on the mission\'s page';
    default: return humanize(a.type);
  }
}

/**
 * Where a notification leads: its card (the board with ?card=), its document, its mission or its project, in
 * the workspace it happened in.
 * @param {Notice['activity']} a @param {string} org @param {string} ws
 */
function noticeLink(a, org, ws) {
  const m = /** @type {Record<string, any>} */ (a.meta || {});
  // A notice of another workspace leads into that workspace (found among the person's places); one whose
  // workspace is not among them (left since) leads nowhere rather than into the open one.
  if (a.workspaceId) {
    const place = session.places.flatMap((o) => o.workspaces.map((w) => ({ org: o.slug, ws: w.slug, id: w.id })))
      .find((p) => p.id === a.workspaceId);
    if (!place) return '';
    ({ org, ws } = place);
  }
  if (m.missionId) return `/w/${org}/${ws}/missions/${m.missionId}`;
  if (a.documentId) return `/w/${org}/${ws}/docs?doc=${a.documentId}`;
  if (a.cardId && a.projectId && a.type !== 'card_deleted') return `/w/${org}/${ws}/p/${a.projectId}?card=${a.cardId}`;
  if (a.projectId && a.type !== 'project_deleted') return `/w/${org}/${ws}/p/${a.projectId}`;
  return '';
}

/** @param {{org: string, ws: string}} props */
export function Inbox({ org, ws }) {
  const list = useLoad((s) => api.get('/notifications', {}, { limit: 50 }, s), []);
  const [run, busy, error] = useAction();
  const me = session.user?.id || '';
  return html`<h1>Notifications</h1>
    <p><button class="secondary" disabled=${busy} onClick=${() => run(async () => { await api.patch('/notifications/read-all'); list.reload(); })}>Mark all as read</button></p>
    <${ErrorMessage} error=${list.error || error} />
    ${list.loading && !list.data ? html`<${Loading} />` : list.data?.length === 0 ? html`<p class="muted">Nothing new. You hear here of changes to the cards you follow, documents to review and your missions.</p>` : html`<ul class="notifications">
      ${list.data?.map((n) => {
        const a = n.activity;
        const link = noticeLink(a, org, ws);
        const what = whatHappened(a, me);
        // System events (a due date) and notices start with a capital and name nobody.
        const who = actorLabel(a);
        const sentence = who && /^[a-z]/.test(what) ? html`<strong class="actor" data-actor-type=${a.actorType}>${who}</strong> ${what}` : what;
        const subject = a.title || humanize(a.type);
        return html`<li class=${n.readAt ? 'read' : 'unread'} data-type=${a.type}>
          <p class="notice-subject">${link ? html`<a href=${link}>${subject}</a>` : html`<span>${subject}</span>`} ${!n.readAt && html`<span class="badge">new</span>`}</p>
          <p class="notice-what">${sentence} <span class="muted">· <${When} iso=${n.createdAt} /></span></p>
          ${!n.readAt && html`<p><button class="link" onClick=${() => run(async () => { await api.patch('/notifications/{id}/read', { id: n.id }); list.reload(); })}>Mark as read</button></p>`}
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
        <span class="muted"> ${r.kind === 'card' ? 'Card' : 'Document'}${r.status ? ', ' + humanize(r.status).toLowerCase() : ''}${r.matchedIn === 'comment' ? html`, <span class="matched-in">found in a comment</span>` : ''}</span>
        <p class="snippet">${snippet(r.snippet)}</p>
      </li>`)}</ol>`}`;
}

/** @typedef {api.Schemas['DocumentNodeOut']} DocNode */

/** @param {{nodes: DocNode[]|null, org: string, ws: string, current: string}} props */
function Tree({ nodes, org, ws, current }) {
  if (!nodes?.length) return null;
  return html`<ul class="tree">${nodes.map((n) => html`<li>
    <a href=${`/w/${org}/${ws}/docs?doc=${n.id}`} aria-current=${n.id === current ? 'page' : undefined}>${n.title}</a> <span class="muted">${humanize(n.status)}</span>
    <${Tree} nodes=${n.children} org=${org} ws=${ws} current=${current} /></li>`)}</ul>`;
}

/** @param {{org: string, ws: string, doc: string}} props */
export function Documents({ org, ws, doc }) {
  const params = { orgSlug: org, wsSlug: ws };
  const tree = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/all', params, undefined, s), [org, ws]);
  const ws_ = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}', params, undefined, s), [org, ws]);
  // The workspace's id, for a new document's context: known from the session's places at once (the
  // workspace's own read, which also says the person's roles, may still be on its way).
  const wsId = ws_.data?.id || session.places.find((o) => o.slug === org)?.workspaces.find((w) => w.slug === ws)?.id || '';
  const [run, busy, error] = useAction();
  return html`<h1>Documents</h1>
    <div class="split">
      <nav aria-label="Documents">
        <${ErrorMessage} error=${tree.error} />
        <${Tree} nodes=${tree.data} org=${org} ws=${ws} current=${doc} />
        ${tree.data?.length === 0 && html`<p class="muted">No document yet.</p>`}
        <form onSubmit=${(/** @type {Event} */ e) => {
          const v = formValues(e);
          const form = /** @type {HTMLFormElement} */ (e.currentTarget);
          run(async () => {
            const d = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/documents', params, { title: v.title, docType: 'document', contextType: 'workspace', contextId: wsId, contentFormat: 'markdown', content: '' });
            form.reset(); // ready for the next one: the title just used is not kept
            tree.reload();
            navigate(`/w/${org}/${ws}/docs?doc=${d.id}`);
          });
        }}>
          <label for="doc-title">New document</label>
          <input id="doc-title" name="title" required maxlength="300" />
          <${ErrorMessage} error=${error} />
          <button type="submit" disabled=${busy || !wsId}>Create</button>
        </form>
      </nav>
      <div>${doc ? html`<${DocumentView} key=${doc} org=${org} ws=${ws} id=${doc} onChange=${tree.reload} reviewer=${ws_.data?.myPilotageRole === 'reviewer' || ws_.data?.myPilotageRole === 'owner'} />` : html`<p class="muted">Choose a document.</p>`}</div>
    </div>`;
}

/**
 * Who may give a pending document its review, and what the page says instead of the buttons.
 * @param {{doc: api.Schemas['DocumentOut'], reviewer: boolean, busy: boolean, review: (status: 'approved'|'changes_requested') => void}} props
 */
function ReviewActions({ doc, reviewer, busy, review }) {
  const mine = doc.authorId === session.user?.id;
  if (mine && !doc.authorMayApprove) return html`<p class="muted review-note">You wrote this document, so a teammate who reviews documents approves it.</p>`;
  if (!reviewer) return html`<p class="muted review-note">A reviewer of the workspace reviews it.</p>`;
  return html`<button disabled=${busy} onClick=${() => review('approved')}>Approve</button>
    <button class="secondary" disabled=${busy} onClick=${() => review('changes_requested')}>Request changes</button>`;
}

/** @param {{org: string, ws: string, id: string, onChange: () => void, reviewer: boolean}} props */
function DocumentView({ org, ws, id, onChange, reviewer }) {
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
    <p class="muted">${humanize(doc.docType)} · <span class=${'status ' + doc.status}>${humanize(doc.status)}</span> · updated ${formatTime(doc.updatedAt)}</p>
    ${editing ? html`<form onSubmit=${(/** @type {Event} */ e) => { const v = formValues(e); act(async () => { const r = await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}', params, { title: v.title, content: v.content }); setEditing(false); return r; }); }}>
        <label for="doc-edit-title">Title</label><input id="doc-edit-title" name="title" defaultValue=${doc.title} required />
        <label for="doc-edit-content">Content (markdown)</label><textarea id="doc-edit-content" name="content" rows="16" defaultValue=${doc.content}></textarea>
        <p class="actions"><button type="submit" disabled=${busy}>Save</button> <button type="button" class="secondary" onClick=${() => setEditing(false)}>Cancel</button></p>
      </form>`
      : html`<div class="markdown">${doc.contentFormat === 'markdown' ? markdown(doc.content) : html`<pre>${doc.content}</pre>`}</div>
        ${doc.status === 'pending_review'
          ? html`<p class="muted review-note">Pending review: editing reopens after the review.</p>
            <div class="actions"><${ReviewActions} doc=${doc} reviewer=${reviewer} busy=${busy}
              review=${(/** @type {'approved'|'changes_requested'} */ status) => act(() => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}/review', params, { status }))} /></div>`
          : html`<p class="actions">
            <button onClick=${() => setEditing(true)}>Edit</button>
            ${(doc.status === 'draft' || doc.status === 'changes_requested') && html`<button class="secondary" disabled=${busy} onClick=${() => act(() => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}/submit-review', params))}>Submit for review</button>`}
            <${ConfirmButton} label="Delete" title=${'Delete ' + doc.title + '?'}
              detail=${html`<p>Its reviews and its links to cards are deleted with it; the documents under it move up a level.</p>`}
              onConfirm=${async () => { await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/{documentId}', params); onChange(); navigate(`/w/${org}/${ws}/docs`); }} />
          </p>`}`}
    <${ErrorMessage} error=${error} />
  </article>`;
}
