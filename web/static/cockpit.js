// @ts-check
// The pilotage cockpit: the dashboard, the workspace's pilotage missions, priorities, to-dos, decisions and
// active documents (created, edited, moved through their states, deleted), the proposed actions (proposed,
// reviewed, applied, with what applying did), a briefing (the state read model), the projects' portfolio and
// the history of every change. Viewers read; reviewers also propose and review actions; owners also change
// the records and apply actions (the caller's role is the workspace's myPilotageRole). Loaded with import()
// when one of its screens first opens.
import { html, useState, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, When, humanize, formatDate, dateInput,
  dateValue, formValues, announce } from './ui.js';
import * as api from './api.js';
import { markdown } from './markdown.js';
import { session } from './session.js';

const WS = '/orgs/{orgSlug}/workspaces/{wsSlug}';
const MEMBERS = '/orgs/{orgSlug}/workspaces/{wsSlug}/members';
const DASHBOARD = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/dashboard';
const STATE = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/state';
const PORTFOLIO = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/portfolio';
const HISTORY = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/history';
const MISSIONS = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/missions';
const MISSION = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/missions/{id}';
const PRIORITIES = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/priorities';
const PRIORITY = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/priorities/{id}';
const TODOS = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/todos';
const TODO = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/todos/{id}';
const DECISIONS = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/decisions';
const DECISION = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/decisions/{id}';
const DOCS = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/docs';
const DOC = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/docs/{id}';
const ACTIONS = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/actions';
const ACTION = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/actions/{id}';
const PROPOSE = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/actions/propose';
const REVIEW = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/actions/{id}/review';
const APPLY = '/orgs/{orgSlug}/workspaces/{wsSlug}/pilotage/actions/{id}/apply';

/** @typedef {api.Schemas['PilotageMissionOut']} Mission */
/** @typedef {api.Schemas['PilotagePriorityOut']} Priority */
/** @typedef {api.Schemas['PilotageTodoOut']} Todo */
/** @typedef {api.Schemas['PilotageDecisionOut']} Decision */
/** @typedef {api.Schemas['PilotageDocOut']} Doc */
/** @typedef {api.Schemas['PilotageActionOut']} Action */
/** @typedef {api.Schemas['HistoryEntryOut']} Entry */
/** @typedef {{orgSlug: string, wsSlug: string}} Params */
/** @typedef {{role: string, write: boolean, review: boolean}} Role */

/** The states of the API's enums, in the order a person moves through them. */
/** @type {Mission['status'][]} */
const MISSION_STATES = ['to_launch', 'in_progress', 'blocked', 'done'];
/** @type {Todo['status'][]} */
const TODO_STATES = ['todo', 'in_progress', 'blocked', 'done'];
/** @type {Doc['sourceType'][]} */
const SOURCE_TYPES = ['product', 'tech', 'sprint', 'ops'];
/** @type {Action['status'][]} */
const ACTION_STATES = ['suggested', 'approved', 'rejected', 'applied'];

/** The record types of the history, in words. */
const NOUNS = { mission: 'mission', priority: 'priority', todo: 'to-do', decision: 'decision', doc: 'active document', action: 'proposed action' };
/** The screen of each record type. */
const SECTION_OF = { mission: 'missions', priority: 'priorities', todo: 'todos', decision: 'decisions', doc: 'docs', action: 'actions' };

/** The cockpit's screens: path under …/pilotage and title. */
const SECTIONS = [['', 'Overview'], ['missions', 'Missions'], ['priorities', 'Priorities'], ['todos', 'To-dos'],
  ['decisions', 'Decisions'], ['docs', 'Active documents'], ['actions', 'Proposed actions'], ['state', 'Briefing'],
  ['portfolio', 'Portfolio'], ['history', 'History']];

/** A to-do's or a mission's label in words, for the action types apply knows. */
const ACTION_TYPES = [['create_todo', 'Create a to-do'], ['create_decision', 'Record a decision'],
  ['update_mission_status', "Change a mission's status"]];

/** The caller's pilotage role in the workspace, from its GET (organization owners and admins count as owners). @param {Params} params */
function useRole(params) {
  const w = useLoad((s) => api.get(WS, params, undefined, s), [params.orgSlug, params.wsSlug]);
  const role = w.data?.myPilotageRole || '';
  return { role, write: role === 'owner', review: role === 'owner' || role === 'reviewer', error: w.error, ready: !!w.data };
}

/** A camelCase field name in words: blockedReason → blocked reason. @param {string} k */
const words = (k) => k.replace(/Id$/, '').replace(/([A-Z])/g, ' $1').toLowerCase();

/**
 * The frame of every cockpit screen: its title, the tabs and what the caller's role lets them do.
 * @param {{org: string, ws: string, current: string, title: string, role: ReturnType<typeof useRole>, children?: any}} props
 */
function Frame({ org, ws, current, title, role, children }) {
  const base = `/w/${org}/${ws}/pilotage`;
  return html`<div class="cockpit">
    <h1>${title}</h1>
    <nav class="team-nav cockpit-nav" aria-label="Pilotage">
      ${SECTIONS.map(([p, label]) => html`<a href=${p ? `${base}/${p}` : base} aria-current=${p === current ? 'page' : undefined}>${label}</a>`)}
    </nav>
    <${ErrorMessage} error=${role.error} />
    ${role.ready && !role.write && html`<p class="muted role-note">${role.review
      ? 'You are a reviewer in pilotage: you read the cockpit, propose actions and review them; its owners change its records and apply actions.'
      : 'You are a viewer in pilotage: you read the cockpit; its owners change it.'}</p>`}
    ${children}
  </div>`;
}

