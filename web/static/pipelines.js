// @ts-check
// Pipelines and plugins: a workspace's pipelines (a graph of steps, each a form built from its type's
// fields, the API's refusals shown next to the step they name), their runs watched live step by step on
// the run's event stream, the run history; the plugin catalog (install with settings, settings changed,
// uninstall) and the workspace's skills. Loaded with import() when one of its screens first opens.
import { html, useState, useEffect, useMemo, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, When, humanize, announce, formValues } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { follow } from './live.js';

/** @typedef {api.Schemas['PipelineOut']} Pipeline */
/** @typedef {api.Schemas['TypeInfo']} StepType */
/** @typedef {api.Schemas['ParamField']} Field */
/** @typedef {api.Schemas['RunOut']} Run */
/** @typedef {api.Schemas['RunStepOut']} RunStep */
/** @typedef {api.Schemas['Plugin']} Plugin */
/** @typedef {api.Schemas['InstalledPluginOut']} Installed */
/** @typedef {{key: number, id: string, type: string, params: Record<string, any>, needs: string[]}} EditStep */
/** @typedef {{runId: string, seq: number, type: string, status?: string, message?: string, data?: any, at: string}} RunEvent */

const WS = '/orgs/{orgSlug}/workspaces/{wsSlug}';
const PIPELINES = '/orgs/{orgSlug}/workspaces/{wsSlug}/pipelines';
const PIPELINE = '/orgs/{orgSlug}/workspaces/{wsSlug}/pipelines/{pipelineId}';
const STEP_TYPES = '/orgs/{orgSlug}/workspaces/{wsSlug}/pipelines/step-types';
const RUNS = '/orgs/{orgSlug}/workspaces/{wsSlug}/pipelines/{pipelineId}/runs';
const RUN = '/orgs/{orgSlug}/workspaces/{wsSlug}/pipelines/{pipelineId}/runs/{runId}';
const RUN_EVENTS = '/orgs/{orgSlug}/workspaces/{wsSlug}/pipelines/{pipelineId}/runs/{runId}/events';
const RUN_CANCEL = '/orgs/{orgSlug}/workspaces/{wsSlug}/pipelines/{pipelineId}/runs/{runId}/cancel';
const CATALOG = '/plugins';
const PLUGINS = '/orgs/{orgSlug}/workspaces/{wsSlug}/plugins';
const PLUGIN = '/orgs/{orgSlug}/workspaces/{wsSlug}/plugins/{pluginId}';
const PLUGIN_INSTALL = '/orgs/{orgSlug}/workspaces/{wsSlug}/plugins/{pluginId}/install';
const SKILLS = '/orgs/{orgSlug}/workspaces/{wsSlug}/skills';

/** A run's final statuses: its stream ends with one of them. */
const finalRun = ['completed', 'failed', 'cancelled'];

