// @ts-check
// The parts of a card's detail beyond its own fields: its custom field values, its relations to other
// cards, its history (who changed what, when), and deleting it.
import { html, useLoad, useAction, ErrorMessage, ConfirmButton, When, humanize, announce, actorLabel } from './ui.js';
import * as api from './api.js';

/** @typedef {api.Schemas['CardOut']} Card */
/** @typedef {Record<string, string>} Params */

const cardPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}';

/** @param {{card: Card, params: Params, onChange: (c: Card) => void}} props */
export function CardFields({ card, params, onChange }) {
  const fields = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/custom-fields', params, undefined, s), [params.projectId]);
  const [run, busy, error] = useAction();
  const values = card.customFields || {};
  const list = fields.data || [];
  const settings = `/w/${params.orgSlug}/${params.wsSlug}/p/${params.projectId}/settings`;
  return html`<section aria-labelledby="fields-title"><h3 id="fields-title">Custom fields</h3>
    <${ErrorMessage} error=${fields.error} />
    ${fields.data && list.length === 0 ? html`<p class="muted">This project has no custom field: define them in the <a href=${settings}>project settings</a>.</p>`
    : html`<form class="card-fields" key=${card.updatedAt} onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      const fd = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
      /** @type {Record<string, any>} */
      const out = {};
      for (const f of list) {
        const v = String(fd.get(f.id) ?? '');
        if (f.type === 'multi-select') { const all = fd.getAll(f.id).map(String); out[f.id] = all.length ? all : null; }
        else if (v === '') out[f.id] = null;
        else if (f.type === 'number') out[f.id] = Number(v);
        else if (f.type === 'boolean') out[f.id] = v === 'yes';
        else out[f.id] = v;
      }
      run(async () => {
        onChange(await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/custom-fields', params, { values: out }));
        announce('Custom fields saved');
      });
    }}>
      ${list.map((f) => html`<${FieldInput} field=${f} value=${values[f.id]} />`)}
      <${ErrorMessage} error=${error} />
      ${list.length > 0 && html`<button type="submit" disabled=${busy}>Save the fields</button>`}
    </form>`}
  </section>`;
}

/** @param {{field: api.Schemas['CustomFieldOut'], value: any}} props */
function FieldInput({ field: f, value }) {
  const id = 'field-value-' + f.id;
  switch (f.type) {
    case 'number':
      return html`<label for=${id}>${f.name}</label><input id=${id} name=${f.id} type="number" step="any" defaultValue=${value ?? ''} />`;
    case 'date':
      return html`<label for=${id}>${f.name}</label><input id=${id} name=${f.id} type="date" defaultValue=${typeof value === 'string' ? value.slice(0, 10) : ''} />`;
    case 'boolean':
      return html`<label for=${id}>${f.name}</label><select id=${id} name=${f.id}>
        <option value="" defaultSelected=${value == null}>Not set</option>
        <option value="yes" defaultSelected=${value === true}>Yes</option>
        <option value="no" defaultSelected=${value === false}>No</option></select>`;
    case 'select':
      return html`<label for=${id}>${f.name}</label><select id=${id} name=${f.id}>
        <option value="" defaultSelected=${value == null}>Not set</option>
        ${(f.options || []).map((o) => html`<option value=${o} defaultSelected=${value === o}>${o}</option>`)}</select>`;
    case 'multi-select':
      return html`<fieldset class="choices"><legend>${f.name}</legend>
        ${(f.options || []).map((o) => html`<label class="check"><input type="checkbox" name=${f.id} value=${o} defaultChecked=${Array.isArray(value) && value.includes(o)} /> ${o}</label>`)}
      </fieldset>`;
    default:
      return html`<label for=${id}>${f.name}</label><input id=${id} name=${f.id} maxlength="5000" defaultValue=${value ?? ''} />`;
  }
}

/** A relation in words, from its source card's side and from its target's. */
const fromSource = { blocks: 'Blocks', blocked_by: 'Blocked by', related_to: 'Related to', duplicates: 'Duplicates', parent_of: 'Parent of' };
const fromTarget = { blocks: 'Blocked by', blocked_by: 'Blocks', related_to: 'Related to', duplicates: 'Duplicated by', parent_of: 'Child of' };

