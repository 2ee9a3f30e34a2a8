// @ts-check
// A card's detail: its fields, description (markdown), checklist, labels, custom field values, relations,
// comments, attachments, linked documents, its history, starting an agent's mission on it, and deleting it.
import { html, useState, useEffect, useLoad, useAction, ErrorMessage, formatTime, dueDay, dueValue, formValues, ConfirmButton, humanize, actorLabel } from './ui.js';
import { session } from './session.js';
import { CardFields, Relations, History, DeleteCard } from './cardextras.js';
import { Repeat } from './recurrence.js';
import { Icon } from './icons.js';
import * as api from './api.js';
import { markdown } from './markdown.js';
import { navigate } from './router.js';

/** @typedef {api.Schemas['CardOut']} Card */

const cardPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}';

/**
 * @param {{card: Card, org: string, ws: string, project: string, columns: api.Schemas['ColumnOut'][],
 *   labels: api.Schemas['LabelOut'][], members: api.Schemas['WorkspaceMemberOut'][], onChange: (c: Card) => void, onClose: () => void,
 *   onLabels: () => void, cards: Card[], onDeleted: () => void, readOnly?: boolean}} props
 */
export function CardDetail({ card, org, ws, project, columns, labels, members, onChange, onClose, onLabels, cards, onDeleted, readOnly }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project, cardId: card.id };
  const [run, busy, error] = useAction();
  const [preview, setPreview] = useState(false);
  useEffect(() => {
    const onKey = (/** @type {KeyboardEvent} */ e) => { if (e.key === 'Escape') onClose(); };
    addEventListener('keydown', onKey);
    document.getElementById('card-dialog-title')?.focus();
    return () => removeEventListener('keydown', onKey);
  }, []);
  // The card again, for its counts after a comment or an attachment.
  const refresh = () => { api.get(cardPath, params).then(onChange, () => {}); };
  /** @param {api.Schemas['UpdateCardInputBody']} body */
  const update = (body) => run(async () => onChange(await api.patch(cardPath, params, body)));
  const save = (/** @type {Event} */ e) => {
    const v = formValues(e);
    update({
      title: v.title.trim(), description: v.description, priority: /** @type {any} */ (v.priority),
      startDate: dueValue(v.startDate), dueDate: dueValue(v.dueDate), assigneeId: v.assignee || null,
    });
  };
  return html`<aside class="card-detail" role="dialog" aria-labelledby="card-dialog-title">
    <div class="detail-head">
      <h2 id="card-dialog-title" tabindex="-1">${card.title}</h2>
      <button class="secondary icon-button" onClick=${onClose} aria-label="Close the card"><${Icon} name="close" /></button>
    </div>
    ${readOnly && html`<p class="archived-banner" role="note">This project is archived: its cards can be read, not changed.</p>`}
    <fieldset class="card-body" disabled=${readOnly}>
    <form onSubmit=${save} class="card-form" key=${card.updatedAt}>
      <label for="card-title">Title</label>
      <input id="card-title" name="title" defaultValue=${card.title} required maxlength="500" />
      <div class="row">
        <label>Priority <select name="priority">
          ${['low', 'medium', 'high'].map((p) => html`<option value=${p} defaultSelected=${card.priority === p}>${p[0].toUpperCase() + p.slice(1)}</option>`)}</select></label>
        <label>Assignee <select name="assignee">
          <option value="">Nobody</option>${members.map((m) => html`<option value=${m.userId} defaultSelected=${card.assigneeId === m.userId}>${m.name || m.email}</option>`)}</select></label>
      </div>
      <div class="row">
        <label>Start <input type="date" name="startDate" defaultValue=${dueDay(card.startDate)} /></label>
        <label>Due <input type="date" name="dueDate" defaultValue=${dueDay(card.dueDate)} /></label>
      </div>
      <div class="desc-head"><label for="card-description">Description (markdown)</label>
        <button type="button" class="link" aria-pressed=${preview} onClick=${() => setPreview(!preview)}>${preview ? 'Edit' : 'Preview'}</button></div>
      ${preview ? html`<div class="markdown" aria-label="Description preview">${markdown(card.description)}</div>` : null}
      <textarea id="card-description" name="description" rows="6" maxlength="5000" hidden=${preview} defaultValue=${card.description}></textarea>
      <${ErrorMessage} error=${error} />
      <div class="actions">
        <button type="submit" disabled=${busy}>Save</button>
        <label>Column <select aria-label="Move to column" value=${card.columnId} onChange=${(/** @type {any} */ e) => update({ columnId: e.currentTarget.value })}>
          ${columns.map((c) => html`<option value=${c.id}>${c.name}</option>`)}</select></label>
        <button type="button" class="danger" disabled=${busy} onClick=${() => run(async () => { onChange(await api.patch(cardPath, params, { archived: true })); onClose(); })}>Archive</button>
      </div>
    </form>
    <div class="actions"><${DeleteCard} params=${params} card=${card} onDeleted=${onDeleted} /></div>
    ${!preview && card.description && html`<section aria-label="Description"><div class="markdown">${markdown(card.description)}</div></section>`}
    <${Labels} card=${card} labels=${labels} params=${params} onChange=${onChange} onLabels=${onLabels} />
    <${Checklist} card=${card} params=${params} onChange=${onChange} />
    <${CardFields} card=${card} params=${params} onChange=${onChange} />
    <${Repeat} params=${params} onSaved=${onLabels} />
    <${Relations} card=${card} cards=${cards} params=${params} base=${`/w/${org}/${ws}/p/${project}`} />
    <${StartMission} org=${org} ws=${ws} card=${card} />
    <${Comments} params=${params} onAdded=${refresh} />
    <${Attachments} params=${params} onAdded=${refresh} />
    <${LinkedDocuments} params=${params} org=${org} ws=${ws} />
    <${History} card=${card} params=${params} columns=${columns} members=${members} />
    </fieldset>
  </aside>`;
}