/** The words of a step's parameter. */
const fieldWords = /** @type {Record<string, string>} */ ({
  projectId: 'Project', columnId: 'Column', title: 'Title', description: 'Description', agentId: 'Agent', cardId: 'Card',
  objective: 'Objective', draftId: 'Project draft', message: 'Message', duration: 'Duration', url: 'URL', webhookId: 'Webhook',
  body: 'Body (JSON)', step: 'Step tested', field: 'Field of its output', op: 'Test', value: 'Value', then: 'When it holds, run',
  else: 'Otherwise, run', subject: 'Subject', content: 'Comment',
});
/** @param {string} name */
const fieldLabel = (name) => fieldWords[name] || humanize(name.replace(/Id$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase());

/** The workspace role of the caller: admins create, change and run pipelines and install plugins. */
function useAdmin(/** @type {string} */ org, /** @type {string} */ ws) {
  const w = useLoad((s) => api.get(WS, { orgSlug: org, wsSlug: ws }, undefined, s), [org, ws]);
  return w.data?.myRole === 'admin';
}

/** @param {{org: string, ws: string, current: string}} props */
function AreaNav({ org, ws, current }) {
  const base = `/w/${org}/${ws}`;
  return html`<nav class="area-nav" aria-label="Pipelines and plugins">
    <a href=${base + '/pipelines'} aria-current=${current === 'pipelines' ? 'page' : undefined}>Pipelines</a>
    <a href=${base + '/plugins'} aria-current=${current === 'plugins' ? 'page' : undefined}>Plugins and skills</a>
  </nav>`;
}

// ---- Pipelines --------------------------------------------------------------------------------------------

/** @param {{org: string, ws: string}} props */
export function Pipelines({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const list = useLoad((s) => api.getAll(PIPELINES, params, undefined, s), [org, ws]);
  const admin = useAdmin(org, ws);
  const base = `/w/${org}/${ws}/pipelines`;
  return html`<h1>Pipelines</h1>
    <${AreaNav} org=${org} ws=${ws} current="pipelines" />
    <p>A pipeline is a series of steps Pilot runs for you: create cards, notify the team, wait, test a result, start an agent. A step can wait for others, so independent steps run side by side.</p>
    ${admin && html`<p><a class="button" href=${base + '/new'}>New pipeline</a></p>`}
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : list.data?.length === 0
      ? html`<p class="muted" data-empty="pipelines">No pipeline yet. ${admin ? 'Create one with "New pipeline": give it a name, then add its steps.' : 'A workspace admin can create one.'}</p>`
      : list.data && html`<ul class="pipelines">${list.data.map((p) => html`<li class="pipeline-item" key=${p.id} data-pipeline-id=${p.id}>
          <p><a href=${`${base}/${p.id}`}><strong>${p.name}</strong></a>
            · ${p.enabled ? 'Enabled' : html`<span class="muted">Disabled</span>`}
            · ${p.steps.length === 1 ? '1 step' : `${p.steps.length} steps`}
            · <span class="muted">changed <${When} iso=${p.updatedAt} /></span></p>
          ${p.description && html`<p class="muted">${p.description}</p>`}
        </li>`)}</ul>`}`;
}

/** @param {{org: string, ws: string}} props */
export function NewPipeline({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const types = useLoad((s) => api.get(STEP_TYPES, params, undefined, s), [org, ws]);
  const admin = useAdmin(org, ws);
  const first = types.data?.[0]?.type || 'create_card';
  return html`<p><a href=${`/w/${org}/${ws}/pipelines`}>All pipelines</a></p>
    <h1>New pipeline</h1>
    <${ErrorMessage} error=${types.error} />
    ${!types.data ? html`<${Loading} />` : html`<${PipelineEditor} org=${org} ws=${ws} types=${types.data || []} canEdit=${admin}
      initial=${{ name: '', description: '', enabled: true, steps: [{ id: 'step-1', type: first, params: {}, needs: [] }] }}
      saveLabel="Create the pipeline"
      onSave=${async (/** @type {any} */ body) => {
        const p = await api.post(PIPELINES, params, body);
        announce(`Pipeline ${p.name} created`);
        navigate(`/w/${org}/${ws}/pipelines/${p.id}`);
      }} />`}`;
}

/** @param {{org: string, ws: string, pipeline: string}} props */
export function PipelinePage({ org, ws, pipeline }) {
  const params = { orgSlug: org, wsSlug: ws, pipelineId: pipeline };
  const p = useLoad((s) => api.get(PIPELINE, params, undefined, s), [org, ws, pipeline]);
  const types = useLoad((s) => api.get(STEP_TYPES, params, undefined, s), [org, ws]);
  const admin = useAdmin(org, ws);
  const base = `/w/${org}/${ws}/pipelines`;
  if (p.error && !p.data) return html`<p><a href=${base}>All pipelines</a></p><h1>Pipeline</h1><${ErrorMessage} error=${p.error} />`;
  if (!p.data || !types.data) return html`<${Loading} /><${ErrorMessage} error=${types.error} />`;
  const pl = p.data;
  return html`<p><a href=${base}>All pipelines</a></p>
    <h1>${pl.name}</h1>
    ${pl.description && html`<p>${pl.description}</p>`}
    <p class="muted">${pl.enabled ? 'Enabled' : 'Disabled: it cannot run until it is enabled again.'} Changed <${When} iso=${pl.updatedAt} />.</p>
    ${admin && html`<${StartRun} org=${org} ws=${ws} pipeline=${pl} />`}
    <${StepOrder} steps=${pl.steps.map((s, i) => ({ key: i, id: s.id, type: s.type, params: s.params || {}, needs: s.needs || [] }))} types=${types.data || []} />
    <${Runs} org=${org} ws=${ws} pipeline=${pl.id} />
    <section aria-labelledby="steps-title"><h2 id="steps-title">${admin ? 'Edit the pipeline' : 'Steps'}</h2>
      ${admin ? html`<${PipelineEditor} key=${pl.updatedAt} org=${org} ws=${ws} types=${types.data || []} canEdit=${true}
          initial=${pl} saveLabel="Save the pipeline"
          onSave=${async (/** @type {any} */ body) => { const np = await api.patch(PIPELINE, params, body); p.set(np); announce('Pipeline saved'); }} />`
        : html`<${StepList} steps=${pl.steps} types=${types.data || []} />`}
    </section>
    ${admin && html`<section aria-labelledby="delete-title"><h2 id="delete-title">Delete the pipeline</h2>
      <p class="muted">Its runs and their history are deleted with it.</p>
      <${ConfirmButton} label="Delete the pipeline" title=${`Delete the pipeline “${pl.name}”?`} confirmLabel="Delete the pipeline"
        detail=${html`<p>The pipeline and every run of it are deleted. What its runs made (cards, comments, notifications) stays.</p>`}
        onConfirm=${async () => { await api.del(PIPELINE, params); announce(`Pipeline ${pl.name} deleted`); navigate(base); }} />
    </section>`}`;
}

/** The run button: the API's runs take no input; a disabled pipeline cannot run. @param {{org: string, ws: string, pipeline: Pipeline}} props */
function StartRun({ org, ws, pipeline }) {
  const [run, busy, error] = useAction();
  return html`<p class="actions"><button disabled=${busy || !pipeline.enabled} onClick=${() => run(async () => {
      const r = await api.post(RUNS, { orgSlug: org, wsSlug: ws, pipelineId: pipeline.id });
      navigate(`/w/${org}/${ws}/pipelines/${pipeline.id}/runs/${r.id}`);
    })}>Run the pipeline</button>
    <span class="muted">Its steps act in your name.</span></p>
    <${ErrorMessage} error=${error} />`;
}

/** The steps in the order they can run: each line the steps whose needs are met by the lines above. @param {{steps: EditStep[], types: StepType[]}} props */
function StepOrder({ steps, types }) {
  const levels = useMemo(() => levelsOf(steps), [steps]);
  if (!levels) return html`<p class="muted">The steps wait for each other in a loop: no order can run them.</p>`;
  return html`<section aria-labelledby="order-title"><h2 id="order-title">Order</h2>
    <ol class="step-order">${levels.map((l, i) => html`<li><span class="muted">${i === 0 ? 'First' : 'Then'}</span>
      ${l.map((s) => html`<span class="step-chip" data-step=${s.id}><strong>${s.id}</strong> ${typeWords(s.type, types)}${s.needs.length ? html` <span class="muted">after ${s.needs.join(', ')}</span>` : ''}</span>`)}
    </li>`)}</ol></section>`;
}

/** The steps grouped by depth (a step is one deeper than the deepest step it needs), or null on a cycle. @param {EditStep[]} steps */
function levelsOf(steps) {
  const byId = new Map(steps.map((s) => [s.id, s]));
  /** @type {Map<string, number>} */
  const depth = new Map();
  /** @param {string} id @param {Set<string>} path @returns {number} */
  const of = (id, path) => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (path.has(id)) return -Infinity;
    path.add(id);
    const s = byId.get(id);
    let d = 0;
    for (const n of s?.needs || []) if (byId.has(n)) d = Math.max(d, of(n, path) + 1);
    path.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const s of steps) of(s.id, new Set());
  if ([...depth.values()].some((d) => !isFinite(d))) return null;
  /** @type {EditStep[][]} */
  const out = [];
  for (const s of steps) (out[depth.get(s.id) || 0] ||= []).push(s);
  return out.filter(Boolean);
}

/** @param {string} type @param {StepType[]} types */
const typeWords = (type, types) => humanize(type) + (types.find((t) => t.type === type)?.plugin ? ' (plugin)' : '');

/** Read-only steps, for members. @param {{steps: api.Schemas['StepIn'][], types: StepType[]}} props */
function StepList({ steps, types }) {
  return html`<ol class="step-list">${steps.map((s) => html`<li>
    <p><strong>${s.id}</strong> · ${typeWords(s.type, types)}${s.needs?.length ? ` · waits for ${s.needs.join(', ')}` : ''}</p>
    <dl class="params">${Object.entries(s.params || {}).map(([k, v]) => html`<div><dt>${fieldLabel(k)}</dt><dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd></div>`)}</dl>
  </li>`)}</ol>`;
}

/** A refusal of the API that names a step: `step "b": needs unknown step "x"`. @param {unknown} e */
function stepError(e) {
  const m = /^step "([^"]+)": ([\s\S]*)$/.exec(e ? api.message(e) : '');
  return m ? { step: m[1], message: m[2] } : null;
}