/** @param {{org: string, ws: string}} props */
export function Dashboard({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const role = useRole(params);
  const dash = useLoad((s) => api.get(DASHBOARD, params, undefined, s), [org, ws]);
  const d = dash.data;
  const acted = useActed(dash.reload);
  const pending = acted.merge(d?.pendingActions || []);
  const base = `/w/${org}/${ws}/pilotage`;
  return html`<${Frame} org=${org} ws=${ws} current="" title="Pilotage" role=${role}>
    <${ErrorMessage} error=${dash.error} />
    ${!d ? !dash.error && html`<${Loading} />` : html`
      <p class="muted">Cycle ${d.cycle}, since ${formatDate(d.cycleStartsAt)}</p>
      <div class="cockpit-counts">
      ${[['Missions', d.counts.missions, 'missions'], ['To-dos', d.counts.todos, 'todos'], ['Actions', d.counts.actions, 'actions']].map(([title, group, p]) => html`<section aria-labelledby=${'count-' + p}>
        <h2 id=${'count-' + p}><a href=${`${base}/${p}`}>${title}</a></h2>
        <dl class="counts">${Object.entries(group || {}).map(([k, v]) => html`<div data-count=${k}><dt>${humanize(k)}</dt><dd>${String(v)}</dd></div>`)}</dl>
      </section>`)}
      </div>
      <section aria-labelledby="blocked-h"><h2 id="blocked-h">Blocked missions</h2>
        ${(d.blockedMissions || []).length === 0 ? html`<p class="muted">No mission is blocked.</p>`
          : html`<ul>${(d.blockedMissions || []).map((m) => html`<li><strong>${m.objective}</strong>: ${m.blockedReason}</li>`)}</ul>`}</section>
      <section aria-labelledby="overdue-h"><h2 id="overdue-h">Overdue to-dos</h2>
        ${(d.overdueTodos || []).length === 0 ? html`<p class="muted">Nothing is overdue.</p>`
          : html`<ul>${(d.overdueTodos || []).map((t) => html`<li>${t.label} <span class="muted">due ${formatDate(t.dueDate)}, ${humanize(t.status).toLowerCase()}</span></li>`)}</ul>`}</section>
      <section aria-labelledby="todos-h"><h2 id="todos-h">Open to-dos</h2>
        ${(d.openTodos || []).length === 0 ? html`<p class="muted">No open to-do. <a href=${base + '/todos'}>Add one</a> for the next step of a mission.</p>`
          : html`<ul>${(d.openTodos || []).map((t) => html`<li>${t.label} <span class="muted">${humanize(t.status)}${t.dueDate ? `, due ${formatDate(t.dueDate)}` : ''}</span></li>`)}</ul>`}</section>
      <section aria-labelledby="dec-h"><h2 id="dec-h">Decisions of this cycle</h2>
        ${(d.decisions || []).length === 0 ? html`<p class="muted">No decision this cycle. <a href=${base + '/decisions'}>Record one</a> when the team settles a question.</p>`
          : html`<ul>${(d.decisions || []).map((t) => html`<li>${t.title} <span class="muted"><${When} iso=${t.createdAt} /></span></li>`)}</ul>`}</section>
      <section aria-labelledby="actions-h"><h2 id="actions-h">Proposed actions</h2>
        ${pending.length === 0 ? html`<p class="muted">No action waits for a review or to be applied. <a href=${base + '/actions'}>All proposed actions</a></p>`
          : html`<ul class="proposals">${pending.map((a) => html`<${ActionItem} key=${a.id} a=${a} params=${params} base=${`/w/${org}/${ws}`}
              role=${role} onChange=${acted.changed} />`)}</ul>`}</section>`}
  <//>`;
}

/** One of the cockpit's screens, named by the path's section (action: the action to show first, from ?action=). @param {{org: string, ws: string, section: string, action?: string}} props */
export function Section({ org, ws, section, action = '' }) {
  const params = { orgSlug: org, wsSlug: ws };
  const role = useRole(params);
  const title = SECTIONS.find(([p]) => p === section)?.[1];
  const props = { params, role, base: `/w/${org}/${ws}`, action };
  const screens = { missions: Missions, priorities: Priorities, todos: Todos, decisions: Decisions, docs: Docs, actions: Actions,
    state: Briefing, portfolio: Portfolio, history: History };
  const Screen = screens[/** @type {keyof typeof screens} */ (section)];
  if (!title || !Screen) return html`<h1>Page not found</h1><p>The cockpit has no ${section}. <a href=${`/w/${org}/${ws}/pilotage`}>Open the cockpit</a></p>`;
  return html`<${Frame} org=${org} ws=${ws} current=${section} title=${title} role=${role}>
    ${role.ready ? html`<${Screen} ...${props} />` : !role.error && html`<${Loading} />`}
  <//>`;
}

// ---- forms

/**
 * @typedef {{name: string, label: string, type?: 'text'|'textarea'|'select'|'date'|'checkbox', required?: boolean,
 *   maxlength?: number, options?: [string, string][], hint?: string}} FieldDef
 */

/**
 * A form of labelled fields (creating or editing a record): onSubmit gets its values.
 * @param {{idp: string, fields: FieldDef[], values?: Record<string, any>, submit: string, busy: boolean, error: unknown,
 *   onSubmit: (v: Record<string,string>, form: HTMLFormElement) => void, onCancel?: () => void, className?: string}} props
 */
function RecordForm({ idp, fields, values = {}, submit, busy, error, onSubmit, onCancel, className = 'record-form' }) {
  return html`<form class=${className} onSubmit=${(/** @type {Event} */ e) => {
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const v = formValues(e);
    for (const f of fields) if (f.type === 'checkbox') v[f.name] = /** @type {HTMLInputElement} */ (form.elements.namedItem(f.name))?.checked ? 'true' : '';
    onSubmit(v, form);
  }}>
    ${fields.map((f) => {
      const id = `${idp}-${f.name}`;
      const hint = f.hint && html`<span class="hint" id=${id + '-hint'}>${f.hint}</span>`;
      const described = f.hint ? id + '-hint' : undefined;
      if (f.type === 'checkbox') {
        return html`<label class="check" for=${id}><input id=${id} name=${f.name} type="checkbox" defaultChecked=${!!values[f.name]} /> ${f.label}</label>`;
      }
      const label = html`<label for=${id}>${f.label}${f.required ? '' : html` <span class="muted">(optional)</span>`}</label>`;
      if (f.type === 'textarea') {
        return html`<div class="field">${label}<textarea id=${id} name=${f.name} rows="3" maxlength=${f.maxlength} required=${f.required}
          aria-describedby=${described} defaultValue=${values[f.name] ?? ''}></textarea>${hint}</div>`;
      }
      if (f.type === 'select') {
        return html`<div class="field">${label}<select id=${id} name=${f.name} aria-describedby=${described}>
          ${(f.options || []).map(([value, text]) => html`<option value=${value} selected=${(values[f.name] ?? '') === value}>${text}</option>`)}
        </select>${hint}</div>`;
      }
      return html`<div class="field">${label}<input id=${id} name=${f.name} type=${f.type === 'date' ? 'date' : 'text'} maxlength=${f.maxlength}
        required=${f.required} aria-describedby=${described} defaultValue=${values[f.name] ?? ''} />${hint}</div>`;
    })}
    <${ErrorMessage} error=${error} />
    <p class="actions"><button type="submit" disabled=${busy}>${submit}</button>
      ${onCancel && html`<button type="button" class="secondary" onClick=${onCancel}>Cancel</button>`}</p>
  </form>`;
}

/**
 * A record of a list: its heading and details, and for those who may write: Edit (a form of its fields),
 * Delete (confirmed) and the record's own controls (a state).
 * @param {{kind: string, id: string, name: string, write: boolean, details?: any, controls?: any, fields: FieldDef[],
 *   values: Record<string, any>, save: (v: Record<string,string>) => Promise<unknown>, remove: () => Promise<unknown>,
 *   deleteDetail?: string}} props
 */
function RecordItem({ kind, id, name, write, details, controls, fields, values, save, remove, deleteDetail }) {
  const [editing, setEditing] = useState(false);
  const [run, busy, error] = useAction();
  const noun = NOUNS[/** @type {keyof typeof NOUNS} */ (kind)];
  return html`<li class="pl-record" id=${`${kind}-${id}`} data-id=${id}>
    ${editing ? html`<${RecordForm} idp=${`edit-${id}`} fields=${fields} values=${values} submit="Save" busy=${busy} error=${error}
        onCancel=${() => setEditing(false)}
        onSubmit=${(/** @type {Record<string,string>} */ v) => run(async () => { await save(v); setEditing(false); announce(`The ${noun} was saved`); })} />`
      : html`<h3>${name}</h3>
        ${details}
        ${write && html`<div class="actions">
          ${controls}
          <button type="button" class="secondary" aria-label=${`Edit the ${noun} ${name}`} onClick=${() => setEditing(true)}>Edit</button>
          <${ConfirmButton} label="Delete" title=${`Delete the ${noun} "${name}"?`} detail=${html`<p>${deleteDetail || 'The history keeps what it was.'}</p>`}
            onConfirm=${async () => { await remove(); announce(`The ${noun} was deleted`); }} />
        </div>`}`}
  </li>`;
}

/**
 * A list of records with its creation form (for those who may write) and its empty state.
 * @param {{kind: string, intro: string, empty: string, write: boolean, list: {data?: any[], error: unknown, loading: boolean},
 *   fields: FieldDef[], create: (v: Record<string,string>) => Promise<unknown>, children?: any}} props
 */
function RecordList({ kind, intro, empty, write, list, fields, create, children }) {
  const [run, busy, error] = useAction();
  const noun = NOUNS[/** @type {keyof typeof NOUNS} */ (kind)];
  return html`<p>${intro}</p>
    ${write && html`<section class="panel" aria-labelledby=${`new-${kind}-h`}><h2 id=${`new-${kind}-h`}>New ${noun}</h2>
      <${RecordForm} idp=${`new-${kind}`} fields=${fields} submit=${`Add the ${noun}`} busy=${busy} error=${error} className="record-form new"
        onSubmit=${(/** @type {Record<string,string>} */ v, /** @type {HTMLFormElement} */ form) => run(async () => { await create(v); form.reset(); announce(`The ${noun} was added`); })} />
    </section>`}
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : list.data?.length === 0
      ? html`<p class="muted" data-empty=${kind}>${empty}${write ? ' Add one with the form above.' : ''}</p>`
      : html`<ul class="pl-records">${children}</ul>`}`;
}

/** A state control: a select of the states in words, labelled with the record's name. @param {{label: string, value: string, states: string[], disabled: boolean, onChange: (v: string) => void}} props */
function StateSelect({ label, value, states, disabled, onChange }) {
  return html`<label class="inline-label">State
    <select aria-label=${label} value=${value} disabled=${disabled} onChange=${(/** @type {any} */ e) => onChange(e.currentTarget.value)}>
      ${states.map((s) => html`<option value=${s}>${humanize(s)}</option>`)}
    </select></label>`;
}

/** A record's state in words. @param {{value: string}} props */
const State = ({ value }) => html`<span class=${'status ' + value} data-status=${value}>${humanize(value)}</span>`;

// ---- missions

/** @param {{params: Params, role: Role}} props */
function Missions({ params, role }) {
  const list = useLoad((s) => api.getAll(MISSIONS, params, undefined, s), [params.orgSlug, params.wsSlug]);
  const fields = /** @type {FieldDef[]} */ ([{ name: 'objective', label: 'Objective', required: true, maxlength: 500 },
    { name: 'module', label: 'Module', maxlength: 100, hint: 'The part of the product or the team it belongs to' }]);
  return html`<${RecordList} kind="mission" write=${role.write} list=${list} fields=${fields}
    intro="The objectives the team pursues, from to launch to done. A blocked mission says why."
    empty="No mission yet." create=${async (/** @type {Record<string,string>} */ v) => {
      await api.post(MISSIONS, params, { objective: v.objective.trim(), module: v.module.trim() || undefined });
      list.reload();
    }}>
    ${list.data?.map((m) => html`<${MissionItem} key=${m.id} m=${m} params=${params} write=${role.write} onChange=${list.reload} />`)}
  <//>`;
}

/** @param {{m: Mission, params: Params, write: boolean, onChange: () => void}} props */
function MissionItem({ m, params, write, onChange }) {
  const p = { ...params, id: m.id };
  const [run, busy, error] = useAction();
  const [blocking, setBlocking] = useState(false);
  const move = (/** @type {string} */ status, reason = '') => run(async () => {
    await api.patch(MISSION, p, { status: /** @type {Mission['status']} */ (status), ...(status === 'blocked' ? { blockedReason: reason } : {}) });
    setBlocking(false);
    announce(`${m.objective} is now ${humanize(status).toLowerCase()}`);
    onChange();
  });
  return html`<${RecordItem} kind="mission" id=${m.id} name=${m.objective} write=${write}
    details=${html`<p><${State} value=${m.status} />${m.module && html` · ${m.module}`} · <span class="muted">changed <${When} iso=${m.updatedAt} /></span></p>
      ${m.blockedReason && html`<p class="blocked-reason">Blocked because: ${m.blockedReason}</p>`}
      ${blocking && html`<form class="inline-form block-form" onSubmit=${(/** @type {Event} */ e) => { const v = formValues(e); move('blocked', v.reason.trim()); }}>
        <label for=${`block-${m.id}`}>Why is it blocked?</label>
        <input id=${`block-${m.id}`} name="reason" required maxlength="200" />
        <button type="submit" disabled=${busy}>Mark as blocked</button>
        <button type="button" class="secondary" onClick=${() => setBlocking(false)}>Cancel</button>
      </form>`}
      <${ErrorMessage} error=${error} />`}
    controls=${html`<${StateSelect} label=${`State of the mission ${m.objective}`} value=${blocking ? 'blocked' : m.status} states=${MISSION_STATES}
      disabled=${busy} onChange=${(/** @type {string} */ s) => { if (s === 'blocked') setBlocking(true); else move(s); }} />`}
    fields=${[{ name: 'objective', label: 'Objective', required: true, maxlength: 500 }, { name: 'module', label: 'Module', maxlength: 100 }]}
    values=${m} deleteDetail="Its to-dos stay, without a mission. The history keeps what it was."
    save=${async (/** @type {Record<string,string>} */ v) => { await api.patch(MISSION, p, { objective: v.objective.trim(), module: v.module.trim() }); onChange(); }}
    remove=${async () => { await api.del(MISSION, p); onChange(); }} />`;
}

// ---- priorities

/** @param {{params: Params, role: Role}} props */
function Priorities({ params, role }) {
  const list = useLoad((s) => api.getAll(PRIORITIES, params, undefined, s), [params.orgSlug, params.wsSlug]);
  const fields = /** @type {FieldDef[]} */ ([{ name: 'label', label: 'Priority', required: true, maxlength: 500 },
    { name: 'module', label: 'Module', maxlength: 100 }]);
  return html`<${RecordList} kind="priority" write=${role.write} list=${list} fields=${fields}
    intro="What matters most now. Only active priorities appear in the briefing; to-dos can name the priority they serve."
    empty="No priority yet." create=${async (/** @type {Record<string,string>} */ v) => {
      await api.post(PRIORITIES, params, { label: v.label.trim(), module: v.module.trim() || undefined });
      list.reload();
    }}>
    ${list.data?.map((x) => {
      const p = { ...params, id: x.id };
      return html`<${RecordItem} key=${x.id} kind="priority" id=${x.id} name=${x.label} write=${role.write}
        details=${html`<p><span class=${x.active ? 'tag ok' : 'tag'}>${x.active ? 'Active' : 'Inactive'}</span>${x.module && html` · ${x.module}`}</p>`}
        controls=${html`<${ToggleActive} p=${p} x=${x} onChange=${list.reload} />`}
        fields=${fields} values=${x} deleteDetail="Its to-dos stay, without a priority. The history keeps what it was."
        save=${async (/** @type {Record<string,string>} */ v) => { await api.patch(PRIORITY, p, { label: v.label.trim(), module: v.module.trim() }); list.reload(); }}
        remove=${async () => { await api.del(PRIORITY, p); list.reload(); }} />`;
    })}
  <//>`;
}

/** @param {{p: Params & {id: string}, x: Priority, onChange: () => void}} props */
function ToggleActive({ p, x, onChange }) {
  const [run, busy, error] = useAction();
  return html`<button type="button" class="secondary" disabled=${busy} aria-label=${`${x.active ? 'Deactivate' : 'Activate'} the priority ${x.label}`}
    onClick=${() => run(async () => { await api.patch(PRIORITY, p, { active: !x.active }); onChange(); })}>${x.active ? 'Deactivate' : 'Activate'}</button>
    <${ErrorMessage} error=${error} />`;
}

// ---- to-dos

/** @param {{params: Params, role: Role}} props */
function Todos({ params, role }) {
  const deps = [params.orgSlug, params.wsSlug];
  const list = useLoad((s) => api.getAll(TODOS, params, undefined, s), deps);
  const missions = useLoad((s) => api.getAll(MISSIONS, params, undefined, s), deps);
  const priorities = useLoad((s) => api.getAll(PRIORITIES, params, undefined, s), deps);
  /** @type {[string, string][]} */
  const missionOptions = [['', 'No mission'], ...(missions.data || []).map((m) => /** @type {[string, string]} */ ([m.id, m.objective]))];
  /** @type {[string, string][]} */
  const priorityOptions = [['', 'No priority'], ...(priorities.data || []).map((x) => /** @type {[string, string]} */ ([x.id, x.label]))];
  const fields = /** @type {FieldDef[]} */ ([{ name: 'label', label: 'To-do', required: true, maxlength: 500 },
    { name: 'missionId', label: 'Mission', type: 'select', options: missionOptions },
    { name: 'priorityId', label: 'Priority', type: 'select', options: priorityOptions },
    { name: 'dueDate', label: 'Due date', type: 'date' }]);
  const name = (/** @type {any[]|undefined} */ rows, /** @type {string|null} */ id, /** @type {string} */ key) => rows?.find((r) => r.id === id)?.[key] || '';
  return html`<${ErrorMessage} error=${missions.error || priorities.error} />
    <${RecordList} kind="todo" write=${role.write} list=${list} fields=${fields}
    intro="The next steps, each for a mission or a priority, with a due date when it has one."
    empty="No to-do yet." create=${async (/** @type {Record<string,string>} */ v) => {
      await api.post(TODOS, params, { label: v.label.trim(), missionId: v.missionId || undefined, priorityId: v.priorityId || undefined,
        dueDate: dateValue(v.dueDate) || undefined });
      list.reload();
    }}>
    ${list.data?.map((t) => {
      const p = { ...params, id: t.id };
      const mission = name(missions.data, t.missionId, 'objective');
      const priority = name(priorities.data, t.priorityId, 'label');
      return html`<${RecordItem} key=${t.id} kind="todo" id=${t.id} name=${t.label} write=${role.write}
        details=${html`<p><${State} value=${t.status} />${mission && html` · for ${mission}`}${priority && html` · ${priority}`}${t.dueDate && html` · due ${formatDate(t.dueDate)}`}</p>`}
        controls=${html`<${TodoState} p=${p} t=${t} onChange=${list.reload} />`}
        fields=${fields} values=${{ ...t, missionId: t.missionId || '', priorityId: t.priorityId || '', dueDate: dateInput(t.dueDate) }}
        save=${async (/** @type {Record<string,string>} */ v) => {
          await api.patch(TODO, p, { label: v.label.trim(), missionId: v.missionId || null, priorityId: v.priorityId || null, dueDate: dateValue(v.dueDate) });
          list.reload();
        }}
        remove=${async () => { await api.del(TODO, p); list.reload(); }} />`;
    })}
  <//>`;
}

/** @param {{p: Params & {id: string}, t: Todo, onChange: () => void}} props */
function TodoState({ p, t, onChange }) {
  const [run, busy, error] = useAction();
  return html`<${StateSelect} label=${`State of the to-do ${t.label}`} value=${t.status} states=${TODO_STATES} disabled=${busy}
    onChange=${(/** @type {string} */ s) => run(async () => {
      await api.patch(TODO, p, { status: /** @type {Todo['status']} */ (s) });
      announce(`${t.label} is now ${humanize(s).toLowerCase()}`);
      onChange();
    })} /><${ErrorMessage} error=${error} />`;
}

// ---- decisions

/** @param {{params: Params, role: Role}} props */
function Decisions({ params, role }) {
  const list = useLoad((s) => api.getAll(DECISIONS, params, undefined, s), [params.orgSlug, params.wsSlug]);
  const fields = /** @type {FieldDef[]} */ ([{ name: 'title', label: 'Decision', required: true, maxlength: 500 },
    { name: 'impact', label: 'Impact', type: 'textarea', maxlength: 2000, hint: 'What it changes, for whom' }]);
  return html`<${RecordList} kind="decision" write=${role.write} list=${list} fields=${fields}
    intro="What the team settled, and what it changes. The overview shows this cycle's decisions."
    empty="No decision yet." create=${async (/** @type {Record<string,string>} */ v) => {
      await api.post(DECISIONS, params, { title: v.title.trim(), impact: v.impact.trim() || undefined });
      list.reload();
    }}>
    ${list.data?.map((x) => {
      const p = { ...params, id: x.id };
      return html`<${RecordItem} key=${x.id} kind="decision" id=${x.id} name=${x.title} write=${role.write}
        details=${html`<p class="muted">Decided <${When} iso=${x.createdAt} />${x.updatedAt !== x.createdAt && html`, changed <${When} iso=${x.updatedAt} />`}</p>
          ${x.impact ? html`<p class="impact">${x.impact}</p>` : html`<p class="muted">No impact written.</p>`}`}
        fields=${fields} values=${x}
        save=${async (/** @type {Record<string,string>} */ v) => { await api.patch(DECISION, p, { title: v.title.trim(), impact: v.impact.trim() }); list.reload(); }}
        remove=${async () => { await api.del(DECISION, p); list.reload(); }} />`;
    })}
  <//>`;
}

// ---- active documents

/** @param {{params: Params, role: Role}} props */
function Docs({ params, role }) {
  const list = useLoad((s) => api.getAll(DOCS, params, undefined, s), [params.orgSlug, params.wsSlug]);
  const fields = /** @type {FieldDef[]} */ ([{ name: 'title', label: 'Title', required: true, maxlength: 500 },
    { name: 'owner', label: 'Owner', maxlength: 200, hint: "The name of the person who keeps it up to date" },
    { name: 'sourceType', label: 'Source', type: 'select', options: SOURCE_TYPES.map((s) => /** @type {[string, string]} */ ([s, humanize(s)])) }]);
  return html`<${RecordList} kind="doc" write=${role.write} list=${list} fields=${fields}
    intro="The documents the cockpit works from: product, tech, sprint or operations, each with its owner."
    empty="No active document yet." create=${async (/** @type {Record<string,string>} */ v) => {
      await api.post(DOCS, params, { title: v.title.trim(), owner: v.owner.trim() || undefined, sourceType: /** @type {Doc['sourceType']} */ (v.sourceType) });
      list.reload();
    }}>
    ${list.data?.map((x) => {
      const p = { ...params, id: x.id };
      return html`<${RecordItem} key=${x.id} kind="doc" id=${x.id} name=${x.title} write=${role.write}
        details=${html`<p>${humanize(x.sourceType)}${x.owner ? ` · kept by ${x.owner}` : ' · no owner named'}</p>`}
        fields=${fields} values=${x}
        save=${async (/** @type {Record<string,string>} */ v) => {
          await api.patch(DOC, p, { title: v.title.trim(), owner: v.owner.trim(), sourceType: /** @type {Doc['sourceType']} */ (v.sourceType) });
          list.reload();
        }}
        remove=${async () => { await api.del(DOC, p); list.reload(); }} />`;
    })}
  <//>`;
}

// ---- proposed actions

/** A payload's string field. @param {Action} a @param {string} k */
const field = (a, k) => { const v = a.payload?.[k]; return typeof v === 'string' ? v : ''; };

/** What an action would do, in words. @param {Action} a @param {Map<string, string>} [missions] */
function describe(a, missions) {
  switch (a.actionType) {
    case 'create_todo': return `Create the to-do "${field(a, 'label')}"`;
    case 'create_decision': return `Record the decision "${field(a, 'title')}"`;
    case 'update_mission_status': {
      const m = missions?.get(field(a, 'missionId'));
      return `Move ${m ? `the mission "${m}"` : 'a mission'} to ${humanize(field(a, 'status')).toLowerCase()}`
        + (field(a, 'blockedReason') ? `, blocked because: ${field(a, 'blockedReason')}` : '');
    }
    case 'create_card': return `Create the card "${field(a, 'title')}"`;
    case 'move_card': return 'Move a card to another column';
    default: return '';
  }
}

/** What applying an action did, in words, with a link to the record. @param {{a: Action, base: string}} props */
function Result({ a, base }) {
  const r = a.result;
  if (!r) return null;
  if (!r.effect) return html`<p class="result" role="status">Applied, with no effect: Pilot does not know how to carry out this kind of action.</p>`;
  const pl = `${base}/pilotage`;
  /** @type {[string, string]} */
  const [said, link] = r.recordType === 'todo' ? [`The to-do "${field(a, 'label')}" was created.`, `${pl}/todos#todo-${r.recordId}`]
    : r.recordType === 'mission' ? [`The mission is now ${humanize(field(a, 'status')).toLowerCase()}.`, `${pl}/missions#mission-${r.recordId}`]
      : r.recordType === 'decision' ? [`The decision "${field(a, 'title')}" was recorded.`, `${pl}/decisions#decision-${r.recordId}`]
        : r.recordType === 'card' ? [a.actionType === 'create_card' ? `The card "${field(a, 'title')}" was created.` : 'The card was moved.',
          `${base}/p/${field(a, 'projectId')}?card=${r.recordId}`]
          : ['It was applied.', ''];
  return html`<p class="result" role="status"><strong>Applied:</strong> ${said}${link && html` <a href=${link}>Open it</a>`}</p>`;
}

/**
 * The actions acted on in this screen: they stay shown, with their result, after the list they came from is
 * read again without them (an applied action is no longer pending). changed(a) keeps a and reloads.
 * @param {() => void} reload
 */
function useActed(reload) {
  const [acted, setActed] = useState(/** @type {Action[]} */ ([]));
  return {
    changed: (/** @type {Action} */ a) => { setActed((xs) => [...xs.filter((x) => x.id !== a.id), a]); reload(); },
    clear: () => setActed([]),
    /** @param {Action[]} rows */
    merge: (rows) => [...rows.map((r) => acted.find((x) => x.id === r.id && x.updatedAt > r.updatedAt) ?? r),
      ...acted.filter((x) => !rows.some((r) => r.id === x.id))],
  };
}

/**
 * A proposed action: what it would do, its state, its review and what applying it did; reviewers approve or
 * reject a suggested one, owners apply an approved one.
 * @param {{a: Action, params: Params, base: string, role: Role, onChange: (a: Action) => void, missions?: Map<string, string>,
 *   names?: Map<string, string>}} props
 */
function ActionItem({ a: initial, params, base, role, onChange, missions, names }) {
  const [a, setA] = useState(initial);
  if (initial.updatedAt !== a.updatedAt && new Date(initial.updatedAt) > new Date(a.updatedAt)) setA(initial);
  const [run, busy, error] = useAction();
  const p = { ...params, id: a.id };
  const said = describe(a, missions);
  const who = (/** @type {string|null} */ id) => (id ? (id === session.user?.id ? 'you' : names?.get(id) || 'someone') : '');
  const act = (/** @type {() => Promise<Action>} */ f, /** @type {string} */ msg) => run(async () => { const n = await f(); setA(n); announce(msg); onChange(n); });
  return html`<li class="proposal pl-action" id=${`action-${a.id}`} data-id=${a.id}>
    <p><strong>${humanize(a.actionType)}</strong> <${State} value=${a.status} />
      <span class="muted"> proposed ${names ? `by ${who(a.proposedBy)} ` : ''}<${When} iso=${a.createdAt} /></span></p>
    ${said && html`<p class="what">${said}</p>`}
    <div class="markdown">${markdown(a.explanation)}</div>
    ${a.reviewedAt && html`<p class="muted">${a.status === 'rejected' ? 'Rejected' : 'Approved'}${names ? ` by ${who(a.reviewedBy)}` : ''} <${When} iso=${a.reviewedAt} />${a.reviewReason ? `: ${a.reviewReason}` : ''}</p>`}
    <${Result} a=${a} base=${base} />
    ${a.status === 'suggested' && role.review && html`<form class="inline-form review-form" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <label for=${`reason-${a.id}`}>Reason <span class="muted">(optional)</span></label>
      <input id=${`reason-${a.id}`} name="reason" maxlength="200" />
      ${[[true, 'Approve'], [false, 'Reject']].map(([approved, label]) => html`<button type="button" class=${approved ? '' : 'secondary'} disabled=${busy}
        onClick=${(/** @type {any} */ e) => {
          const reason = /** @type {HTMLInputElement} */ (e.currentTarget.form.elements.namedItem('reason')).value.trim();
          act(() => api.post(REVIEW, p, { approved: !!approved, reason: reason || undefined }), `The action was ${approved ? 'approved' : 'rejected'}`);
        }}>${label}</button>`)}
    </form>`}
    ${a.status === 'approved' && (role.write ? html`<p class="actions"><button type="button" disabled=${busy}
        onClick=${() => act(() => api.post(APPLY, p), 'The action was applied')}>Apply</button></p>`
      : html`<p class="muted">Approved: a pilotage owner applies it.</p>`)}
    <${ErrorMessage} error=${error} />
  </li>`;
}

/** @param {{params: Params, role: Role, base: string, action: string}} props */
function Actions({ params, role, base, action: one }) {
  const deps = [params.orgSlug, params.wsSlug];
  const [status, setStatus] = useState(/** @type {'' | Action['status']} */ (''));
  const list = useLoad((s) => api.getAll(ACTIONS, params, { status: status || undefined }, s), [...deps, status]);
  const single = useLoad((s) => (one ? api.get(ACTION, { ...params, id: one }, undefined, s) : Promise.resolve(null)), [...deps, one]);
  const missions = useLoad((s) => api.getAll(MISSIONS, params, undefined, s), deps);
  const members = useLoad((s) => api.getAll(MEMBERS, params, undefined, s), deps);
  const missionNames = new Map((missions.data || []).map((m) => [m.id, m.objective]));
  const names = new Map((members.data || []).map((m) => [m.userId, m.name || m.email]));
  const acted = useActed(() => { list.reload(); single.reload(); });
  const item = (/** @type {Action} */ a) => html`<${ActionItem} key=${a.id} a=${a} params=${params} base=${base} role=${role}
    onChange=${acted.changed} missions=${missionNames} names=${names} />`;
  return html`<p>Actions people and agents suggest for the cockpit. A reviewer approves or rejects each; an owner applies the approved ones, which carries them out.</p>
    ${one && html`<section aria-labelledby="one-h"><h2 id="one-h">The action</h2>
      <${ErrorMessage} error=${single.error} />
      ${single.data ? html`<ul class="proposals">${item(single.data)}</ul>` : !single.error && html`<${Loading} />`}
      <p><a href=${`${base}/pilotage/actions`}>All proposed actions</a></p></section>`}
    ${role.review && html`<${Propose} params=${params} missions=${missions.data || []} onDone=${() => { acted.clear(); list.reload(); }} />`}
    <section aria-labelledby="all-h"><h2 id="all-h">${status ? humanize(status) : 'All'} actions</h2>
      <label class="inline-label" for="action-status">Show
        <select id="action-status" value=${status} onChange=${(/** @type {any} */ e) => { acted.clear(); setStatus(e.currentTarget.value); }}>
          <option value="">All</option>
          ${ACTION_STATES.map((s) => html`<option value=${s}>${humanize(s)}</option>`)}
        </select></label>
      <${ErrorMessage} error=${list.error} />
      ${list.loading && !list.data ? html`<${Loading} />` : list.data?.length === 0
        ? html`<p class="muted" data-empty="action">${status ? `No ${humanize(status).toLowerCase()} action.` : 'No action proposed yet.'}${role.review ? ' Propose one with the form above.' : ''}</p>`
        : html`<ul class="proposals">${acted.merge(list.data || []).map(item)}</ul>`}
    </section>`;
}

/** Proposing an action (reviewers and owners): a to-do, a decision or a mission's new state. @param {{params: Params, missions: Mission[], onDone: () => void}} props */
function Propose({ params, missions, onDone }) {
  const [type, setType] = useState('create_todo');
  const [run, busy, error] = useAction();
  const [status, setStatus] = useState('in_progress');
  return html`<section class="panel" aria-labelledby="propose-h"><h2 id="propose-h">Propose an action</h2>
    <form class="record-form" onSubmit=${(/** @type {Event} */ e) => {
      const form = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      /** @type {Record<string, string>} */
      const payload = type === 'create_todo' ? { label: v.label.trim() }
        : type === 'create_decision' ? { title: v.title.trim(), ...(v.impact.trim() ? { impact: v.impact.trim() } : {}) }
          : { missionId: v.missionId, status: v.status, ...(v.status === 'blocked' ? { blockedReason: v.blockedReason.trim() } : {}) };
      run(async () => {
        await api.post(PROPOSE, params, { actionType: type, explanation: v.explanation.trim(), payload });
        form.reset();
        announce('The action was proposed');
        onDone();
      });
    }}>
      <div class="field"><label for="propose-type">Action</label>
        <select id="propose-type" name="actionType" value=${type} onChange=${(/** @type {any} */ e) => setType(e.currentTarget.value)}>
          ${ACTION_TYPES.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
        </select></div>
      ${type === 'create_todo' && html`<div class="field"><label for="propose-label">To-do</label><input id="propose-label" name="label" required maxlength="500" /></div>`}
      ${type === 'create_decision' && html`<div class="field"><label for="propose-title">Decision</label><input id="propose-title" name="title" required maxlength="500" /></div>
        <div class="field"><label for="propose-impact">Impact <span class="muted">(optional)</span></label><textarea id="propose-impact" name="impact" rows="2" maxlength="2000"></textarea></div>`}
      ${type === 'update_mission_status' && (missions.length === 0 ? html`<p class="muted">No mission yet: a mission must exist before its state can change.</p>`
        : html`<div class="field"><label for="propose-mission">Mission</label><select id="propose-mission" name="missionId">
            ${missions.map((m) => html`<option value=${m.id}>${m.objective}</option>`)}</select></div>
          <div class="field"><label for="propose-status">New state</label><select id="propose-status" name="status" value=${status}
            onChange=${(/** @type {any} */ e) => setStatus(e.currentTarget.value)}>
            ${MISSION_STATES.map((s) => html`<option value=${s}>${humanize(s)}</option>`)}</select></div>
          ${status === 'blocked' && html`<div class="field"><label for="propose-reason">Why is it blocked?</label><input id="propose-reason" name="blockedReason" required maxlength="200" /></div>`}`)}
      <div class="field"><label for="propose-explanation">Why</label>
        <textarea id="propose-explanation" name="explanation" rows="2" required maxlength="500" aria-describedby="propose-explanation-hint"></textarea>
        <span class="hint" id="propose-explanation-hint">What the reviewer needs to decide (markdown)</span></div>
      <${ErrorMessage} error=${error} />
      <p class="actions"><button type="submit" disabled=${busy || (type === 'update_mission_status' && missions.length === 0)}>Propose</button></p>
    </form></section>`;
}

// ---- briefing (the state read model)

const PROFILES = [['pilotage', 'Everything'], ['execution', 'Execution: work in progress or blocked, open to-dos'],
  ['revue', 'Review: decisions and what was done this cycle']];
const INTENTS = [['', 'As created'], ['weekly_review', 'Weekly review'], ['daily_execution', 'Daily execution'],
  ['sprint_planning', 'Sprint planning'], ['context_only', 'Context only: the latest of each']];

/** @param {{params: Params}} props */
function Briefing({ params }) {
  const [profile, setProfile] = useState(/** @type {'pilotage'|'execution'|'revue'} */ ('pilotage'));
  const [intent, setIntent] = useState(/** @type {''|'weekly_review'|'daily_execution'|'sprint_planning'|'context_only'} */ (''));
  const st = useLoad((s) => api.get(STATE, params, { profile, intent: intent || undefined, detailLevel: 'standard' }, s),
    [params.orgSlug, params.wsSlug, profile, intent]);
  const d = st.data;
  /** @param {string} id @param {string} title @param {any[]} rows @param {(r: any) => any} f @param {string} none */
  const part = (id, title, rows, f, none) => html`<section aria-labelledby=${id}><h2 id=${id}>${title}</h2>
    ${rows.length === 0 ? html`<p class="muted">${none}</p>` : html`<ul>${rows.map((r) => html`<li>${f(r)}</li>`)}</ul>`}</section>`;
  return html`<p>The cockpit in one read, as an agent or a meeting gets it: choose what to see and in which order.</p>
    <div class="actions briefing-filters">
      <div class="field"><label for="brief-profile">What</label><select id="brief-profile" value=${profile} onChange=${(/** @type {any} */ e) => setProfile(e.currentTarget.value)}>
        ${PROFILES.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></div>
      <div class="field"><label for="brief-intent">For</label><select id="brief-intent" value=${intent} onChange=${(/** @type {any} */ e) => setIntent(e.currentTarget.value)}>
        ${INTENTS.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select></div>
    </div>
    <${ErrorMessage} error=${st.error} />
    ${!d ? !st.error && html`<${Loading} />` : html`<p class="muted">Cycle ${d.cycle}; read as ${humanize(d.usageContext.role).toLowerCase()}.</p>
      ${part('brief-missions', 'Missions', d.missions, (m) => html`${m.objective} · <${State} value=${m.status} />${m.blockedReason ? `: ${m.blockedReason}` : ''}`, 'No mission here.')}
      ${part('brief-priorities', 'Active priorities', d.activePriorities, (x) => x.label, 'No active priority here.')}
      ${part('brief-todos', 'To-dos', d.todos, (t) => html`${t.label} · <${State} value=${t.status} />${t.dueDate ? `, due ${formatDate(t.dueDate)}` : ''}`, 'No to-do here.')}
      ${part('brief-decisions', 'Decisions', d.decisions, (x) => html`${x.title}${x.impact ? html` <span class="muted">${x.impact}</span>` : ''}`, 'No decision here.')}
      ${part('brief-docs', 'Active documents', d.activeDocs, (x) => `${x.title} · ${humanize(x.sourceType)}${x.owner ? `, kept by ${x.owner}` : ''}`, 'No active document here.')}`}`;
}

// ---- portfolio

/** @param {{params: Params, base: string}} props */
function Portfolio({ params, base }) {
  const pf = useLoad((s) => api.get(PORTFOLIO, params, undefined, s), [params.orgSlug, params.wsSlug]);
  return html`<p>The workspace's projects at a glance: how far each is, what is late, and when it last moved.</p>
    <${ErrorMessage} error=${pf.error} />
    ${!pf.data ? !pf.error && html`<${Loading} />` : pf.data.length === 0 ? html`<p class="muted">No project yet. <a href=${base}>Create one</a> from the projects page.</p>`
      : html`<div class="table-wrap"><table class="settings-table portfolio">
        <caption class="visually-hidden">Projects</caption>
        <thead><tr><th scope="col">Project</th><th scope="col">Progress</th><th scope="col">To do</th><th scope="col">In progress</th>
          <th scope="col">Done</th><th scope="col">Overdue</th><th scope="col">Deadline</th><th scope="col">Last activity</th></tr></thead>
        <tbody>${pf.data.map((p) => html`<tr>
          <th scope="row"><a href=${`${base}/p/${p.projectId}`}>${p.name}</a></th>
          <td><progress max="100" value=${p.progress} aria-label=${`Progress of ${p.name}`}></progress> ${p.progress}%</td>
          <td>${p.cardsByStatus.todo}</td><td>${p.cardsByStatus.in_progress}</td><td>${p.cardsByStatus.done}</td>
          <td>${p.overdue}</td>
          <td>${p.deadline ? html`${formatDate(p.deadline)}${p.daysLeft != null && html` <span class="muted">(${p.daysLeft < 0 ? `${-p.daysLeft} days late` : `${p.daysLeft} days left`})</span>`}` : 'None'}</td>
          <td>${p.lastActivityAt ? html`<${When} iso=${p.lastActivityAt} />` : 'None'}</td>
        </tr>`)}</tbody></table></div>`}`;
}

// ---- history

/** A value of a change, in words. @param {string} k @param {any} v */
function valueWords(k, v) {
  if (v === null || v === undefined || v === '') return 'none';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (k === 'status' || k === 'sourceType') return humanize(String(v)).toLowerCase();
  if (k === 'dueDate') return formatDate(String(v));
  if (k.endsWith('Id')) return 'another one';
  return `"${String(v)}"`;
}

/** What a history entry did, in words. @param {Entry} e */
function entryWords(e) {
  const d = /** @type {Record<string, any>} */ (e.data && typeof e.data === 'object' ? e.data : {});
  const noun = NOUNS[e.recordType];
  const name = d.objective || d.label || d.title;
  switch (e.change) {
    case 'created': return `added the ${noun}${name ? ` "${name}"` : ''}`;
    case 'deleted': return `deleted the ${noun}${name ? ` "${name}"` : ''}`;
    case 'updated': {
      const parts = Object.entries(d).map(([k, c]) => `${words(k)} from ${valueWords(k, c?.from)} to ${valueWords(k, c?.to)}`);
      return `changed ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}${parts.length ? `: ${parts.join('; ')}` : ''}`;
    }
    case 'proposed': return `proposed an action: ${humanize(d.actionType).toLowerCase()}`;
    case 'reviewed': return `${d.status === 'rejected' ? 'rejected' : 'approved'} an action${d.reason ? `: ${d.reason}` : ''}`;
    case 'applied': return `applied an action${d.result?.effect === false ? ', with no effect' : ''}`;
    default: return humanize(e.change).toLowerCase();
  }
}

/** @param {{params: Params, base: string}} props */
function History({ params, base }) {
  const deps = [params.orgSlug, params.wsSlug];
  const [type, setType] = useState(/** @type {''|Entry['recordType']} */ (''));
  const [more, setMore] = useState(/** @type {Entry[]} */ ([]));
  const [cursor, setCursor] = useState(/** @type {string|null} */ (null));
  const first = useLoad(async (s) => {
    const page = await api.get(HISTORY, params, { limit: 50, recordType: type || undefined }, s);
    setMore([]);
    setCursor(page.nextCursor);
    return page.items || [];
  }, [...deps, type]);
  const members = useLoad((s) => api.getAll(MEMBERS, params, undefined, s), deps);
  const names = new Map((members.data || []).map((m) => [m.userId, m.name || m.email]));
  const [run, busy, error] = useAction();
  const entries = [...(first.data || []), ...more];
  const who = (/** @type {string} */ id) => (id === session.user?.id ? 'You' : names.get(id) || 'Someone');
  return html`<p>Every change of the cockpit's records and actions, newest first.</p>
    <label class="inline-label" for="history-type">Show
      <select id="history-type" value=${type} onChange=${(/** @type {any} */ e) => setType(e.currentTarget.value)}>
        <option value="">Everything</option>
        ${Object.entries(NOUNS).map(([k, n]) => html`<option value=${k}>${humanize(n)}s</option>`)}
      </select></label>
    <${ErrorMessage} error=${first.error || error} />
    ${first.loading && !first.data ? html`<${Loading} />` : entries.length === 0
      ? html`<p class="muted" data-empty="history">Nothing has changed yet: the history lists each mission, priority, to-do, decision, document and action as people change them.</p>`
      : html`<ol class="history pl-history">${entries.map((e) => {
        const section = SECTION_OF[e.recordType];
        const link = e.change === 'deleted' ? '' : e.recordType === 'action' ? `${base}/pilotage/actions?action=${e.recordId}` : `${base}/pilotage/${section}#${e.recordType}-${e.recordId}`;
        return html`<li key=${e.id} data-change=${e.change}><${When} iso=${e.at} /> · <strong>${who(e.actorId)}</strong> ${entryWords(e)}${link && html` · <a href=${link}>Open</a>`}</li>`;
      })}</ol>`}
    ${cursor && html`<p><button type="button" class="secondary" disabled=${busy} onClick=${() => run(async () => {
      const page = await api.get(HISTORY, params, { limit: 50, before: cursor, recordType: type || undefined });
      setMore((m) => [...m, ...(page.items || [])]);
      setCursor(page.nextCursor);
    })}>Show older changes</button></p>`}`;
}