/** @param {{card: Card, labels: api.Schemas['LabelOut'][], params: Record<string,string>, onChange: (c: Card) => void, onLabels: () => void}} props */
function Labels({ card, labels, params, onChange, onLabels }) {
  const [run, busy, error] = useAction();
  const on = new Set(card.labels.map((l) => l.id));
  const toggle = (/** @type {string} */ id) => run(async () => {
    const p = { ...params, labelId: id };
    const path = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/labels/{labelId}';
    if (on.has(id)) await api.del(path, p);
    else await api.post(path, p);
    onChange(await api.get(cardPath, params));
  });
  return html`<section aria-labelledby="labels-title"><h3 id="labels-title">Labels</h3>
    ${labels.length === 0 ? html`<p class="muted">This project has no labels yet.</p>` : html`<div class="chips">
      ${labels.map((l) => html`<label class="chip"><input type="checkbox" checked=${on.has(l.id)} disabled=${busy} onChange=${() => toggle(l.id)} />
        <span class="label" style=${{ '--label': l.color }}>${l.name}</span></label>`)}</div>`}
    <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      if (!v.name.trim()) return;
      run(async () => {
        const l = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/labels', params, { name: v.name.trim(), color: v.color });
        await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/labels/{labelId}', { ...params, labelId: l.id });
        f.reset();
        onLabels();
        onChange(await api.get(cardPath, params));
      });
    }}>
      <label for="label-new" class="visually-hidden">New label</label>
      <input id="label-new" name="name" placeholder="New label" maxlength="50" />
      <label for="label-color" class="visually-hidden">Its colour</label>
      <input id="label-color" class="colour" name="color" type="color" defaultValue="#1f5fbf" />
      <button type="submit" disabled=${busy}>Add</button>
    </form>
    <${ErrorMessage} error=${error} />
  </section>`;
}