let nextKey = 1;

/**
 * The pipeline's name, description, whether it is enabled, and its steps: a form per step built from its
 * type's fields, with the steps it waits for. The API validates the whole graph; a refusal naming a step
 * is shown in that step's form.
 * @param {{org: string, ws: string, types: StepType[], canEdit: boolean, initial: {name: string, description: string, enabled: boolean, steps: api.Schemas['StepIn'][]},
 *   saveLabel: string, onSave: (body: any) => Promise<unknown>}} props
 */
function PipelineEditor({ org, ws, types, initial, saveLabel, onSave }) {
  const [name, setName] = useState(initial.name);
  const [description, setDescription] = useState(initial.description);
  const [enabled, setEnabled] = useState(initial.enabled);
  const [steps, setSteps] = useState(() => /** @type {EditStep[]} */ (initial.steps.map((s) => ({
    key: nextKey++, id: s.id, type: s.type, needs: s.needs || [], params: toForm(s.params || {}, types.find((t) => t.type === s.type)),
  }))));
  const [run, busy, error] = useAction();
  const refused = stepError(error);
  const refusedStep = refused && steps.some((s) => s.id === refused.step) ? refused.step : '';
  /** @param {number} key @param {(s: EditStep) => EditStep} f */
  const update = (key, f) => setSteps((list) => list.map((s) => (s.key === key ? f(s) : s)));
  /** Renames a step, and the needs and branch lists that name it. @param {number} key @param {string} id */
  const rename = (key, id) => setSteps((list) => {
    const old = list.find((s) => s.key === key)?.id || '';
    const shared = list.filter((s) => s.id === old).length > 1;
    const swap = (/** @type {string} */ x) => (x === old && !shared ? id : x);
    return list.map((s) => {
      if (s.key === key) return { ...s, id };
      const params = { ...s.params };
      for (const k of ['then', 'else']) if (Array.isArray(params[k])) params[k] = params[k].map(swap);
      if (typeof params.step === 'string') params.step = swap(params.step);
      return { ...s, needs: s.needs.map(swap), params };
    });
  });
  const add = () => setSteps((list) => {
    let n = list.length + 1;
    while (list.some((s) => s.id === `step-${n}`)) n++;
    const last = list[list.length - 1];
    return [...list, { key: nextKey++, id: `step-${n}`, type: types[0]?.type || 'create_card', params: {}, needs: last ? [last.id] : [] }];
  });
  /** @param {number} key */
  const remove = (key) => setSteps((list) => {
    const gone = list.find((s) => s.key === key)?.id;
    return list.filter((s) => s.key !== key).map((s) => ({ ...s, needs: s.needs.filter((n) => n !== gone) }));
  });
  /** @param {number} i @param {number} d */
  const move = (i, d) => setSteps((list) => {
    const out = [...list];
    [out[i], out[i + d]] = [out[i + d], out[i]];
    return out;
  });
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    run(() => onSave({
      name, description, enabled,
      steps: steps.map((s) => ({ id: s.id, type: s.type, needs: s.needs, params: fromForm(s.params, types.find((t) => t.type === s.type)) })),
    }));
  };
  return html`<form class="pipeline-editor" onSubmit=${submit} noValidate>
    <label for="pipeline-name">Name</label>
    <input id="pipeline-name" value=${name} maxLength="200" onInput=${(/** @type {any} */ e) => setName(e.currentTarget.value)} />
    <label for="pipeline-description">Description</label>
    <textarea id="pipeline-description" rows="2" value=${description} onInput=${(/** @type {any} */ e) => setDescription(e.currentTarget.value)}></textarea>
    <label class="check"><input type="checkbox" checked=${enabled} onChange=${(/** @type {any} */ e) => setEnabled(e.currentTarget.checked)} /> Enabled (it can run)</label>
    <h3>Steps</h3>
    <p class="hint">Each step runs once every step it waits for has completed. Text fields marked “template” can use ${'{{steps.<id>.<field>}}'} (the output of a step it waits for), ${'{{run.id}}'}, ${'{{pipeline.name}}'} and ${'{{date}}'}.</p>
    ${steps.map((s, i) => html`<${StepForm} key=${s.key} org=${org} ws=${ws} step=${s} index=${i} steps=${steps} types=${types}
      error=${refusedStep === s.id ? refused?.message : ''}
      onRename=${(/** @type {string} */ id) => rename(s.key, id)} onChange=${(/** @type {(s: EditStep) => EditStep} */ f) => update(s.key, f)}
      onRemove=${steps.length > 1 ? () => remove(s.key) : null}
      onUp=${i > 0 ? () => move(i, -1) : null} onDown=${i < steps.length - 1 ? () => move(i, 1) : null} />`)}
    <p><button type="button" class="secondary" onClick=${add}>Add a step</button></p>
    ${!refusedStep && html`<${ErrorMessage} error=${error} />`}
    ${refusedStep && html`<p class="error" role="alert">Not saved: step ${refusedStep} is refused (see above).</p>`}
    <p><button type="submit" disabled=${busy}>${saveLabel}</button></p>
  </form>`;
}

