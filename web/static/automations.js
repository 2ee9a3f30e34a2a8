// @ts-check
// A project's automation rules: what each does in words (when, if, then), created and edited by the
// workspace's admins (the trigger, the conditions as the rule language's JSON object with a check of its
// syntax as one types and the API's refusal shown at the field, the action), turned on and off, deleted;
// and each rule's executions (its traces). Loaded with import() when its screen first opens.
import { html, useState, useMemo, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, When, humanize, announce } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';

/** @typedef {api.Schemas['RuleOut']} Rule */
/** @typedef {api.Schemas['CreateRuleInputBody']['trigger']} Trigger */
/** @typedef {api.Schemas['TraceOut']} Trace */

const RULES = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/automations';
const RULE = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/automations/{ruleId}';

/** Each trigger of the API's enum in words (typed by it: a trigger added or removed fails the type-check). */
/** @type {Record<Trigger, string>} */
const triggers = {
  task_created: 'a card is created',
  task_added_to_board: 'a card appears on the board (created or restored)',
  task_moved: 'a card is moved to another column',
  task_status_changed: 'a card’s status changes',
  task_assigned: 'a card’s assignee changes',
  task_labeled: 'a label is put on a card',
  checklist_complete: 'a card’s checklist is completed',
  due_date_reached: 'a card’s due date passes',
};

/** The actions a rule can take, in words, and the parameter each needs. */
/** @type {[string, string, string][]} */
const actions = [
  ['move_card', 'Move the card to the column', 'columnId'],
  ['set_status', 'Set the card’s status to', 'status'],
  ['set_priority', 'Set the card’s priority to', 'priority'],
  ['assign_user', 'Assign the card to', 'userId'],
  ['archive_card', 'Archive the card', ''],
  ['send_webhook', 'Send the event to the webhook', 'webhookId'],
];

/** The keys of the conditions' object, in words. */
/** @type {Record<string, string>} */
const conditionKeys = {
  columnId: 'the card is in the column',
  fromColumnId: 'the card was moved from the column (a move only)',
  toColumnId: 'the card was moved to the column (a move only)',
  labelId: 'the card carries the label',
  priority: 'the card’s priority is',
  assigneeId: 'the card is assigned to',
  status: 'the card’s status is',
};

const priorities = ['low', 'medium', 'high'];
const statuses = ['todo', 'in_progress', 'done', 'archived'];

/**
 * Names of what rules refer to, for showing them in words.
 * @typedef {{columns: api.Schemas['ColumnOut'][], labels: api.Schemas['LabelOut'][],
 *   members: api.Schemas['ProjectMemberOut'][], webhooks: api.Schemas['WebhookOut'][]}} Refs
 */

/** @param {{org: string, ws: string, project: string}} p */
function useProject({ org, ws, project }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  return useLoad(async (signal) => {
    const [proj, workspace, columns, labels, members] = await Promise.all([
      api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}', params, undefined, signal),
      api.get('/orgs/{orgSlug}/workspaces/{wsSlug}', params, undefined, signal),
      api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns', params, undefined, signal),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/labels', params, undefined, signal),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/members', params, undefined, signal),
    ]);
    const admin = workspace.myRole === 'admin';
    // Only admins may read the webhooks (and only they write rules, where a webhook is chosen).
    const webhooks = admin ? await api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/webhooks', params, undefined, signal) : [];
    /** @type {Refs} */
    const refs = { columns: [...columns].sort((a, b) => a.order - b.order), labels, members, webhooks: webhooks || [] };
    return { proj, admin, refs };
  }, [org, ws, project]);
}

/** The name of what id refers to under key, or a note that it is gone. @param {Refs} refs @param {string} key @param {any} v */
function nameOf(refs, key, v) {
  if (v === null && key === 'assigneeId') return 'nobody';
  if (key === 'priority' || key === 'status') return Array.isArray(v) ? v.map(humanize).join(' or ') : humanize(v);
  /** @type {{id?: string, userId?: string, name?: string, email?: string, url?: string}[]} */
  const list = key.endsWith('olumnId') ? refs.columns : key === 'labelId' ? refs.labels
    : key === 'webhookId' ? refs.webhooks : refs.members;
  const found = list.find((x) => (x.id ?? x.userId) === v);
  return found ? (found.name || found.email || found.url || '') : 'something deleted';
}