/** @param {{card: Card, params: Record<string,string>, onChange: (c: Card) => void}} props */
function Checklist({ card, params, onChange }) {
  const [run, busy, error] = useAction();
  const items = [...card.checklist].sort((a, b) => a.order - b.order);
  const done = items.filter((i) => i.done).length;
  return html`<section aria-labelledby="checklist-title"><h3 id="checklist-title">Checklist ${items.length > 0 && html`<span class="muted">${done}/${items.length}</span>`}</h3>
    ${items.length > 0 && html`<progress max=${items.length} value=${done} aria-label="Checklist progress"></progress>`}
    <ul class="checklist">${items.map((i) => html`<li><label><input type="checkbox" checked=${i.done} disabled=${busy}
      onChange=${() => run(async () => onChange(await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/checklist/{itemId}', { ...params, itemId: i._id }, { done: !i.done })))} /> ${i.title}</label>
      <button type="button" class="link remove-item" aria-label=${'Remove ' + i.title} disabled=${busy}
        onClick=${() => run(async () => onChange(await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/checklist/{itemId}', { ...params, itemId: i._id })))}>Remove</button></li>`)}</ul>
    <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      if (!v.title.trim()) return;
      run(async () => { onChange(await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/checklist', params, { title: v.title.trim() })); f.reset(); });
    }}>
      <label for="checklist-new" class="visually-hidden">New checklist item</label>
      <input id="checklist-new" name="title" placeholder="Add an item" maxlength="500" />
      <button type="submit" disabled=${busy}>Add</button>
    </form>
    <${ErrorMessage} error=${error} />
  </section>`;
}

/** @param {{params: Record<string,string>, onAdded: () => void}} props */
function Comments({ params, onAdded }) {
  const list = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/comments', params, undefined, s), [params.cardId]);
  const [run, busy, error] = useAction();
  return html`<section aria-labelledby="comments-title"><h3 id="comments-title">Comments</h3>
    <${ErrorMessage} error=${list.error} />
    ${list.data?.length === 0 && html`<p class="muted">No comment yet: the first one starts the conversation.</p>`}
    <ol class="comments">${list.data?.map((c) => html`<li data-author-type=${c.authorType}><p class="muted">${actorLabel({ actorType: c.authorType, onBehalfOf: c.onBehalfOf }, c.authorName)} · ${formatTime(c.createdAt)}</p><div class="markdown">${markdown(c.content)}</div>
      ${(c.authorId === session.user?.id || isAdmin(params)) && html`<${ConfirmButton} label="Delete" className="link danger" title="Delete this comment?"
        detail=${html`<p>The comment by ${c.authorName} is removed for everyone.</p>`}
        onConfirm=${async () => { await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/comments/{commentId}', { ...params, commentId: c.id }); list.reload(); onAdded(); }} />`}</li>`)}</ol>
    <form onSubmit=${(/** @type {Event} */ e) => {
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      if (!v.content.trim()) return;
      run(async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/comments', params, { content: v.content }); f.reset(); list.reload(); onAdded(); });
    }}>
      <label for="comment-new">Add a comment</label>
      <textarea id="comment-new" name="content" rows="3" maxlength="10000"></textarea>
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Comment</button>
    </form>
  </section>`;
}

/** @param {{params: Record<string,string>, onAdded: () => void}} props */
function Attachments({ params, onAdded }) {
  const path = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/attachments';
  const list = useLoad((s) => api.getAll(path, params, undefined, s), [params.cardId]);
  const [run, busy, error] = useAction();
  return html`<section aria-labelledby="attachments-title"><h3 id="attachments-title">Attachments</h3>
    <${ErrorMessage} error=${list.error} />
    <ul>${list.data?.map((a) => html`<li><a href=${api.href('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/attachments/{attachmentId}', { ...params, attachmentId: a.id })} download=${a.originalName}>${a.originalName}</a>
      <span class="muted"> ${Math.ceil(a.size / 1024)} KB</span>
      ${(a.uploadedBy === session.user?.id || isAdmin(params)) && html` <${ConfirmButton} label="Remove" className="link danger" title=${'Remove ' + a.originalName + '?'}
        detail=${html`<p>The file is deleted; its link stops working.</p>`}
        onConfirm=${async () => { await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/attachments/{attachmentId}', { ...params, attachmentId: a.id }); list.reload(); onAdded(); }} />`}</li>`)}</ul>
    <form onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const input = /** @type {HTMLInputElement} */ (f.elements.namedItem('file'));
      const file = input.files?.[0];
      if (!file) return;
      const form = new FormData();
      form.append('file', file);
      run(async () => { await api.upload(path, params, form); f.reset(); list.reload(); onAdded(); });
    }}>
      <label for="attachment-file">Upload a file (at most 10 MB)</label>
      <input id="attachment-file" name="file" type="file" />
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Upload</button>
    </form>
  </section>`;
}

/** @param {{params: Record<string,string>, org: string, ws: string}} props */
function LinkedDocuments({ params, org, ws }) {
  const list = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/documents', params, undefined, s), [params.cardId]);
  const all = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/all', params, undefined, s), [org, ws]);
  const [run, busy, error] = useAction();
  const linked = new Set((list.data || []).map((d) => d.id));
  /** @type {{id: string, title: string}[]} */
  const choices = [];
  /** @param {any[]|null|undefined} nodes @param {string} indent */
  const flatten = (nodes, indent) => (nodes || []).forEach((n) => { if (!linked.has(n.id)) choices.push({ id: n.id, title: indent + n.title }); flatten(n.children, indent + '· '); });
  flatten(all.data, '');
  return html`<section aria-labelledby="docs-title"><h3 id="docs-title">Linked documents</h3>
    <${ErrorMessage} error=${list.error} />
    ${list.data?.length === 0 && html`<p class="muted">No document is linked to this card.</p>`}
    <ul class="linked-docs">${list.data?.map((d) => html`<li><a href=${`/w/${org}/${ws}/docs?doc=${d.id}`}>${d.title}</a> <span class="muted">${humanize(d.docType)}, ${humanize(d.status)}</span>
      <button type="button" class="link" aria-label=${'Unlink ' + d.title} disabled=${busy}
        onClick=${() => run(async () => { await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/documents/{documentId}/link', { ...params, documentId: d.id }); list.reload(); })}>Unlink</button></li>`)}</ul>
    ${choices.length > 0 ? html`<form class="inline" onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      if (!v.document) return;
      run(async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/documents/{documentId}/link', { ...params, documentId: v.document }); list.reload(); });
    }}>
      <label for="doc-link">Link a document</label>
      <select id="doc-link" name="document">${choices.map((c) => html`<option value=${c.id}>${c.title}</option>`)}</select>
      <button type="submit" disabled=${busy}>Link</button>
    </form>` : all.data && html`<p class="muted">Every document of the workspace is linked, or it has none yet: <a href=${`/w/${org}/${ws}/docs`}>write one</a>.</p>`}
    <${ErrorMessage} error=${error} />
  </section>`;
}

/** Whether the person administers the workspace of params (its comments and files are theirs to remove too). @param {Record<string,string>} params */
function isAdmin(params) {
  return session.places.find((o) => o.slug === params.orgSlug)?.workspaces.find((w) => w.slug === params.wsSlug)?.myRole === 'admin';
}

/** @param {{org: string, ws: string, card: Card}} props */
function StartMission({ org, ws, card }) {
  const params = { orgSlug: org, wsSlug: ws };
  const agents = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/agents', params, undefined, s), [org, ws]);
  const [run, busy, error] = useAction();
  const usable = (agents.data || []).filter((a) => !a.mcpOnly);
  return html`<section aria-labelledby="mission-title"><h3 id="mission-title">Agents</h3>
    <${ErrorMessage} error=${agents.error} />
    ${agents.data && usable.length === 0 ? html`<p class="muted">This workspace has no agent yet.</p>` : html`<form onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      run(async () => {
        const m = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}/missions', { ...params, agentId: v.agent }, { cardId: card.id, prompt: v.prompt });
        navigate(`/w/${org}/${ws}/missions/${m.id}`);
      });
    }}>
      <label for="mission-agent">Agent</label>
      <select id="mission-agent" name="agent" required>${usable.map((a) => html`<option value=${a.id}>${a.name} (${a.autonomyMode})</option>`)}</select>
      <label for="mission-prompt">What should it do?</label>
      <textarea id="mission-prompt" name="prompt" rows="3" required maxlength="4000"></textarea>
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Start a mission</button>
    </form>`}
  </section>`;
}