/** A step's params as the form holds them: JSON fields as text. @param {Record<string, any>} params @param {StepType|undefined} type */
function toForm(params, type) {
  const out = { ...params };
  for (const f of type?.fields || []) if (f.kind === 'json' && out[f.name] !== undefined && typeof out[f.name] !== 'string') out[f.name] = JSON.stringify(out[f.name]);
  return out;
}

/** A step's params as the API takes them: the type's fields only, blanks left out, JSON fields parsed (text that is not JSON stays text). @param {Record<string, any>} params @param {StepType|undefined} type */
function fromForm(params, type) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const f of type?.fields || []) {
    const v = params[f.name];
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (f.kind === 'json' && typeof v === 'string') {
      try { out[f.name] = JSON.parse(v); } catch { out[f.name] = v; }
    } else out[f.name] = v;
  }
  return out;
}

/** The steps a step transitively waits for. @param {EditStep} step @param {EditStep[]} steps */
function ancestorsOf(step, steps) {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const out = new Set();
  const walk = (/** @type {string[]} */ needs) => { for (const n of needs) if (!out.has(n) && byId.has(n)) { out.add(n); walk(byId.get(n)?.needs || []); } };
  walk(step.needs);
  return [...out];
}

/**
 * @param {{org: string, ws: string, step: EditStep, index: number, steps: EditStep[], types: StepType[], error: string,
 *   onRename: (id: string) => void, onChange: (f: (s: EditStep) => EditStep) => void, onRemove: (() => void)|null,
 *   onUp: (() => void)|null, onDown: (() => void)|null}} props
 */
function StepForm({ org, ws, step, index, steps, types, error, onRename, onChange, onRemove, onUp, onDown }) {
  const type = types.find((t) => t.type === step.type);
  const p = `step-${index}`;
  const others = steps.filter((s) => s.key !== step.key);
  return html`<fieldset class=${'step-form' + (error ? ' refused' : '')} data-step=${step.id} aria-describedby=${error ? p + '-error' : undefined}>
    <legend>Step ${index + 1}: ${step.id || 'unnamed'}</legend>
    ${error && html`<p class="error" id=${p + '-error'} role="alert">${error}</p>`}
    <div class="row">
      <div><label for=${p + '-id'}>Step id</label>
        <input id=${p + '-id'} value=${step.id} maxLength="64" aria-describedby=${p + '-id-hint'} onInput=${(/** @type {any} */ e) => onRename(e.currentTarget.value)} />
        <p class="hint" id=${p + '-id-hint'}>Letters, digits, - or _; later steps name it.</p></div>
      <div><label for=${p + '-type'}>Type</label>
        <select id=${p + '-type'} value=${step.type} aria-describedby=${p + '-type-hint'} onChange=${(/** @type {any} */ e) => {
          const t = e.currentTarget.value;
          const names = (types.find((x) => x.type === t)?.fields || []).map((f) => f.name);
          onChange((s) => ({ ...s, type: t, params: Object.fromEntries(Object.entries(s.params).filter(([k]) => names.includes(k))) }));
        }}>
          ${!type && html`<option value=${step.type}>${humanize(step.type)} (not available here)</option>`}
          ${types.map((t) => html`<option value=${t.type}>${typeWords(t.type, types)}</option>`)}
        </select>
        <p class="hint" id=${p + '-type-hint'}>${type ? type.description + (type.plugin ? ` From the plugin ${type.plugin}.` : '') : 'This type is not available in this workspace (its plugin is not installed).'}</p></div>
    </div>
    <fieldset class="needs"><legend>Waits for</legend>
      ${others.length === 0 ? html`<p class="hint">No other step yet: it starts when the run starts.</p>`
        : others.map((o) => html`<label class="check"><input type="checkbox" id=${p + '-needs-' + o.key} checked=${step.needs.includes(o.id)}
          onChange=${(/** @type {any} */ e) => { const on = e.currentTarget.checked; onChange((s) => ({ ...s, needs: on ? [...s.needs, o.id] : s.needs.filter((n) => n !== o.id) })); }} /> ${o.id || 'unnamed'}</label>`)}
    </fieldset>
    ${(type?.fields || []).map((f) => html`<${ParamInput} key=${f.name} org=${org} ws=${ws} field=${f} id=${p + '-' + f.name} step=${step} steps=${steps}
      value=${step.params[f.name]} onValue=${(/** @type {any} */ v) => onChange((s) => ({ ...s, params: { ...s.params, [f.name]: v } }))} />`)}
    <p class="actions">
      ${onUp && html`<button type="button" class="secondary" onClick=${onUp}>Move up<span class="visually-hidden"> step ${step.id}</span></button>`}
      ${onDown && html`<button type="button" class="secondary" onClick=${onDown}>Move down<span class="visually-hidden"> step ${step.id}</span></button>`}
      ${onRemove && html`<button type="button" class="danger" onClick=${onRemove}>Remove<span class="visually-hidden"> step ${step.id}</span></button>`}
    </p>
  </fieldset>`;
}