/** @param {{card: Card, cards: Card[], params: Params, base: string}} props */
export function Relations({ card, cards, params, base }) {
  const path = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/relations';
  const list = useLoad((s) => api.get(path, params, undefined, s), [params.cardId]);
  const [run, busy, error] = useAction();
  const others = cards.filter((c) => c.id !== card.id && !c.archived).sort((a, b) => a.title.localeCompare(b.title));
  const byId = new Map(cards.map((c) => [c.id, c]));
  return html`<section aria-labelledby="relations-title"><h3 id="relations-title">Related cards</h3>
    <${ErrorMessage} error=${list.error} />
    ${list.data?.length === 0 && html`<p class="muted">Not related to any card yet.</p>`}
    <ul class="relations">${list.data?.map((r) => {
      const outgoing = r.cardId === card.id;
      const otherId = outgoing ? r.targetCardId : r.cardId;
      const other = byId.get(otherId);
      const title = other ? other.title : 'a card of another project';
      return html`<li data-relation-id=${r.id}>${(outgoing ? fromSource : fromTarget)[r.type] || humanize(r.type)}${' '}
        ${other ? html`<a href=${`${base}?card=${otherId}`}>${title}</a>` : html`<span class="muted">${title}</span>`}${' '}
        <${ConfirmButton} label=${`Remove the link to ${title}`} className="link" title="Remove this relation?" confirmLabel="Remove"
          detail=${html`<p>${card.title} will no longer be marked as ${((outgoing ? fromSource : fromTarget)[r.type] || '').toLowerCase()} ${title}. Neither card is changed otherwise.</p>`}
          onConfirm=${async () => {
            await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/relations/{relationId}', { ...params, projectId: r.projectId, relationId: r.id });
            announce('Relation removed');
            list.reload();
          }} /></li>`;
    })}</ul>
    ${others.length === 0 ? html`<p class="muted">There is no other card in this project to relate this one to.</p>` : html`<form class="row relation-new" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      const fd = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
      const type = /** @type {any} */ (String(fd.get('type')));
      const targetCardId = String(fd.get('target'));
      run(async () => {
        await api.post(path, params, { type, targetCardId });
        announce(`Related to ${byId.get(targetCardId)?.title}`);
        list.reload();
      });
    }}>
      <label>Relation <select name="type">${Object.entries(fromSource).map(([k, w]) => html`<option value=${k}>${w}</option>`)}</select></label>
      <label>Card <select name="target">${others.map((c) => html`<option value=${c.id}>${c.title}</option>`)}</select></label>
      <button type="submit" disabled=${busy}>Relate</button>
    </form>`}
    <${ErrorMessage} error=${error} />
  </section>`;
}

/** The fields of a card_updated activity, in words. */
const fieldWords = /** @type {Record<string, string>} */ ({
  startDate: 'start date', dueDate: 'due date', assigneeId: 'assignee', scopeId: 'scope', order: 'position',
  customFields: 'custom fields', checklist: 'checklist',
});
/** @param {string[]} xs */
const listWords = (xs) => (xs.length < 2 ? xs.join('') : xs.slice(0, -1).join(', ') + ' and ' + xs[xs.length - 1]);

/**
 * @param {{card: Card, params: Params, columns: api.Schemas['ColumnOut'][], members: api.Schemas['WorkspaceMemberOut'][]}} props
 */
export function History({ card, params, columns, members }) {
  const path = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}/activity';
  const list = useLoad((s) => api.get(path, params, { limit: 50 }, s), [params.cardId, card.updatedAt, card.commentCount, card.columnId]);
  const column = (/** @type {unknown} */ id) => columns.find((c) => c.id === id)?.name || 'a deleted column';
  const person = (/** @type {unknown} */ id) => { const m = members.find((x) => x.userId === id); return m ? m.name || m.email : 'someone'; };
  /** @param {api.Schemas['CardActivityOut']} a */
  const words = (a) => {
    const m = /** @type {Record<string, any>} */ (a.meta || {});
    switch (a.type) {
      case 'card_created': return m.columnId ? `created the card in ${column(m.columnId)}` : 'created the card';
      case 'card_updated': return Array.isArray(m.fields) && m.fields.length
        ? `changed the ${listWords(m.fields.map((/** @type {string} */ f) => fieldWords[f] || humanize(f).toLowerCase()))}` : 'changed the card';
      case 'card_moved': return `moved it from ${column(m.fromColumn)} to ${column(m.toColumn)}`;
      case 'card_assigned': return m.assigneeId ? `assigned it to ${person(m.assigneeId)}` : 'unassigned it';
      case 'card_archived': return 'archived it';
      case 'comment_added': return m.excerpt ? `commented: “${m.excerpt}”` : 'commented';
      case 'comment_deleted': return 'deleted a comment';
      case 'due_date_reached': return 'its due date was reached';
      default: return humanize(a.type).toLowerCase();
    }
  };
  return html`<section aria-labelledby="history-title"><h3 id="history-title">History</h3>
    <${ErrorMessage} error=${list.error} />
    ${list.data?.length === 0 && html`<p class="muted">Nothing recorded yet.</p>`}
    <ol class="history">${list.data?.map((a) => html`<li data-activity-type=${a.type}>
      <strong class="actor" data-actor-type=${a.actorType}>${actorLabel(a) || (a.actorId ? 'Someone' : 'Pilot')}</strong> ${words(a)} <span class="muted"><${When} iso=${a.createdAt} /></span></li>`)}</ol>
    ${list.data?.length === 50 && html`<p class="hint">The last 50 changes.</p>`}
  </section>`;
}

/** @param {{card: Card, params: Params, onDeleted: () => void}} props */
export function DeleteCard({ card, params, onDeleted }) {
  return html`<${ConfirmButton} label="Delete the card" title=${`Delete ${card.title}?`} confirmLabel="Delete the card for good"
    detail=${html`<p>It is deleted for good, with its comments, attachments, checklist and relations. To keep it out of sight
      instead, archive it.</p>`}
    onConfirm=${async () => { await api.del(cardPath, params); announce(`${card.title} deleted`); onDeleted(); }} />`;
}