/** A rule in words: when, if, then. @param {{rule: Rule, refs: Refs}} props */
function RuleWords({ rule, refs }) {
  const conds = Object.entries(rule.conditions || {});
  const a = /** @type {Record<string, any>} */ (rule.action);
  const act = actions.find(([t]) => t === a.type);
  return html`<dl class="rule-words">
    <dt>When</dt><dd>${triggers[/** @type {Trigger} */ (rule.trigger)] || humanize(rule.trigger)}</dd>
    <dt>If</dt><dd>${conds.length ? conds.map(([k, v], i) => html`${i > 0 && ' and '}${conditionKeys[k] || k} <strong>${nameOf(refs, k, v)}</strong>`) : 'always'}</dd>
    <dt>Then</dt><dd>${act ? act[1] : humanize(a.type)}${act?.[2] && html` <strong>${nameOf(refs, act[2], a[act[2]])}</strong>`}</dd>
  </dl>`;
}

/** @param {{org: string, ws: string, project: string}} props */
export function Automations({ org, ws, project }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  const info = useProject({ org, ws, project });
  const rules = useLoad((s) => api.get(RULES, params, undefined, s), [org, ws, project]);
  const [creating, setCreating] = useState(false);
  const base = `/w/${org}/${ws}/p/${project}`;
  if (info.error) return html`<h1>Automations</h1><${ErrorMessage} error=${info.error} />`;
  if (!info.data) return html`<h1>Automations</h1><${Loading} />`;
  const { proj, admin, refs } = info.data;
  return html`<h1>Automations of ${proj.name}</h1>
    <p><a href=${base}>Back to the board</a></p>
    <p class="hint">A rule does something by itself when a card changes: when its trigger happens and its conditions hold, it takes its action, in the name of the admin who created it.</p>
    ${admin ? (creating
      ? html`<${RuleForm} params=${params} refs=${refs} onDone=${(/** @type {Rule|null} */ r) => { setCreating(false); if (r) { announce(`Rule ${r.name} created`); rules.reload(); } }} />`
      : html`<p><button type="button" onClick=${() => setCreating(true)}>New rule</button></p>`)
      : html`<p class="muted">Only the workspace’s admins can create and change rules; you can read them and what they did.</p>`}
    <${ErrorMessage} error=${rules.error} />
    ${rules.loading && !rules.data ? html`<${Loading} />` : !rules.data?.length
      ? html`<p class="muted" data-empty="rules">No rule yet.${admin ? ' Create one with “New rule”: for example, move a card to Done when its checklist is completed.' : ' An admin of the workspace can create them.'}</p>`
      : html`<ul class="rules">${rules.data.map((r) => html`<li key=${r.id} class="panel rule" data-rule-id=${r.id}>
          <h2><a href=${`${base}/automations/${r.id}`}>${r.name}</a> <span class=${'tag' + (r.enabled ? '' : ' warn')}>${r.enabled ? 'On' : 'Off'}</span></h2>
          <${RuleWords} rule=${r} refs=${refs} />
          ${admin && html`<${RuleControls} params=${params} rule=${r} onChange=${rules.reload} onDeleted=${rules.reload} />`}
          <p><a href=${`${base}/automations/${r.id}`}>What it did</a></p>
        </li>`)}</ul>`}`;
}

/** Turning a rule on or off, and deleting it. @param {{params: Record<string,string>, rule: Rule, onChange: (r: Rule) => void, onDeleted: () => void}} props */
function RuleControls({ params, rule, onChange, onDeleted }) {
  const [run, busy, error] = useAction();
  const p = { ...params, ruleId: rule.id };
  return html`<div class="actions">
    <button type="button" class="secondary" disabled=${busy} onClick=${() => run(async () => {
      const r = await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/automations/{ruleId}/toggle', p);
      announce(`Rule ${r.name} turned ${r.enabled ? 'on' : 'off'}`);
      onChange(r);
    })}>${rule.enabled ? `Turn off ${rule.name}` : `Turn on ${rule.name}`}</button>
    <${ConfirmButton} label=${`Delete ${rule.name}`} title=${`Delete the rule “${rule.name}”?`} confirmLabel="Delete the rule"
      detail=${html`<p>It stops acting at once, and what it did (its traces) is deleted with it. The changes it made to cards stay.</p>`}
      onConfirm=${async () => { await api.del(RULE, p); announce(`Rule ${rule.name} deleted`); onDeleted(); }} />
    <${ErrorMessage} error=${error} />
  </div>`;
}