/** Lists the pickers read, shared by the step forms of a page: one request per list. */
const lists = new Map();
/** @template T @param {string} key @param {() => Promise<T>} load @returns {{data?: T, error?: unknown}} */
function useList(key, load) {
  const [state, setState] = useState(/** @type {{data?: T, error?: unknown}} */ ({}));
  useEffect(() => {
    if (!key) { setState({}); return; }
    let p = lists.get(key);
    if (!p) { p = load(); lists.set(key, p); p.catch(() => lists.delete(key)); }
    let live = true;
    p.then((/** @type {T} */ data) => live && setState({ data }), (/** @type {unknown} */ error) => live && setState({ error }));
    return () => { live = false; };
  }, [key]);
  return state;
}

/**
 * One parameter of a step, by its kind: a picker of the workspace's projects, columns, agents or drafts, the
 * steps it may name, a choice, or text.
 * @param {{org: string, ws: string, field: Field, id: string, step: EditStep, steps: EditStep[], value: any, onValue: (v: any) => void}} props
 */
function ParamInput({ org, ws, field, id, step, steps, value, onValue }) {
  const params = { orgSlug: org, wsSlug: ws };
  const k = field.kind;
  const at = `${org}/${ws}/`;
  const projects = useList(k === 'project' || k === 'column' ? at + 'projects' : '', () => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects', params));
  const projectId = String(step.params.projectId || '');
  const columns = useList(k === 'column' && projectId ? at + 'columns/' + projectId : '', () => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/columns', { ...params, projectId }));
  const agents = useList(k === 'agent' ? at + 'agents' : '', () => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agents', params));
  const drafts = useList(k === 'draft' ? at + 'drafts' : '', () => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts', params));
  const label = fieldLabel(field.name) + (field.required ? ' (required)' : '') + (field.template ? ' (template)' : '');
  const hint = field.doc + (field.maxLength ? ` At most ${field.maxLength} characters.` : '');
  const set = (/** @type {any} */ e) => onValue(e.currentTarget.value);
  const described = id + '-hint';
  /** @param {{id: string, name: string}[]|undefined} options @param {string} none @param {unknown} error */
  const picker = (options, none, error) => html`<select id=${id} value=${value || ''} aria-describedby=${described} onChange=${set}>
      <option value="">${none}</option>
      ${options?.map((o) => html`<option value=${o.id}>${o.name}</option>`)}
      ${value && options && !options.some((o) => o.id === value) && html`<option value=${value}>${value} (not found)</option>`}
    </select>${error && html`<${ErrorMessage} error=${error} />`}`;
  let input;
  if (k === 'project') input = picker(projects.data, 'Choose a project', projects.error);
  else if (k === 'column') input = projectId ? picker(columns.data, field.required ? 'Choose a column' : 'The first column', columns.error) : html`<select id=${id} disabled aria-describedby=${described}><option>Choose a project first</option></select>`;
  else if (k === 'agent') input = picker(agents.data, agents.data?.length === 0 ? 'No agent in this workspace' : 'Choose an agent', agents.error);
  else if (k === 'draft') input = picker(drafts.data, drafts.data?.length === 0 ? 'No project draft in this workspace' : 'Choose a project draft', drafts.error);
  else if (k === 'choice') input = html`<select id=${id} value=${value || ''} aria-describedby=${described} onChange=${set}>
      <option value="">Choose</option>${(field.options || []).map((o) => html`<option value=${o}>${humanize(o)}</option>`)}</select>`;
  else if (k === 'step') {
    const anc = ancestorsOf(step, steps);
    input = html`<select id=${id} value=${value || ''} aria-describedby=${described} onChange=${set}>
      <option value="">${anc.length ? 'Choose a step it waits for' : 'It waits for no step yet'}</option>${anc.map((a) => html`<option value=${a}>${a}</option>`)}</select>`;
  } else if (k === 'steps') {
    const after = steps.filter((s) => s.needs.includes(step.id));
    const chosen = Array.isArray(value) ? value : [];
    return html`<fieldset class="needs" aria-describedby=${described}><legend>${label}</legend>
      <p class="hint" id=${described}>${hint}</p>
      ${after.length === 0 ? html`<p class="hint">No step waits for this one yet: make a step wait for it to choose it here.</p>`
        : after.map((s) => html`<label class="check"><input type="checkbox" id=${id + '-' + s.key} checked=${chosen.includes(s.id)}
          onChange=${(/** @type {any} */ e) => onValue(e.currentTarget.checked ? [...chosen, s.id] : chosen.filter((/** @type {string} */ x) => x !== s.id))} /> ${s.id}</label>`)}
    </fieldset>`;
  } else if (k === 'card') {
    const list = id + '-suggest';
    input = html`<input id=${id} value=${value || ''} list=${list} aria-describedby=${described} onInput=${set} />
      <datalist id=${list}>${ancestorsOf(step, steps).map((a) => html`<option value=${`{{steps.${a}.cardId}}`} />`)}</datalist>`;
  } else if (k === 'multiline' || k === 'json') input = html`<textarea id=${id} rows=${k === 'json' ? 2 : 3} value=${value ?? ''} maxLength=${field.maxLength || undefined} aria-describedby=${described} onInput=${set}></textarea>`;
  else input = html`<input id=${id} type=${k === 'url' ? 'url' : 'text'} value=${value ?? ''} maxLength=${field.maxLength || undefined}
      placeholder=${k === 'duration' ? '5m' : undefined} aria-describedby=${described} onInput=${set} />`;
  const extra = k === 'card' ? ' A card id, or a template such as {{steps.<id>.cardId}}.' : k === 'webhook' ? ' The id of one of the workspace’s webhooks.' : k === 'json' ? ' JSON; text that is not JSON is sent as text.' : '';
  return html`<div class="param"><label for=${id}>${label}</label>${input}<p class="hint" id=${described}>${hint}${extra}</p></div>`;
}

/** The pipeline's runs, newest first. @param {{org: string, ws: string, pipeline: string}} props */
function Runs({ org, ws, pipeline }) {
  const params = { orgSlug: org, wsSlug: ws, pipelineId: pipeline };
  const runs = useLoad((s) => api.get(RUNS, params, { limit: 20 }, s), [org, ws, pipeline]);
  useEffect(() => { const f = () => runs.reload(); addEventListener('focus', f); return () => removeEventListener('focus', f); }, []);
  const base = `/w/${org}/${ws}/pipelines/${pipeline}/runs/`;
  return html`<section aria-labelledby="runs-title"><h2 id="runs-title">Runs</h2>
    <${ErrorMessage} error=${runs.error} />
    ${!runs.data ? html`<${Loading} />` : runs.data.length === 0 ? html`<p class="muted" data-empty="runs">No run yet. ${'"Run the pipeline" starts one, which you can watch step by step.'}</p>`
      : html`<div class="table-wrap"><table class="runs">
        <thead><tr><th scope="col">Started</th><th scope="col">Status</th><th scope="col">Steps done</th><th scope="col">Finished</th></tr></thead>
        <tbody>${runs.data.map((r) => html`<tr key=${r.id} data-run-id=${r.id}>
          <td><a href=${base + r.id}><${When} iso=${r.createdAt} /></a></td>
          <td><span class=${'status ' + r.status} data-status=${r.status}>${humanize(r.status)}</span>${r.error && html` <span class="error">${r.error}</span>`}</td>
          <td>${(r.steps || []).filter((s) => s.status === 'completed').length} of ${(r.steps || []).length}</td>
          <td>${r.finishedAt ? html`<${When} iso=${r.finishedAt} />` : html`<span class="muted">not yet</span>`}</td>
        </tr>`)}</tbody></table></div>
        ${runs.data.length === 20 && html`<p class="muted">The 20 latest runs.</p>`}`}
  </section>`;
}

/** A run, followed live on its event stream until its end. @param {{org: string, ws: string, pipeline: string, run: string}} props */
export function RunPage({ org, ws, pipeline, run }) {
  const params = { orgSlug: org, wsSlug: ws, pipelineId: pipeline, runId: run };
  const r = useLoad((s) => api.get(RUN, params, undefined, s), [org, ws, pipeline, run]);
  const admin = useAdmin(org, ws);
  const [live, setLive] = useState(/** @type {Record<string, {status: string, output?: any, error?: string|null}>} */ ({}));
  const [status, setStatus] = useState('');
  const [conn, setConn] = useState(/** @type {'open'|'reconnecting'|'closed'} */ ('reconnecting'));
  useEffect(() => {
    setLive({});
    setStatus('');
    let opened = false;
    // The stream replays the run's events from its first, so a reload shows every step again.
    return follow(api.href(RUN_EVENTS, params), ['status', 'step', 'done'], (type, data) => {
      const ev = /** @type {RunEvent} */ (data);
      if (ev.status) setStatus(ev.status);
      const d = ev.data || {};
      if (type === 'step' && d.stepId) {
        setLive((l) => ({ ...l, [d.stepId]: { status: d.status, output: d.output, error: d.error } }));
        if (d.status && d.status !== 'queued') announce(`Step ${d.stepId}: ${humanize(d.status)}`);
      }
      if (type === 'done') { r.reload(); announce(`Run ${humanize(ev.status)}`); return true; }
      return false;
    }, (state) => {
      if (state === 'open' && opened) r.reload();
      if (state === 'open') opened = true;
      setConn(state);
    });
  }, [org, ws, pipeline, run]);
  const base = `/w/${org}/${ws}/pipelines/${pipeline}`;
  const data = r.data;
  const shown = (data && finalRun.includes(data.status) ? data.status : status) || data?.status || '';
  return html`<p><a href=${base}>Back to the pipeline</a></p>
    <h1>Run of ${data?.pipelineName || 'the pipeline'}</h1>
    <${ErrorMessage} error=${r.error} />
    ${data && html`<p class="muted">Started <${When} iso=${data.createdAt} />${data.finishedAt && html`, finished <${When} iso=${data.finishedAt} />`}.</p>`}
    <p class="status-line">Status: <span class=${'status ' + shown} data-status=${shown} role="status">${humanize(shown) || '…'}</span>
      ${!finalRun.includes(shown) && html` <span class="muted" data-conn=${conn}>${conn === 'open' ? 'live' : conn === 'reconnecting' ? 'connecting…' : ''}</span>`}</p>
    ${data?.error && html`<p class="error">${data.error}</p>`}
    ${admin && shown === 'running' && html`<${ConfirmButton} label="Stop the run" title="Stop this run?" confirmLabel="Stop the run"
      detail=${html`<p>The steps not finished yet are cancelled, and so are the agent missions they wait for. What the steps done so far made stays.</p>`}
      onConfirm=${async () => { const c = await api.post(RUN_CANCEL, params); r.set(c); announce('Run cancelled'); }} />`}
    ${!data ? html`<${Loading} />` : html`<section aria-labelledby="run-steps-title"><h2 id="run-steps-title">Steps</h2>
      <ol class="run-steps">${(data.steps || []).map((s) => html`<${RunStepItem} key=${s.id} org=${org} ws=${ws} step=${s} live=${live[s.id]} />`)}</ol>
    </section>`}`;
}

/** @param {{org: string, ws: string, step: RunStep, live?: {status: string, output?: any, error?: string|null}}} props */
function RunStepItem({ org, ws, step, live }) {
  // The run read after its end is the truth; until then the stream's latest word on the step.
  const final = ['completed', 'failed', 'skipped', 'cancelled'].includes(step.status);
  const st = final || !live ? step.status : live.status;
  const output = (final ? step.output : live?.output ?? step.output) || null;
  const error = final ? step.error : live?.error ?? step.error;
  const base = `/w/${org}/${ws}`;
  return html`<li class="run-step" data-step=${step.id} data-status=${st}>
    <p><strong>${step.id}</strong> · ${humanize(step.type)}${step.needs?.length ? html` <span class="muted">after ${step.needs.join(', ')}</span>` : ''}
      · <span class=${'status ' + st}>${humanize(st)}</span>
      ${step.finishedAt && html` <span class="muted"><${When} iso=${step.finishedAt} /></span>`}
      ${step.attempts > 1 && html` <span class="muted">(${step.attempts} attempts)</span>`}</p>
    ${error && html`<p class="error">${error}</p>`}
    ${output && html`<p>
      ${typeof output.cardId === 'string' && typeof output.projectId === 'string' && html`<a href=${`${base}/p/${output.projectId}?card=${output.cardId}`}>Open the card${output.title ? ` “${output.title}”` : ''}</a> `}
      ${typeof output.missionId === 'string' && html`<a href=${`${base}/missions/${output.missionId}`}>Open the mission</a> `}
      ${typeof output.recipients === 'number' && html`<span>${output.recipients === 1 ? '1 person notified' : `${output.recipients} people notified`}</span> `}
    </p>
    <details><summary>Output<span class="visually-hidden"> of ${step.id}</span></summary><pre>${JSON.stringify(output, null, 2)}</pre></details>`}
  </li>`;
}

// ---- Plugins and skills -------------------------------------------------------------------------------------

/** @param {{org: string, ws: string}} props */
export function Plugins({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const catalog = useLoad((s) => api.get(CATALOG, {}, undefined, s), []);
  const installed = useLoad((s) => api.get(PLUGINS, params, undefined, s), [org, ws]);
  const admin = useAdmin(org, ws);
  const mine = new Map((installed.data || []).map((i) => [i.pluginId, i]));
  return html`<h1>Plugins and skills</h1>
    <${AreaNav} org=${org} ws=${ws} current="plugins" />
    <p>Plugins add pipeline step types and project templates to this workspace. ${admin ? 'Install one to use what it adds; uninstalling takes it away at once.' : 'A workspace admin installs and uninstalls them.'}</p>
    <${ErrorMessage} error=${catalog.error || installed.error} />
    ${!catalog.data || !installed.data ? html`<${Loading} />` : catalog.data.length === 0 ? html`<p class="muted">No plugin is available on this server.</p>`
      : html`<ul class="plugins">${catalog.data.map((p) => html`<${PluginItem} key=${p.id} params=${params} plugin=${p} installed=${mine.get(p.id)} admin=${admin} onChange=${installed.reload} />`)}</ul>`}
    <${Skills} params=${params} admin=${admin} />`;
}

/** What a plugin adds, in words. @param {api.Schemas['Capabilities']} c */
function adds(c) {
  const parts = [];
  if (c.stepTypes?.length) parts.push(`pipeline steps: ${c.stepTypes.map(humanize).join(', ')}`);
  if (c.projectTemplates?.length) parts.push(`project templates: ${c.projectTemplates.map(humanize).join(', ')}`);
  if (c.agentTools?.length) parts.push(`agent tools: ${c.agentTools.map(humanize).join(', ')}`);
  return parts.length ? 'Adds ' + parts.join('; ') + '.' : '';
}

/** @param {{params: Record<string,string>, plugin: Plugin, installed?: Installed, admin: boolean, onChange: () => void}} props */
function PluginItem({ params, plugin, installed, admin, onChange }) {
  const pp = { ...params, pluginId: plugin.id };
  const hasSettings = Object.keys(plugin.settings.properties || {}).length > 0;
  return html`<li class="plugin panel" data-plugin-id=${plugin.id} data-installed=${installed ? 'yes' : 'no'} aria-labelledby=${'plugin-' + plugin.id}>
    <h2 id=${'plugin-' + plugin.id}>${plugin.name}</h2>
    <p class="muted">Version ${plugin.version} · ${installed ? html`<strong>Installed</strong> <${When} iso=${installed.installedAt} />` : 'Not installed'}</p>
    <p>${plugin.description}</p>
    <p>${adds(plugin.capabilities)}</p>
    ${admin ? html`<${PluginSettings} plugin=${plugin} values=${installed?.settings} submitLabel=${installed ? 'Save the settings' : `Install ${plugin.name}`}
        hideEmpty=${!!installed && !hasSettings}
        onSubmit=${async (/** @type {Record<string, any>} */ settings) => {
          if (installed) { await api.patch(PLUGIN, pp, { settings }); announce('Settings saved'); } else { await api.post(PLUGIN_INSTALL, pp, { settings }); announce(`${plugin.name} installed`); }
          onChange();
        }} />
      ${installed && html`<${ConfirmButton} label=${`Uninstall ${plugin.name}`} title=${`Uninstall ${plugin.name}?`} confirmLabel="Uninstall"
        detail=${html`<p>What it adds disappears from this workspace at once: pipelines that use its steps cannot run until it is installed again, a step of it that is running fails, and its project templates are no longer offered. Its settings are forgotten.</p>`}
        onConfirm=${async () => { await api.del(PLUGIN, pp); announce(`${plugin.name} uninstalled`); onChange(); }} />`}`
    : installed && hasSettings && html`<dl class="params">${Object.entries(installed.settings).map(([k, v]) => html`<div><dt>${humanize(k)}</dt><dd>${String(v)}</dd></div>`)}</dl>`}
  </li>`;
}

/**
 * A plugin's settings, a field per property of its schema (text, a choice, a number, yes or no), filled with
 * the values installed or the schema's defaults.
 * @param {{plugin: Plugin, values?: Record<string, any>, submitLabel: string, hideEmpty: boolean, onSubmit: (s: Record<string, any>) => Promise<unknown>}} props
 */
function PluginSettings({ plugin, values, submitLabel, hideEmpty, onSubmit }) {
  const [run, busy, error] = useAction();
  const props = Object.entries(plugin.settings.properties || {});
  const required = plugin.settings.required || [];
  if (hideEmpty) return null;
  const submit = (/** @type {Event} */ e) => {
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const v = formValues(e);
    /** @type {Record<string, any>} */
    const out = {};
    for (const [k, s] of props) {
      if (s.type === 'boolean') out[k] = /** @type {HTMLInputElement} */ (form.elements.namedItem(k)).checked;
      else if (s.type === 'integer') { if (v[k] !== '') out[k] = Number(v[k]); } else if (v[k] !== '') out[k] = v[k];
    }
    run(() => onSubmit(out));
  };
  const id = (/** @type {string} */ k) => `plugin-${plugin.id}-${k}`;
  return html`<form class="plugin-settings" onSubmit=${submit} noValidate>
    ${props.map(([k, s]) => {
      const v = values?.[k] ?? s.default;
      const label = humanize(k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()) + (required.includes(k) ? ' (required)' : '');
      if (s.type === 'boolean') return html`<label class="check" for=${id(k)}><input type="checkbox" id=${id(k)} name=${k} checked=${!!v} aria-describedby=${id(k) + '-hint'} /> ${label}</label>
        <p class="hint" id=${id(k) + '-hint'}>${s.description}</p>`;
      return html`<label for=${id(k)}>${label}</label>
        ${s.enum?.length ? html`<select id=${id(k)} name=${k} value=${v ?? ''} aria-describedby=${id(k) + '-hint'}>${s.enum.map((o) => html`<option value=${o}>${o}</option>`)}</select>`
          : html`<input id=${id(k)} name=${k} type=${s.type === 'integer' ? 'number' : 'text'} value=${v ?? ''} min=${s.minimum} max=${s.maximum} maxLength=${s.maxLength} aria-describedby=${id(k) + '-hint'} />`}
        <p class="hint" id=${id(k) + '-hint'}>${s.description}${s.type === 'integer' && s.minimum !== undefined && s.maximum !== undefined ? ` From ${s.minimum} to ${s.maximum}.` : ''}</p>`;
    })}
    <${ErrorMessage} error=${error} />
    <p><button type="submit" disabled=${busy}>${submitLabel}</button></p>
  </form>`;
}

/** The workspace's skills: instructions added to the agents they are assigned to. @param {{params: Record<string,string>, admin: boolean}} props */
function Skills({ params, admin }) {
  const list = useLoad((s) => api.get(SKILLS, params, undefined, s), [params.orgSlug, params.wsSlug]);
  const [run, busy, error] = useAction();
  return html`<section aria-labelledby="skills-title"><h2 id="skills-title">Skills</h2>
    <p>A skill is a set of instructions added to what the agents it is given to are told.</p>
    <${ErrorMessage} error=${list.error} />
    ${!list.data ? html`<${Loading} />` : list.data.length === 0 ? html`<p class="muted" data-empty="skills">No skill yet.${admin ? ' Create one below, then give it to an agent.' : ' A workspace admin can create one.'}</p>`
      : html`<ul class="skills">${list.data.map((s) => html`<li key=${s.id} data-skill-id=${s.id}><strong>${s.name}</strong>${s.description && html` · ${s.description}`}
          <span class="muted"> · created <${When} iso=${s.createdAt} /></span>
          ${s.instructions && html`<details><summary>Instructions<span class="visually-hidden"> of ${s.name}</span></summary><pre>${s.instructions}</pre></details>`}</li>`)}</ul>`}
    ${admin && html`<form class="inline-form" onSubmit=${(/** @type {Event} */ e) => {
      const form = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      run(async () => { await api.post(SKILLS, params, { name: v.name, description: v.description, instructions: v.instructions }); form.reset(); announce('Skill created'); list.reload(); });
    }}>
      <h3>New skill</h3>
      <label for="skill-name">Name</label><input id="skill-name" name="name" maxLength="100" />
      <label for="skill-description">Description</label><input id="skill-description" name="description" />
      <label for="skill-instructions">Instructions</label><textarea id="skill-instructions" name="instructions" rows="4"></textarea>
      <${ErrorMessage} error=${error} />
      <p><button type="submit" disabled=${busy}>Create the skill</button></p>
    </form>`}
  </section>`;
}
