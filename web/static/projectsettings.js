// @ts-check
// A project's settings: its name and description, export and deletion; its columns (add, rename,
// reorder by dragging or with the move buttons, delete choosing where their cards go); its labels, custom
// fields, and scopes with their active view. ImportProject (on the projects page) makes a new project
// from an exported file.
import { html, useState, useEffect, useRef, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, formValues, humanize, announce, formatDate, dateInput, dateValue } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { Icon } from './icons.js';
import { SubscribeCalendar } from './calendarfeeds.js';

/** @typedef {Record<string, string>} Params */
/** @typedef {api.Schemas['ColumnOut']} Column */
/** @typedef {api.Schemas['CustomFieldOut']} Field */
/** @typedef {api.Schemas['ScopeOut']} Scope */

const projectPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}';
const columnsPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns';
const columnPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns/{columnId}';
const labelsPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/labels';
const labelPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/labels/{labelId}';
const fieldsPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/custom-fields';
const fieldPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/custom-fields/{fieldId}';
const scopesPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/scopes';
const scopePath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/scopes/{scopeId}';
const viewsPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/scopes/{scopeId}/views';

/** The custom field types in words. */
export const fieldTypes = /** @type {const} */ ([
  ['text', 'Text'], ['number', 'Number'], ['select', 'One choice from a list'], ['multi-select', 'Several choices from a list'],
  ['date', 'Date'], ['boolean', 'Yes or no'],
]);
/** @param {string} t */
export const fieldTypeWords = (t) => fieldTypes.find(([k]) => k === t)?.[1] || humanize(t);

/** The import's limits (POST …/projects/import): its body's size, columns and cards. */
const importLimits = { bytes: 8 << 20, columns: 50, cards: 500 };

/** @param {{org: string, ws: string, project: string}} props */
export function ProjectSettings({ org, ws, project }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  const data = useLoad(async (signal) => {
    const [proj, workspace] = await Promise.all([
      api.get(projectPath, params, undefined, signal),
      api.get('/orgs/{orgSlug}/workspaces/{wsSlug}', params, undefined, signal),
    ]);
    return { proj, admin: workspace.myRole === 'admin' };
  }, [org, ws, project]);
  const base = `/w/${org}/${ws}/p/${project}`;
  if (data.error && !data.data) return html`<${ErrorMessage} error=${data.error} />`;
  if (!data.data) return html`<${Loading} />`;
  const { proj, admin } = data.data;
  return html`<div class="settings-page">
    <p><a href=${base}>Back to the board</a></p>
    <h1>Settings of ${proj.name}</h1>
    <${ArchiveSection} params=${params} proj=${proj} onSaved=${(/** @type {any} */ p) => data.set({ proj: p, admin })} />
    <${ProjectSection} params=${params} proj=${proj} admin=${admin} onSaved=${(/** @type {any} */ p) => data.set({ proj: p, admin })}
      onDeleted=${() => navigate(`/w/${org}/${ws}`)} />
    ${!proj.archivedAt && html`<${ColumnsSection} params=${params} />
    <${LabelsSection} params=${params} />
    <${FieldsSection} params=${params} />
    <${ScopesSection} params=${params} />`}
    <${SubscribeCalendar} projectId=${project} name=${proj.name} />
  </div>`;
}

/**
 * @param {{params: Params, proj: api.Schemas['ProjectOut'], admin: boolean, onSaved: (p: api.Schemas['ProjectOut']) => void,
 *   onDeleted: () => void}} props
 */