/** A rule's page: what it is, its edit form for admins, and its traces. @param {{org: string, ws: string, project: string, rule: string}} props */
export function AutomationRule({ org, ws, project, rule: ruleId }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  const p = { ...params, ruleId };
  const info = useProject({ org, ws, project });
  const rule = useLoad((s) => api.get(RULE, p, undefined, s), [org, ws, project, ruleId]);
  const [editing, setEditing] = useState(false);
  const base = `/w/${org}/${ws}/p/${project}`;
  const err = info.error || rule.error;
  if (err) return html`<h1>Automation rule</h1><${ErrorMessage} error=${err} /><p><a href=${base + '/automations'}>All rules</a></p>`;
  if (!info.data || !rule.data) return html`<h1>Automation rule</h1><${Loading} />`;
  const { admin, refs } = info.data;
  const r = rule.data;
  return html`<h1>${r.name} <span class=${'tag' + (r.enabled ? '' : ' warn')}>${r.enabled ? 'On' : 'Off'}</span></h1>
    <p><a href=${base + '/automations'}>All rules of ${info.data.proj.name}</a> · <a href=${base}>The board</a></p>
    ${editing ? html`<${RuleForm} params=${params} refs=${refs} rule=${r} onDone=${(/** @type {Rule|null} */ x) => { setEditing(false); if (x) { rule.set(x); announce(`Rule ${x.name} saved`); } }} />`
      : html`<section class="panel" aria-labelledby="rule-h"><h2 id="rule-h" class="visually-hidden">What it does</h2>
        <${RuleWords} rule=${r} refs=${refs} />
        <p class="muted">Created <${When} iso=${r.createdAt} />, changed <${When} iso=${r.updatedAt} />.</p>
        ${admin && html`<p><button type="button" onClick=${() => setEditing(true)}>Edit the rule</button></p>
          <${RuleControls} params=${params} rule=${r} onChange=${(/** @type {Rule} */ x) => rule.set(x)} onDeleted=${() => navigate(base + '/automations')} />`}
      </section>`}
    <${Traces} p=${p} />`;
}

/** A rule's executions, newest first. @param {{p: Record<string,string>}} props */
function Traces({ p }) {
  const traces = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/automations/{ruleId}/traces', p, undefined, s), [p.ruleId]);
  const cards = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards', p, undefined, s), [p.ruleId]);
  const titles = useMemo(() => new Map((cards.data || []).map((c) => [c.id, c.title])), [cards.data]);
  const base = `/w/${p.orgSlug}/${p.wsSlug}/p/${p.projectId}`;
  return html`<section class="panel" aria-labelledby="traces-h">
    <h2 id="traces-h">What it did</h2>
    <p class="actions"><button type="button" class="secondary" onClick=${traces.reload} disabled=${traces.loading}>Refresh</button></p>
    <${ErrorMessage} error=${traces.error} />
    ${traces.loading && !traces.data ? html`<${Loading} />` : !traces.data?.length
      ? html`<p class="muted" data-empty="traces">It has not run yet: it runs when its trigger happens on a card of this project.</p>`
      : html`<div class="table-wrap"><table class="settings-table traces">
        <caption class="visually-hidden">The rule’s executions, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Card</th><th scope="col">What happened</th><th scope="col">Result</th><th scope="col">Details</th></tr></thead>
        <tbody>${traces.data.map((t) => html`<tr key=${t.id} data-trace-result=${t.result}>
          <td><${When} iso=${t.timestamp} /></td>
          <td>${t.target.id ? (titles.has(t.target.id) ? html`<a href=${`${base}?card=${t.target.id}`}>${titles.get(t.target.id)}</a>` : html`<span class="muted">a card no longer on the board</span>`) : ''}</td>
          <td>${humanize(triggers[/** @type {Trigger} */ (t.trigger)] || t.trigger)}${t.depth > 0 && html` <span class="muted">(after ${t.depth} automated change${t.depth > 1 ? 's' : ''})</span>`}</td>
          <td><span class=${'status ' + t.result}>${t.result === 'applied' ? 'Matched and acted' : humanize(t.result)}</span></td>
          <td>${t.reason || (t.result === 'applied' ? 'Its conditions held; the action was taken.' : '')}</td>
        </tr>`)}</tbody>
      </table></div>`}
  </section>`;
}

/** The conditions' JSON checked as one types: an error in words, or null. @param {string} text */
function checkConditions(text) {
  if (!text.trim()) return null;
  let v;
  try { v = JSON.parse(text); } catch (e) { return 'Not valid JSON: ' + (e instanceof Error ? e.message : String(e)); }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'The conditions are an object: {"key": value, …}, or {} for always.';
  const unknown = Object.keys(v).filter((k) => !(k in conditionKeys));
  if (unknown.length) return `Unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: use ${Object.keys(conditionKeys).join(', ')}.`;
  return null;
}