function ProjectSection({ params, proj, admin, onSaved, onDeleted }) {
  const [run, busy, error] = useAction();
  const fileName = (proj.name.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '') || 'project') + '.json';
  return html`<section class="panel" aria-labelledby="settings-project">
    <h2 id="settings-project">Project</h2>
    ${!proj.archivedAt && html`<form key=${proj.updatedAt} onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      run(async () => {
        onSaved(await api.patch(projectPath, params, { name: v.name.trim(), description: v.description, deadline: dateValue(v.deadline) }));
        announce('Project saved');
      });
    }}>
      <label for="project-settings-name">Name</label>
      <input id="project-settings-name" name="name" defaultValue=${proj.name} required maxlength="200" />
      <label for="project-settings-description">Description</label>
      <textarea id="project-settings-description" name="description" rows="3" defaultValue=${proj.description}></textarea>
      <label for="project-settings-deadline">Deadline</label>
      <input id="project-settings-deadline" name="deadline" type="date" defaultValue=${dateInput(proj.deadline)} />
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Save</button>
    </form>`}
    <h3>Export</h3>
    <p class="hint">A JSON file with the columns, labels, custom fields, scopes, cards (with their checklists, labels, values and
      comments) and relations; not the assignees nor the attachments. Import it on the projects page to make a copy.</p>
    <p><a class="button secondary" href=${api.href('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/export', params)} download=${fileName}>Export ${proj.name}</a></p>
    ${admin ? html`<h3>Delete</h3>
      <p class="hint">Deletes the project with its columns, cards, comments, attachments, labels, custom fields, scopes and
        automations. This cannot be undone: export it first to keep a copy.</p>
      <${ConfirmButton} label="Delete this project" title=${`Delete ${proj.name}?`} typed=${proj.name} confirmLabel="Delete the project for good"
        detail=${html`<p>Everything in it is deleted for everyone. This cannot be undone.</p>`}
        onConfirm=${async () => { await api.del(projectPath, params); announce(`${proj.name} deleted`); onDeleted(); }} />`
    : html`<p class="hint">Only the workspace's admins may delete a project.</p>`}
  </section>`;
}

/** @param {{params: Params}} props */
function ColumnsSection({ params }) {
  const cols = useLoad(async (s) => {
    const [columns, cards] = await Promise.all([
      api.get(columnsPath, params, undefined, s),
      api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards', params, undefined, s),
    ]);
    return { columns: [...columns].sort((a, b) => a.order - b.order), cards };
  }, [params.projectId]);
  const [run, busy, error] = useAction();
  const [dragging, setDragging] = useState('');
  const [over, setOver] = useState('');
  const focusAfter = useRef('');
  useEffect(() => {
    if (!focusAfter.current) return;
    const [id, which] = focusAfter.current.split(':');
    focusAfter.current = '';
    const row = document.querySelector(`[data-settings-column="${id}"]`);
    /** @type {HTMLButtonElement|null|undefined} */
    let b = row?.querySelector(`[data-move="${which}"]`);
    if (!b || b.disabled) b = row?.querySelector(`[data-move="${which === 'left' ? 'right' : 'left'}"]`);
    b?.focus();
  }, [cols.data]);
  if (cols.error && !cols.data) return html`<section class="panel"><h2>Columns</h2><${ErrorMessage} error=${cols.error} /></section>`;
  if (!cols.data) return html`<${Loading} />`;
  const { columns, cards } = cols.data;
  /** @param {Column} col @param {number} to @param {string} [which] */
  const moveTo = (col, to, which = '') => run(async () => {
    await api.patch(columnPath, { ...params, columnId: col.id }, { order: to });
    announce(`${col.name} moved to position ${to + 1} of ${columns.length}`);
    focusAfter.current = which ? `${col.id}:${which}` : '';
    cols.reload();
  });
  return html`<section class="panel" aria-labelledby="settings-columns">
    <h2 id="settings-columns">Columns</h2>
    <p class="hint" id="columns-hint">In board order, left to right. Drag a column to another place, or use its Move left and Move right buttons.</p>
    ${columns.length === 0 && html`<p class="muted">This project has no column yet: add the first one below.</p>`}
    <ol class="settings-list columns-list" aria-describedby="columns-hint">
      ${columns.map((col, i) => {
        const held = cards.filter((c) => c.columnId === col.id);
        return html`<li key=${col.id} data-settings-column=${col.id} draggable="true"
          class=${(dragging === col.id ? 'dragging' : '') + (over === col.id && dragging && dragging !== col.id ? ' drop-target' : '')}
          onDragStart=${(/** @type {DragEvent} */ e) => { e.dataTransfer?.setData('text/plain', col.id); setDragging(col.id); }}
          onDragEnd=${() => { setDragging(''); setOver(''); }}
          onDragOver=${(/** @type {DragEvent} */ e) => { e.preventDefault(); setOver(col.id); }}
          onDrop=${(/** @type {DragEvent} */ e) => {
            e.preventDefault();
            const id = e.dataTransfer?.getData('text/plain') || dragging;
            setDragging(''); setOver('');
            const moving = columns.find((c) => c.id === id);
            if (moving && moving.id !== col.id) moveTo(moving, i);
          }}>
          <span class="grip"><${Icon} name="grip" /></span>
          <${ColumnRename} params=${params} col=${col} onSaved=${cols.reload} />
          <span class="muted count-words">${held.length === 1 ? '1 card' : `${held.length} cards`}</span>
          <button type="button" class="secondary icon-button" data-move="left" disabled=${busy || i === 0} aria-label=${`Move ${col.name} left`}
            title="Move left" onClick=${() => moveTo(col, i - 1, 'left')}><${Icon} name="left" /></button>
          <button type="button" class="secondary icon-button" data-move="right" disabled=${busy || i === columns.length - 1} aria-label=${`Move ${col.name} right`}
            title="Move right" onClick=${() => moveTo(col, i + 1, 'right')}><${Icon} name="right" /></button>
          <${ColumnDelete} params=${params} col=${col} columns=${columns} held=${held} onDeleted=${cols.reload} />
        </li>`;
      })}
    </ol>
    <${ErrorMessage} error=${error} />
    <${AddForm} id="column-new" label="New column" button="Add column" maxLength=${100} onAdd=${async (/** @type {string} */ name) => {
      await api.post(columnsPath, params, { name });
      announce(`Column ${name} added`);
      cols.reload();
    }} />
  </section>`;
}

/** @param {{params: Params, col: Column, onSaved: () => void}} props */
function ColumnRename({ params, col, onSaved }) {
  const [run, busy, error] = useAction();
  return html`<form class="inline rename" key=${col.name} onSubmit=${(/** @type {Event} */ e) => {
    const v = formValues(e);
    const name = v.name.trim();
    if (!name || name === col.name) return;
    run(async () => { await api.patch(columnPath, { ...params, columnId: col.id }, { name }); announce(`Column renamed ${name}`); onSaved(); });
  }}>
    <label class="visually-hidden" for=${'column-name-' + col.id}>Name of column ${col.name}</label>
    <input id=${'column-name-' + col.id} name="name" defaultValue=${col.name} required maxlength="100" />
    <button type="submit" class="secondary" disabled=${busy}>Rename</button>
    <${ErrorMessage} error=${error} />
  </form>`;
}

/**
 * Deleting a column deletes its cards with it (the API's rule): the dialog lets the person move them to
 * another column first, or delete them too.
 * @param {{params: Params, col: Column, columns: Column[], held: api.Schemas['CardOut'][], onDeleted: () => void}} props
 */
function ColumnDelete({ params, col, columns, held, onDeleted }) {
  const others = columns.filter((c) => c.id !== col.id);
  const [dest, setDest] = useState(others[0]?.id || '');
  const n = held.length;
  const cardsWords = n === 1 ? 'its card' : `its ${n} cards`;
  const detail = n === 0 ? html`<p>The column is empty.</p>` : html`<p>This column holds ${n === 1 ? '1 card' : `${n} cards`}.
      Deleting a column deletes the cards in it, unless you move them first.</p>
    <label for=${'column-dest-' + col.id}>What to do with ${cardsWords}</label>
    <select id=${'column-dest-' + col.id} value=${dest} onChange=${(/** @type {any} */ e) => setDest(e.currentTarget.value)}>
      ${others.map((o) => html`<option value=${o.id}>Move ${cardsWords} to ${o.name}</option>`)}
      <option value="">Delete ${cardsWords} with the column</option>
    </select>`;
  return html`<${ConfirmButton} label=${`Delete ${col.name}`} title=${`Delete the column ${col.name}?`} detail=${detail}
    confirmLabel="Delete the column" onConfirm=${async () => {
      const to = n > 0 ? others.find((o) => o.id === dest) : undefined;
      for (const c of to ? held : []) {
        await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}', { ...params, cardId: c.id }, { columnId: to?.id });
      }
      await api.del(columnPath, { ...params, columnId: col.id });
      announce(to ? `Column ${col.name} deleted; its cards moved to ${to.name}` : `Column ${col.name} deleted`);
      onDeleted();
    }} />`;
}

/**
 * A one-field form that adds something: the field's label, the button's words, what adding does.
 * @param {{id: string, label: string, button: string, maxLength: number, onAdd: (name: string) => Promise<unknown>, children?: any}} props
 */
function AddForm({ id, label, button, maxLength, onAdd, children }) {
  const [run, busy, error] = useAction();
  return html`<form class="add-form" onSubmit=${(/** @type {Event} */ e) => {
    const f = /** @type {HTMLFormElement} */ (e.currentTarget);
    const v = formValues(e);
    if (!v.name.trim()) return;
    run(async () => { await onAdd(v.name.trim()); f.reset(); });
  }}>
    <label for=${id}>${label}</label>
    <div class="inline"><input id=${id} name="name" required maxlength=${maxLength} autocomplete="off" />${children}
      <button type="submit" disabled=${busy}>${button}</button></div>
    <${ErrorMessage} error=${error} />
  </form>`;
}

/** @param {{params: Params}} props */
function LabelsSection({ params }) {
  const labels = useLoad((s) => api.getAll(labelsPath, params, undefined, s), [params.projectId]);
  const [colour, setColour] = useState('#1f5fbf');
  return html`<section class="panel" aria-labelledby="settings-labels">
    <h2 id="settings-labels">Labels</h2>
    <${ErrorMessage} error=${labels.error} />
    ${labels.data?.length === 0 && html`<p class="muted">No label yet: create one below, then put it on cards from their detail.</p>`}
    <ul class="settings-list">${labels.data?.map((l) => html`<${LabelRow} key=${l.id} params=${params} label=${l} onChange=${labels.reload} />`)}</ul>
    <${AddForm} id="label-create" label="New label" button="Create label" maxLength=${50} onAdd=${async (/** @type {string} */ name) => {
      await api.post(labelsPath, params, { name, color: colour });
      announce(`Label ${name} created`);
      labels.reload();
    }}><${ColourPicker} id="label-create-colour" label="Colour of the new label" value=${colour} onChange=${setColour} /><//>
  </section>`;
}

/** A palette of named colours, and any other through the system's picker. */
const palette = [['#1f5fbf', 'Blue'], ['#2e7d32', 'Green'], ['#b3261e', 'Red'], ['#e65100', 'Orange'], ['#6a1b9a', 'Purple'],
  ['#00838f', 'Teal'], ['#5d4037', 'Brown'], ['#546e7a', 'Grey']];

/** @param {{id: string, label: string, value: string, onChange: (v: string) => void}} props */
function ColourPicker({ id, label, value, onChange }) {
  const named = palette.find(([c]) => c === value.toLowerCase());
  return html`<span class="colour-picker">
    <label class="visually-hidden" for=${id}>${label}</label>
    <select id=${id} class="colour-select" value=${named ? named[0] : 'other'} onChange=${(/** @type {any} */ e) => { if (e.currentTarget.value !== 'other') onChange(e.currentTarget.value); }}>
      ${palette.map(([c, n]) => html`<option value=${c}>${n}</option>`)}
      <option value="other">Other colour (${value})</option>
    </select>
    <label class="visually-hidden" for=${id + '-any'}>${label}: any colour</label>
    <input id=${id + '-any'} class="colour" type="color" value=${value} onInput=${(/** @type {any} */ e) => onChange(e.currentTarget.value)} />
  </span>`;
}

/** @param {{params: Params, label: api.Schemas['LabelOut'], onChange: () => void}} props */
function LabelRow({ params, label: l, onChange }) {
  const [run, busy, error] = useAction();
  const [colour, setColour] = useState(l.color);
  const p = { ...params, labelId: l.id };
  return html`<li data-settings-label=${l.id}>
    <span class="label" style=${{ '--label': colour }}>${l.name}</span>
    <form class="inline" onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      run(async () => { await api.patch(labelPath, p, { name: v.name.trim(), color: colour }); announce(`Label ${v.name.trim()} saved`); onChange(); });
    }}>
      <label class="visually-hidden" for=${'label-name-' + l.id}>Name of label ${l.name}</label>
      <input id=${'label-name-' + l.id} name="name" defaultValue=${l.name} required maxlength="50" />
      <${ColourPicker} id=${'label-colour-' + l.id} label=${`Colour of label ${l.name}`} value=${colour} onChange=${setColour} />
      <button type="submit" class="secondary" disabled=${busy}>Save</button>
    </form>
    <${ConfirmButton} label=${`Delete ${l.name}`} title=${`Delete the label ${l.name}?`} confirmLabel="Delete the label"
      detail=${html`<p>It is taken off every card that has it.</p>`}
      onConfirm=${async () => { await api.del(labelPath, p); announce(`Label ${l.name} deleted`); onChange(); }} />
    <${ErrorMessage} error=${error} />
  </li>`;
}

/** Options typed one per line, as the API takes them. @param {string|undefined} text */
const optionsOf = (text) => (text || '').split('\n').map((s) => s.trim()).filter(Boolean);
/** @param {string} t */
const hasOptions = (t) => t === 'select' || t === 'multi-select';

/** @param {{params: Params}} props */
function FieldsSection({ params }) {
  const fields = useLoad((s) => api.get(fieldsPath, params, undefined, s), [params.projectId]);
  const [run, busy, error] = useAction();
  const [type, setType] = useState('text');
  return html`<section class="panel" aria-labelledby="settings-fields">
    <h2 id="settings-fields">Custom fields</h2>
    <p class="hint">Fields every card of the project can fill in, set from a card's detail.</p>
    <${ErrorMessage} error=${fields.error} />
    ${fields.data?.length === 0 && html`<p class="muted">No custom field yet: define one below.</p>`}
    <ul class="settings-list">${fields.data?.map((f) => html`<${FieldRow} key=${f.id} params=${params} field=${f} onChange=${fields.reload} />`)}</ul>
    <form class="add-form" onSubmit=${(/** @type {Event} */ e) => {
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      run(async () => {
        await api.post(fieldsPath, params, { name: v.name.trim(), type: /** @type {any} */ (v.type), options: hasOptions(v.type) ? optionsOf(v.options) : undefined });
        announce(`Field ${v.name.trim()} defined`);
        f.reset(); setType('text');
        fields.reload();
      });
    }}>
      <h3>New field</h3>
      <div class="row">
        <label>Name <input name="name" required maxlength="100" autocomplete="off" /></label>
        <label>Type <select name="type" value=${type} onChange=${(/** @type {any} */ e) => setType(e.currentTarget.value)}>
          ${fieldTypes.map(([k, w]) => html`<option value=${k}>${w}</option>`)}</select></label>
      </div>
      ${hasOptions(type) && html`<label for="field-new-options">Choices, one per line</label>
        <textarea id="field-new-options" name="options" rows="3" required></textarea>`}
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Define field</button>
    </form>
  </section>`;
}

/** @param {{params: Params, field: Field, onChange: () => void}} props */
function FieldRow({ params, field: f, onChange }) {
  const [run, busy, error] = useAction();
  const [editing, setEditing] = useState(false);
  const [type, setType] = useState(/** @type {string} */ (f.type));
  const p = { ...params, fieldId: f.id };
  return html`<li data-settings-field=${f.id}>
    <strong>${f.name}</strong> <span class="muted">${fieldTypeWords(f.type)}${f.options?.length ? ': ' + f.options.join(', ') : ''}</span>
    <button type="button" class="secondary" aria-expanded=${editing} onClick=${() => setEditing(!editing)}>Edit ${f.name}</button>
    <${ConfirmButton} label=${`Delete ${f.name}`} title=${`Delete the field ${f.name}?`} confirmLabel="Delete the field"
      detail=${html`<p>Its values are removed from every card.</p>`}
      onConfirm=${async () => { await api.del(fieldPath, p); announce(`Field ${f.name} deleted`); onChange(); }} />
    ${editing && html`<form onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      run(async () => {
        await api.patch(fieldPath, p, { name: v.name.trim(), type: /** @type {any} */ (v.type), options: hasOptions(v.type) ? optionsOf(v.options) : undefined });
        setEditing(false);
        onChange();
      });
    }}>
      <div class="row">
        <label>Name <input name="name" defaultValue=${f.name} required maxlength="100" /></label>
        <label>Type <select name="type" value=${type} onChange=${(/** @type {any} */ e) => setType(e.currentTarget.value)}>
          ${fieldTypes.map(([k, w]) => html`<option value=${k}>${w}</option>`)}</select></label>
      </div>
      ${hasOptions(type) && html`<label for=${'field-options-' + f.id}>Choices, one per line</label>
        <textarea id=${'field-options-' + f.id} name="options" rows="3" required defaultValue=${(f.options || []).join('\n')}></textarea>`}
      ${type !== f.type && html`<p class="hint">Values that do not fit the new type are removed from the cards.</p>`}
      <button type="submit" disabled=${busy}>Save</button>
    </form>`}
    <${ErrorMessage} error=${error} />
  </li>`;
}

/** @param {{params: Params}} props */
function ScopesSection({ params }) {
  const scopes = useLoad((s) => api.get(scopesPath, params, undefined, s), [params.projectId]);
  const [run, busy, error] = useAction();
  return html`<section class="panel" aria-labelledby="settings-scopes">
    <h2 id="settings-scopes">Scopes</h2>
    <p class="hint">Work packages or phases of the project, each shown with its own view.</p>
    <${ErrorMessage} error=${scopes.error} />
    ${scopes.data?.length === 0 && html`<p class="muted">No scope yet: create one below.</p>`}
    <ul class="settings-list">${scopes.data?.map((sc) => html`<${ScopeRow} key=${sc.id} params=${params} scope=${sc} onChange=${scopes.reload} />`)}</ul>
    <form class="add-form" onSubmit=${(/** @type {Event} */ e) => {
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      run(async () => {
        await api.post(scopesPath, params, { name: v.name.trim(), description: v.description, startDate: dateValue(v.startDate), endDate: dateValue(v.endDate) });
        announce(`Scope ${v.name.trim()} created`);
        f.reset();
        scopes.reload();
      });
    }}>
      <h3>New scope</h3>
      <label for="scope-new-name">Name</label>
      <input id="scope-new-name" name="name" required maxlength="200" autocomplete="off" />
      <label for="scope-new-description">Description</label>
      <input id="scope-new-description" name="description" />
      <div class="row">
        <label>Starts <input type="date" name="startDate" /></label>
        <label>Ends <input type="date" name="endDate" /></label>
      </div>
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Create scope</button>
    </form>
  </section>`;
}

/** @param {{params: Params, scope: Scope, onChange: () => void}} props */
function ScopeRow({ params, scope: sc, onChange }) {
  const p = { ...params, scopeId: sc.id };
  const views = useLoad((s) => api.get(viewsPath, p, undefined, s), [sc.id]);
  const [run, busy, error] = useAction();
  const dates = [sc.startDate && `from ${formatDate(sc.startDate)}`, sc.endDate && `to ${formatDate(sc.endDate)}`].filter(Boolean).join(' ');
  return html`<li data-settings-scope=${sc.id}>
    <form class="inline rename" key=${sc.updatedAt} onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      run(async () => { await api.patch(scopePath, p, { name: v.name.trim() }); announce(`Scope renamed ${v.name.trim()}`); onChange(); });
    }}>
      <label class="visually-hidden" for=${'scope-name-' + sc.id}>Name of scope ${sc.name}</label>
      <input id=${'scope-name-' + sc.id} name="name" defaultValue=${sc.name} required maxlength="200" />
      <button type="submit" class="secondary" disabled=${busy}>Rename</button>
    </form>
    ${dates && html`<span class="muted">${dates}</span>`}
    <label class="inline-label">View <select value=${views.data?.activeView || sc.activeView} disabled=${busy}
      onChange=${(/** @type {any} */ e) => {
        const activeView = e.currentTarget.value;
        run(async () => { views.set(await api.patch(viewsPath, p, { activeView })); announce(`${sc.name} shows the ${humanize(activeView)} view`); });
      }}>
      ${(views.data?.views || [sc.activeView]).map((v) => html`<option value=${v}>${humanize(v)}</option>`)}
    </select></label>
    <${ConfirmButton} label=${`Delete ${sc.name}`} title=${`Delete the scope ${sc.name}?`} confirmLabel="Delete the scope and its cards"
      detail=${html`<p>The scope's cards are deleted with it, with their comments, attachments and checklists.</p>`}
      onConfirm=${async () => { await api.del(scopePath, p); announce(`Scope ${sc.name} deleted`); onChange(); }} />
    <${ErrorMessage} error=${error || views.error} />
  </li>`;
}

/**
 * Makes a new project from a file exported by a project (GET …/export), within the import's limits.
 * @param {{org: string, ws: string}} props
 */
export function ImportProject({ org, ws }) {
  const [run, busy, error, setError] = useAction();
  return html`<section class="panel" aria-labelledby="import-project">
    <h2 id="import-project">Import a project</h2>
    <p class="hint" id="import-limits">From a file exported by a project (its settings' Export): a JSON file of at most 8 MB,
      with at most ${importLimits.columns} columns and ${importLimits.cards} cards. It becomes a new project; assignees and attachments are not carried.</p>
    <form onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      const f = /** @type {HTMLFormElement} */ (e.currentTarget);
      const file = /** @type {HTMLInputElement} */ (f.elements.namedItem('file')).files?.[0];
      const name = String(new FormData(f).get('name') || '').trim();
      if (!file) { setError(new Error('Choose an exported project file first.')); return; }
      run(async () => {
        if (file.size > importLimits.bytes) throw new Error(`This file is ${(file.size / 1048576).toFixed(1)} MB: an import may be at most 8 MB.`);
        /** @type {any} */
        let doc;
        try { doc = JSON.parse(await file.text()); } catch { throw new Error('This file is not a project export: it is not JSON.'); }
        if (!doc || typeof doc !== 'object' || !doc.project || !Array.isArray(doc.columns)) throw new Error('This file is not a project export: it has no project and columns.');
        if (doc.columns.length > importLimits.columns) throw new Error(`This export has ${doc.columns.length} columns: an import may have at most ${importLimits.columns}.`);
        if ((doc.cards || []).length > importLimits.cards) throw new Error(`This export has ${doc.cards.length} cards: an import may have at most ${importLimits.cards}.`);
        if (name) doc.project = { ...doc.project, name };
        const p = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/import', { orgSlug: org, wsSlug: ws }, doc);
        announce(`Project ${p.name} imported`);
        navigate(`/w/${org}/${ws}/p/${p.id}`);
      });
    }}>
      <label for="import-file">Exported file</label>
      <input id="import-file" name="file" type="file" accept="application/json,.json" aria-describedby="import-limits" />
      <label for="import-name">Name of the new project (leave empty to keep the exported name)</label>
      <input id="import-name" name="name" maxlength="200" />
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Import</button>
    </form>
  </section>`;
}

/**
 * Archiving a project (confirmed) or restoring it: an archived project is read-only and out of the
 * projects list, which shows it under Archived.
 * @param {{params: Params, proj: api.Schemas['ProjectOut'], onSaved: (p: api.Schemas['ProjectOut']) => void}} props
 */
function ArchiveSection({ params, proj, onSaved }) {
  const [run, busy, error] = useAction();
  if (proj.archivedAt) {
    return html`<section class="panel archived-note" aria-labelledby="settings-archive">
      <h2 id="settings-archive">Archived</h2>
      <p>This project was archived on ${formatDate(proj.archivedAt)}. It is read-only: its board and cards can be read and
        exported, not changed. Restore it to work in it again.</p>
      <${ErrorMessage} error=${error} />
      <button type="button" disabled=${busy} onClick=${() => run(async () => {
        onSaved(await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/unarchive', params));
        announce(`${proj.name} restored`);
      })}>Restore the project</button>
    </section>`;
  }
  return html`<section class="panel" aria-labelledby="settings-archive">
    <h2 id="settings-archive">Archive</h2>
    <p class="hint">An archived project leaves the projects list (it is kept under Archived there) and becomes read-only
      for everyone: nothing is deleted, and it can be restored at any time.</p>
    <${ConfirmButton} label="Archive project" title=${`Archive ${proj.name}?`} className="secondary" confirmLabel="Archive the project"
      detail=${html`<p>Its board, cards and comments stay readable but cannot be changed until someone restores it.
        It moves to Archived on the projects page.</p>`}
      onConfirm=${async () => { onSaved(await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/archive', params)); announce(`${proj.name} archived`); }} />
  </section>`;
}