/**
 * Which field an API refusal is about: the error shape's field errors (location body.<field>), or the
 * message's prefix (conditions: …, action: …).
 * @param {unknown} e @returns {Record<string, string>}
 */
function fieldErrors(e) {
  if (!(e instanceof api.ApiError) || (e.status !== 400 && e.status !== 422)) return {};
  /** @type {Record<string, string>} */
  const out = {};
  for (const f of e.body?.errors || []) {
    const k = String(f.location || f.field || '').replace(/^body\./, '').split('.')[0];
    if (k) out[k] = (out[k] ? out[k] + '; ' : '') + f.message;
  }
  const m = /^(conditions|action|trigger|name)\b:?\s*(.*)$/.exec(e.body?.message || '');
  if (m && !out[m[1]]) out[m[1]] = m[2] || e.body.message;
  return out;
}

/**
 * Creating or editing a rule.
 * @param {{params: Record<string,string>, refs: Refs, rule?: Rule, onDone: (r: Rule|null) => void}} props
 */
function RuleForm({ params, refs, rule, onDone }) {
  const a = /** @type {Record<string, any>} */ (rule?.action || { type: 'move_card' });
  const [name, setName] = useState(rule?.name || '');
  const [trigger, setTrigger] = useState(/** @type {Trigger} */ (rule?.trigger || 'task_labeled'));
  const [conds, setConds] = useState(rule ? JSON.stringify(rule.conditions || {}, null, 2) : '{}');
  const [type, setType] = useState(String(a.type));
  const [param, setParam] = useState(() => { const k = actions.find(([t]) => t === a.type)?.[2]; return k ? String(a[k] ?? '') : ''; });
  const [enabled, setEnabled] = useState(rule ? rule.enabled : true);
  const [addKey, setAddKey] = useState('labelId');
  const [addValue, setAddValue] = useState('');
  const [run, busy, error] = useAction();
  const syntax = checkConditions(conds);
  const fields = fieldErrors(error);
  const paramKey = actions.find(([t]) => t === type)?.[2] || '';
  const id = rule ? 'edit-rule' : 'new-rule';

  /** The choices for a condition's or an action's parameter. @param {string} key @returns {[string, string][]} */
  const choices = (key) => {
    if (key.endsWith('olumnId')) return refs.columns.map((c) => [c.id, c.name]);
    if (key === 'labelId') return refs.labels.map((l) => [l.id, l.name]);
    if (key === 'assigneeId' || key === 'userId') {
      /** @type {[string, string][]} */
      const people = refs.members.map((m) => [m.userId, m.name || m.email]);
      return key === 'assigneeId' ? [['null', 'Nobody'], ...people] : people;
    }
    if (key === 'priority') return priorities.map((x) => [x, humanize(x)]);
    if (key === 'status') return statuses.map((x) => [x, humanize(x)]);
    if (key === 'webhookId') return refs.webhooks.map((w) => [w.id, w.description ? `${w.description} (${w.url})` : w.url]);
    return [];
  };
  const addChoices = choices(addKey);
  /** @type {[string, string][]} */
  const paramChoices = paramKey === 'status' ? statuses.slice(0, 3).map((x) => [x, humanize(x)]) : choices(paramKey);

  const addCondition = () => {
    let v = {};
    try { v = conds.trim() ? JSON.parse(conds) : {}; } catch { return; }
    const value = addValue || addChoices[0]?.[0];
    if (value === undefined) return;
    setConds(JSON.stringify({ ...v, [addKey]: value === 'null' ? null : value }, null, 2));
  };

  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    if (syntax) return;
    /** @type {any} */
    const action = { type };
    if (paramKey) action[paramKey] = param || paramChoices[0]?.[0] || '';
    const body = { name: name.trim(), trigger, conditions: conds.trim() ? JSON.parse(conds) : {}, action, enabled };
    run(async () => {
      const r = rule ? await api.patch(RULE, { ...params, ruleId: rule.id }, body) : await api.post(RULES, params, body);
      onDone(r);
    });
  };
  const other = Object.keys(fields).filter((k) => !['name', 'trigger', 'conditions', 'action'].includes(k));
  return html`<form class="panel rule-form" aria-labelledby=${id + '-h'} onSubmit=${submit} noValidate>
    <h2 id=${id + '-h'}>${rule ? `Edit ${rule.name}` : 'New rule'}</h2>
    <label for=${id + '-name'}>Name</label>
    <input id=${id + '-name'} required maxlength="200" value=${name} onInput=${(/** @type {any} */ e) => setName(e.currentTarget.value)}
      aria-invalid=${fields.name ? 'true' : undefined} aria-describedby=${fields.name ? id + '-name-err' : undefined} />
    ${fields.name && html`<p id=${id + '-name-err'} class="error field-error">${fields.name}</p>`}
    <label for=${id + '-trigger'}>When</label>
    <select id=${id + '-trigger'} value=${trigger} onChange=${(/** @type {any} */ e) => setTrigger(e.currentTarget.value)}>
      ${Object.entries(triggers).map(([k, words]) => html`<option value=${k}>${humanize(words)}</option>`)}
    </select>
    ${fields.trigger && html`<p class="error field-error">${fields.trigger}</p>`}
    <label for=${id + '-conditions'}>If (conditions)</label>
    <p id=${id + '-conditions-hint'} class="hint">A JSON object; every key given must hold, <code>{}</code> always holds. Keys: ${Object.entries(conditionKeys).map(([k, w], i) => html`${i > 0 && ', '}<code>${k}</code> (${w})`)}. Add one with the fields below, which write its id.</p>
    <textarea id=${id + '-conditions'} class="code" rows="4" spellcheck="false" value=${conds}
      onInput=${(/** @type {any} */ e) => setConds(e.currentTarget.value)}
      aria-invalid=${syntax || fields.conditions ? 'true' : undefined}
      aria-describedby=${`${id}-conditions-hint ${id}-conditions-check`}></textarea>
    <p id=${id + '-conditions-check'} class=${syntax || fields.conditions ? 'error field-error' : 'hint'} aria-live="polite" data-check="conditions">
      ${syntax || fields.conditions || 'The syntax is right.'}</p>
    <div class="actions add-condition">
      <label>Condition <select value=${addKey} onChange=${(/** @type {any} */ e) => { setAddKey(e.currentTarget.value); setAddValue(''); }}>
        ${Object.entries(conditionKeys).map(([k, w]) => html`<option value=${k}>${humanize(w)}</option>`)}</select></label>
      <label>Value <select value=${addValue} onChange=${(/** @type {any} */ e) => setAddValue(e.currentTarget.value)}>
        ${addChoices.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></label>
      <button type="button" class="secondary" disabled=${!!syntax || !addChoices.length} onClick=${addCondition}>Add the condition</button>
    </div>
    <label for=${id + '-action'}>Then</label>
    <select id=${id + '-action'} value=${type} onChange=${(/** @type {any} */ e) => { setType(e.currentTarget.value); setParam(''); }}
      aria-invalid=${fields.action ? 'true' : undefined} aria-describedby=${fields.action ? id + '-action-err' : undefined}>
      ${actions.map(([t, words]) => html`<option value=${t}>${words}</option>`)}
    </select>
    ${paramKey && html`<label for=${id + '-param'}>${{ columnId: 'Column', status: 'Status', priority: 'Priority', userId: 'Person', webhookId: 'Webhook' }[paramKey]}</label>
      ${paramChoices.length ? html`<select id=${id + '-param'} value=${param || paramChoices[0][0]} onChange=${(/** @type {any} */ e) => setParam(e.currentTarget.value)}>
        ${paramChoices.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select>`
        : html`<p id=${id + '-param'} class="muted">${paramKey === 'webhookId' ? 'The workspace has no webhook yet: create one in the workspace’s webhooks first.' : 'Nothing to choose from yet.'}</p>`}`}
    ${fields.action && html`<p id=${id + '-action-err'} class="error field-error">${fields.action}</p>`}
    <div class="check"><input type="checkbox" id=${id + '-enabled'} checked=${enabled} onChange=${(/** @type {any} */ e) => setEnabled(e.currentTarget.checked)} />
      <label for=${id + '-enabled'}>On: the rule runs</label></div>
    ${error && !Object.keys(fields).length && html`<${ErrorMessage} error=${error} />`}
    ${other.length > 0 && html`<p class="error" role="alert">${other.map((k) => `${k}: ${fields[k]}`).join('; ')}</p>`}
    ${Object.keys(fields).length > 0 && !other.length && html`<p class="error" role="alert">The rule was not saved: see the field marked above.</p>`}
    <div class="actions">
      <button type="submit" disabled=${busy || !!syntax || !name.trim()}>${rule ? 'Save the rule' : 'Create the rule'}</button>
      <button type="button" class="secondary" onClick=${() => onDone(null)}>Cancel</button>
    </div>
  </form>`;
}
