// @ts-check
// A workspace's agents (created, edited and deleted by its admins, read by everyone) and its missions:
// the list filtered by status, agent and card, starting one from an agent's page, cancelling one.
import { html, useState, useMemo, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, When, humanize, formValues, announce, count, duration } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { session } from './session.js';

/** @typedef {api.Schemas['AgentOut']} Agent */
/** @typedef {api.Schemas['MissionOut']} MissionT */
/** @typedef {api.Schemas['ToolCatalogOut']} Tool */
/** @typedef {api.Schemas['SkillOut']} Skill */

/** The autonomy modes, in words: what an agent does with the actions it decides on. */
const modes = [
  ['approval', 'Asks first', 'Every action is proposed; a person approves or rejects each one before it happens.'],
  ['supervised', 'Supervised', 'Comments and checklist items are applied at once; every other action is proposed for approval.'],
  ['autonomous', 'Autonomous', 'Every action is applied at once, without asking.'],
];
const modeName = (/** @type {string} */ m) => modes.find((x) => x[0] === m)?.[1] || humanize(m);
const statuses = ['queued', 'running', 'awaiting_approval', 'awaiting_input', 'stale', 'completed', 'failed', 'stopped', 'expired'];
const finished = ['completed', 'failed', 'stopped', 'expired'];
const missionsPath = '/orgs/{orgSlug}/workspaces/{wsSlug}/missions';

/** Whether the signed-in person administers the workspace (only admins change agents). @param {string} org @param {string} ws */
function isAdmin(org, ws) {
  return session.places.find((o) => o.slug === org)?.workspaces.find((w) => w.slug === ws)?.myRole === 'admin';
}

/** The first sentence of a tool's description (the rest speaks to the model). @param {string} d */
const firstSentence = (d) => (/^.*?\.(?=\s+[A-Z]|$)/.exec(d)?.[0] || d).trim();

/** @param {{org: string, ws: string}} props */
export function Agents({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const agents = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/agents', params, undefined, s), [org, ws]);
  const [creating, setCreating] = useState(false);
  const admin = isAdmin(org, ws);
  return html`<div class="agents-head"><h1>Agents</h1><a href=${`/w/${org}/${ws}/missions`}>All missions</a></div>
    <p class="muted">An agent works on a card when someone starts a mission: it reads the card and acts with the tools it was given.</p>
    <${ErrorMessage} error=${agents.error} />
    ${agents.loading && !agents.data ? html`<${Loading} />` : agents.data?.length === 0
      ? html`<p class="muted">This workspace has no agent yet. ${admin ? 'Create the first one: give it a name, say how freely it acts and which tools it may use.' : 'A workspace admin can create one.'}</p>`
      : html`<ul class="agent-list">${agents.data?.map((a) => html`<li class="agent-item" data-agent-id=${a.id}>
          <a href=${`/w/${org}/${ws}/agents/${a.id}`}><strong>${a.name}</strong></a> <span class="muted">${a.slug}</span>
          <p>${!a.enabled && html`<span class="agent-off">Off</span> · `}<span class="mode">${modeName(a.autonomyMode)}</span> · ${a.tools.length} ${a.tools.length === 1 ? 'tool' : 'tools'}${a.mcpOnly ? ' · worked by an external AI client' : ''}</p>
          ${a.description && html`<p class="muted">${a.description}</p>`}
        </li>`)}</ul>`}
    ${admin && (creating
      ? html`<section class="panel" aria-labelledby="agent-new-title"><h2 id="agent-new-title">New agent</h2>
          <${AgentForm} org=${org} ws=${ws} onCancel=${() => setCreating(false)}
            onSaved=${(/** @type {Agent} */ a) => { announce(`Agent ${a.name} created`); navigate(`/w/${org}/${ws}/agents/${a.id}`); }} /></section>`
      : html`<p><button type="button" onClick=${() => setCreating(true)}>New agent</button></p>`)}
    <${AgentUsage} org=${org} ws=${ws} admin=${admin} />`;
}

/**
 * What the agents cost in the last 30 days, per agent (model turns, tokens, time), and the workspace's
 * daily token budget, which admins set.
 * @param {{org: string, ws: string, admin: boolean}} props
 */
function AgentUsage({ org, ws, admin }) {
  const params = { orgSlug: org, wsSlug: ws };
  const usage = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agent-usage', params, undefined, s), [org, ws]);
  const [run, busy, error] = useAction();
  const u = usage.data;
  const today = u?.days.filter((d) => d.day === u.to).reduce((n, d) => n + d.totalTokens, 0) ?? 0;
  return html`<section class="agent-usage" aria-labelledby="agent-usage-title"><h2 id="agent-usage-title">Usage</h2>
    <${ErrorMessage} error=${usage.error || error} />
    ${u && html`<p class="muted">From ${u.from} to ${u.to} (UTC). Today: ${count(today)} tokens${u.maxTokensPerDay ? ` of the ${count(u.maxTokensPerDay)} a day the workspace allows` : ', no daily budget'}.</p>
      ${u.agents.length === 0 ? html`<p class="muted">No agent worked in these days.</p>` : html`<table class="usage-table">
        <thead><tr><th>Agent</th><th>Missions</th><th>Model turns</th><th>Tokens</th><th>Time</th><th>Waiting for people</th></tr></thead>
        <tbody>${u.agents.map((a) => html`<tr data-agent-id=${a.agentId}><td>${a.agentName || 'Deleted agent'}</td><td>${count(a.missions)}</td>
          <td>${count(a.modelTurns)}</td><td>${count(a.totalTokens)}</td><td>${duration(a.wallSeconds)}</td><td>${duration(a.waitingSeconds)}</td></tr>`)}</tbody></table>`}
      ${admin && html`<form class="budget-form" onSubmit=${(/** @type {Event} */ e) => {
        const v = formValues(e);
        run(async () => {
          await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}', params, { agentSettings: { maxTokensPerDay: v.budget ? Number(v.budget) : null } });
          announce('Daily token budget saved');
          usage.reload();
        });
      }}><label>Daily token budget <input type="number" name="budget" min="1" max="1000000000000" placeholder="No budget"
          defaultValue=${u.maxTokensPerDay ? String(u.maxTokensPerDay) : ''} /></label>
        <button type="submit" class="secondary" disabled=${busy}>Save the budget</button>
        <p class="hint">Once the agents used it in a day (UTC), new missions are refused and running ones stop. Empty: no budget.</p></form>`}`}
  </section>`;
}

/** The tool catalog. @param {string} org @param {string} ws */
function useTools(org, ws) {
  return useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agent-tools', { orgSlug: org, wsSlug: ws }, undefined, s), [org, ws]);
}

/** What works missions: whether an OpenAI-compatible server is configured, and its default model. @param {string} org @param {string} ws */
function useLanguageModel(org, ws) {
  return useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agent-runtime/model', { orgSlug: org, wsSlug: ws }, undefined, s), [org, ws]);
}

/** The model an agent's missions use, in words. @param {Agent} a @param {api.Schemas['LanguageModelOut'] | undefined} lm */
function modelInWords(a, lm) {
  if (a.mcpOnly) return a.model ? `${a.model} (not used: an external AI client works its missions)` : 'Not used: an external AI client works its missions';
  if (!lm) return a.model || "The server's default";
  if (!lm.server) return `${a.model ? a.model + ' (not used)' : 'None'}: no OpenAI-compatible server is configured, so the built-in offline planner works its missions`;
  return a.model || `The server's default (${lm.defaultModel})`;
}

/** A slug made of a name: lowercase letters, digits and hyphens. @param {string} name */
const slugOf = (name) => name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);

/**
 * Creates an agent, or edits one: name, slug, description, autonomy mode, tools, external client,
 * limits.
 * @param {{org: string, ws: string, agent?: Agent, onSaved: (a: Agent) => void, onCancel: () => void}} props
 */
function AgentForm({ org, ws, agent, onSaved, onCancel }) {
  const tools = useTools(org, ws);
  const lm = useLanguageModel(org, ws);
  const [run, busy, error, setError] = useAction();
  const [name, setName] = useState(agent?.name || '');
  const [slug, setSlug] = useState(agent?.slug || '');
  const [slugEdited, setSlugEdited] = useState(!!agent);
  const id = agent ? 'agent-edit' : 'agent-new';
  const save = (/** @type {Event} */ e) => {
    const f = /** @type {HTMLFormElement} */ (e.currentTarget);
    const v = formValues(e);
    const chosen = [...f.querySelectorAll('input[name=tool]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value);
    if (chosen.length === 0) { setError(new Error('Choose at least one tool: without any, the agent can do nothing.')); return; }
    const body = {
      name: v.name.trim(), slug: v.slug.trim(), description: v.description.trim(),
      autonomyMode: /** @type {'approval'|'supervised'|'autonomous'} */ (v.autonomyMode), tools: chosen, mcpOnly: v.mcpOnly === 'on',
      model: v.model.trim(),
      limits: { maxSteps: Number(v.maxSteps), maxActionsPerMission: Number(v.maxActions), maxMissionsPerHour: Number(v.maxPerHour) },
    };
    run(async () => {
      const a = agent
        ? await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}', { orgSlug: org, wsSlug: ws, agentId: agent.id }, body)
        : await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/agents', { orgSlug: org, wsSlug: ws }, body);
      onSaved(a);
    });
  };
  const mode = agent?.autonomyMode || 'approval';
  return html`<form class="agent-form" onSubmit=${save}>
    <label for=${id + '-name'}>Name</label>
    <input id=${id + '-name'} name="name" required maxlength="100" value=${name}
      onInput=${(/** @type {any} */ e) => { setName(e.currentTarget.value); if (!slugEdited) setSlug(slugOf(e.currentTarget.value)); }} />
    <label for=${id + '-slug'}>Short name <span class="hint">(lowercase letters, digits and hyphens; unique in the workspace)</span></label>
    <input id=${id + '-slug'} name="slug" required minlength="2" maxlength="60" pattern="[a-z0-9]+(-[a-z0-9]+)*" value=${slug}
      onInput=${(/** @type {any} */ e) => { setSlug(e.currentTarget.value); setSlugEdited(true); }} />
    <label for=${id + '-description'}>Description</label>
    <textarea id=${id + '-description'} name="description" rows="2" maxlength="2000" defaultValue=${agent?.description || ''}></textarea>
    <fieldset><legend>How freely it acts</legend>
      ${modes.map(([value, label, detail]) => html`<div class="choice"><label>
        <input type="radio" name="autonomyMode" value=${value} defaultChecked=${mode === value} /> <strong>${label}</strong></label>
        <p class="hint">${detail}</p></div>`)}
    </fieldset>
    <fieldset><legend>Tools it may use</legend>
      <${ErrorMessage} error=${tools.error} />
      ${tools.loading && !tools.data && html`<${Loading} />`}
      ${tools.data?.map((t) => html`<div class="choice"><label>
        <input type="checkbox" name="tool" value=${t.name} defaultChecked=${!agent || agent.tools.includes(t.name)} /> <strong>${humanize(t.name)}</strong></label>
        <p class="hint">${firstSentence(t.description)}</p></div>`)}
    </fieldset>
    <div class="choice"><label><input type="checkbox" name="mcpOnly" defaultChecked=${!!agent?.mcpOnly} /> <strong>Worked by an external AI client</strong></label>
      <p class="hint">Its missions wait for an AI client connected through MCP instead of the server's own model.</p></div>
    <label for=${id + '-model'}>Model <span class="hint">(optional)</span></label>
    <input id=${id + '-model'} name="model" maxlength="100" pattern="\\S*" title="A model name, without spaces" defaultValue=${agent?.model || ''}
      aria-describedby=${id + '-model-hint'} placeholder=${lm.data?.defaultModel || ''} />
    <p class="hint" id=${id + '-model-hint'} data-llm=${lm.data ? (lm.data.server ? 'server' : 'offline') : undefined}>${!lm.data ? 'The model its missions ask the server for; empty: the server\'s default.'
      : lm.data.server ? `The model its missions ask the OpenAI-compatible server for. Empty: the server's default, ${lm.data.defaultModel}.`
        : 'No OpenAI-compatible server is configured (LLM_API_KEY): the built-in offline planner works missions and this name is not used until one is.'}</p>
    <fieldset><legend>Limits</legend><div class="row">
      <label>Model turns per mission <input type="number" name="maxSteps" min="1" max="50" required defaultValue=${String(agent?.limits.maxSteps ?? 10)} /></label>
      <label>Actions per mission <input type="number" name="maxActions" min="1" max="200" required defaultValue=${String(agent?.limits.maxActionsPerMission ?? 20)} /></label>
      <label>Missions per hour <input type="number" name="maxPerHour" min="1" max="1000" required defaultValue=${String(agent?.limits.maxMissionsPerHour ?? 30)} /></label>
    </div></fieldset>
    <${ErrorMessage} error=${error} />
    <div class="actions">
      <button type="submit" disabled=${busy}>${agent ? 'Save the agent' : 'Create the agent'}</button>
      <button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}

/** @param {{org: string, ws: string, agent: string}} props */
export function AgentPage({ org, ws, agent: agentId }) {
  const params = { orgSlug: org, wsSlug: ws, agentId };
  const agent = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}', params, undefined, s), [org, ws, agentId]);
  const tools = useTools(org, ws);
  const lm = useLanguageModel(org, ws);
  const [toggle, toggling, toggleError] = useAction();
  const missions = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}/missions', params, { limit: 20 }, s), [org, ws, agentId]);
  const [editing, setEditing] = useState(false);
  const admin = isAdmin(org, ws);
  const a = agent.data;
  if (!a) return html`<p><a href=${`/w/${org}/${ws}/agents`}>Agents</a></p>${agent.error ? html`<${ErrorMessage} error=${agent.error} />` : html`<${Loading} />`}`;
  const described = new Map((tools.data || []).map((t) => [t.name, firstSentence(t.description)]));
  const setEnabled = (/** @type {boolean} */ enabled) => toggle(async () => {
    agent.set(await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}', params, { enabled }));
    announce(enabled ? `${a.name} is on` : `${a.name} is off: it starts no new mission`);
  });
  return html`<p><a href=${`/w/${org}/${ws}/agents`}>Agents</a></p>
    <h1>${a.name}${!a.enabled && html` <span class="agent-off">Off</span>`}</h1>
    <${ErrorMessage} error=${agent.error} />
    <div class="agent-switch">
      <p>${a.enabled ? 'On: people and pipelines can start its missions.' : 'Off: no new mission starts; its missions so far stay.'}</p>
      ${admin && html`<button type="button" role="switch" aria-checked=${a.enabled ? 'true' : 'false'} disabled=${toggling}
        onClick=${() => setEnabled(!a.enabled)}>${a.enabled ? 'Turn off' : 'Turn on'}</button>`}
      <${ErrorMessage} error=${toggleError} />
    </div>
    ${editing
      ? html`<section class="panel" aria-labelledby="agent-edit-title"><h2 id="agent-edit-title">Edit the agent</h2>
          <${AgentForm} org=${org} ws=${ws} agent=${a} onCancel=${() => setEditing(false)}
            onSaved=${(/** @type {Agent} */ x) => { agent.set(x); setEditing(false); announce('Agent saved'); }} /></section>`
      : html`<dl class="agent-facts">
          <dt>Short name</dt><dd>${a.slug}</dd>
          ${a.description && html`<dt>Description</dt><dd>${a.description}</dd>`}
          <dt>How freely it acts</dt><dd><strong>${modeName(a.autonomyMode)}</strong>: ${modes.find((m) => m[0] === a.autonomyMode)?.[2]}</dd>
          <dt>Tools</dt><dd>${a.tools.length === 0 ? 'None: it can do nothing.' : html`<ul>${a.tools.map((t) => html`<li><strong>${humanize(t)}</strong>${described.get(t) ? ': ' + described.get(t) : ''}</li>`)}</ul>`}</dd>
          <dt>Who works its missions</dt><dd>${a.mcpOnly ? 'An external AI client, through MCP' : "The server's own model"}</dd>
          <dt>Model</dt><dd data-model>${modelInWords(a, lm.data)}</dd>
          <dt>Limits</dt><dd>${a.limits.maxSteps} model turns and ${a.limits.maxActionsPerMission} actions per mission, ${a.limits.maxMissionsPerHour} missions per hour</dd>
          <dt>Created</dt><dd><${When} iso=${a.createdAt} /></dd>
        </dl>
        ${admin && html`<p class="actions"><button type="button" class="secondary" onClick=${() => setEditing(true)}>Edit</button>
          <${ConfirmButton} label="Delete the agent" title=${`Delete ${a.name}?`} typed=${a.slug} confirmLabel="Delete"
            detail=${html`<p>Its missions are deleted with it. The cards and comments it wrote stay, under its name.</p>`}
            onConfirm=${async () => { await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}', params); announce(`Agent ${a.name} deleted`); navigate(`/w/${org}/${ws}/agents`); }} /></p>`}`}
    <${AgentSkills} org=${org} ws=${ws} agent=${a} admin=${admin} />
    ${a.enabled ? html`<${StartMission} org=${org} ws=${ws} agent=${a} />`
      : html`<section class="panel" aria-labelledby="start-title"><h2 id="start-title">Start a mission</h2>
          <p class="muted" data-empty="agent-off">${a.name} is off: ${admin ? 'turn it on above' : 'a workspace admin can turn it on'} to start a mission.</p></section>`}
    <section aria-labelledby="agent-missions-title"><h2 id="agent-missions-title">Its latest missions</h2>
      <p><a href=${`/w/${org}/${ws}/missions?agent=${a.id}`}>All its missions, with filters</a></p>
      <${MissionTable} org=${org} ws=${ws} list=${missions.data} loading=${missions.loading} error=${missions.error}
        agents=${[a]} onChanged=${missions.reload} empty="No mission yet: start one above." />
    </section>`;
}

/**
 * An agent's skills (their instructions are added to its missions' system prompt): the ones it has, taken
 * away by admins; the workspace's others, given to it; a new one created and given at once.
 * @param {{org: string, ws: string, agent: Agent, admin: boolean}} props
 */
function AgentSkills({ org, ws, agent, admin }) {
  const params = { orgSlug: org, wsSlug: ws, agentId: agent.id };
  const mine = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}/skills', params, undefined, s), [org, ws, agent.id]);
  const all = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/skills', { orgSlug: org, wsSlug: ws }, undefined, s), [org, ws]);
  const [run, busy, error] = useAction();
  const [creating, setCreating] = useState(false);
  const has = new Set((mine.data || []).map((x) => x.id));
  const others = (all.data || []).filter((x) => !has.has(x.id));
  const assign = (/** @type {Skill} */ sk) => run(async () => {
    await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}/skills/{skillId}', { ...params, skillId: sk.id });
    mine.reload(); all.reload(); announce(`${agent.name} has the skill ${sk.name}`);
  });
  const unassign = (/** @type {Skill} */ sk) => run(async () => {
    await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}/skills/{skillId}', { ...params, skillId: sk.id });
    mine.reload(); announce(`${sk.name} taken from ${agent.name}`);
  });
  const create = (/** @type {Event} */ e) => {
    const v = formValues(e);
    run(async () => {
      const sk = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/skills', { orgSlug: org, wsSlug: ws },
        { name: v.name.trim(), description: v.description.trim(), instructions: v.instructions.trim() });
      await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}/skills/{skillId}', { ...params, skillId: sk.id });
      setCreating(false); mine.reload(); all.reload(); announce(`Skill ${sk.name} created and given to ${agent.name}`);
    });
  };
  return html`<section class="agent-skills" aria-labelledby="agent-skills-title"><h2 id="agent-skills-title">Skills</h2>
    <p class="muted">A skill's instructions are added to what the agent is told at the start of each mission.</p>
    <${ErrorMessage} error=${mine.error || all.error || error} />
    ${!mine.data ? html`<${Loading} />` : mine.data.length === 0
      ? html`<p class="muted" data-empty="agent-skills">${agent.name} has no skill yet.${admin ? ' Give it one of the workspace\'s below, or create one.' : ''}</p>`
      : html`<ul class="skills">${mine.data.map((sk) => html`<li key=${sk.id} data-skill-id=${sk.id}><strong>${sk.name}</strong>${sk.description && html` · ${sk.description}`}
          ${admin && html` <button type="button" class="secondary" disabled=${busy} aria-label=${`Take away ${sk.name}`} onClick=${() => unassign(sk)}>Take away</button>`}</li>`)}</ul>`}
    ${admin && all.data && html`${others.length > 0 ? html`<form class="row" onSubmit=${(/** @type {Event} */ e) => {
        const id = formValues(e).skill; const sk = others.find((x) => x.id === id); if (sk) assign(sk);
      }}><label>Skill to give <select name="skill" required>${others.map((sk) => html`<option value=${sk.id}>${sk.name}</option>`)}</select></label>
        <button type="submit" disabled=${busy}>Give it</button></form>`
      : html`<p class="muted">${all.data.length === 0 ? 'The workspace has no skill yet: create the first one.' : 'It has every skill of the workspace.'}</p>`}
      ${creating ? html`<form class="agent-form" onSubmit=${create} aria-labelledby="skill-new-title"><h3 id="skill-new-title">New skill</h3>
          <label for="skill-new-name">Name</label><input id="skill-new-name" name="name" required maxlength="100" />
          <label for="skill-new-description">Description</label><input id="skill-new-description" name="description" maxlength="2000" />
          <label for="skill-new-instructions">Instructions <span class="hint">(what the agent is told)</span></label>
          <textarea id="skill-new-instructions" name="instructions" rows="4" maxlength="20000"></textarea>
          <div class="actions"><button type="submit" disabled=${busy}>Create and give it</button>
            <button type="button" class="secondary" onClick=${() => setCreating(false)}>Cancel</button></div></form>`
        : html`<p><button type="button" class="secondary" onClick=${() => setCreating(true)}>New skill</button></p>`}`}
  </section>`;
}

/** Starts a mission of the agent on a card chosen by project. @param {{org: string, ws: string, agent: Agent}} props */
function StartMission({ org, ws, agent }) {
  const params = { orgSlug: org, wsSlug: ws };
  const projects = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects', params, undefined, s), [org, ws]);
  const [project, setProject] = useState('');
  const pid = project || projects.data?.[0]?.id || '';
  const cards = useLoad((s) => pid ? api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards', { ...params, projectId: pid }, { archived: 'false' }, s) : Promise.resolve([]), [org, ws, pid]);
  const [run, busy, error] = useAction();
  const start = (/** @type {Event} */ e) => {
    const v = formValues(e);
    run(async () => {
      const m = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/agents/{agentId}/missions', { ...params, agentId: agent.id }, { cardId: v.card, prompt: v.prompt.trim() });
      navigate(`/w/${org}/${ws}/missions/${m.id}`);
    });
  };
  return html`<section class="panel" aria-labelledby="start-title"><h2 id="start-title">Start a mission</h2>
    <${ErrorMessage} error=${projects.error || cards.error} />
    ${projects.data?.length === 0 ? html`<p class="muted">A mission works on a card: <a href=${`/w/${org}/${ws}`}>create a project</a> and a card first.</p>` : html`<form onSubmit=${start}>
      <div class="row">
        <label>Project <select name="project" value=${pid} onChange=${(/** @type {any} */ e) => setProject(e.currentTarget.value)}>
          ${projects.data?.map((p) => html`<option value=${p.id}>${p.name}</option>`)}</select></label>
        <label>Card <select name="card" id="start-card" required>
          ${cards.data?.map((c) => html`<option value=${c.id}>${c.title}</option>`)}</select></label>
      </div>
      ${cards.data?.length === 0 && !cards.loading && html`<p class="muted">This project has no card: <a href=${`/w/${org}/${ws}/p/${pid}`}>add one on its board</a>.</p>`}
      <label for="start-prompt">What should ${agent.name} do?</label>
      <textarea id="start-prompt" name="prompt" rows="3" required maxlength="4000"></textarea>
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy || !cards.data?.length}>Start the mission</button>
    </form>`}
  </section>`;
}

/**
 * The workspace's missions, filtered by status, agent and card (the filters are in the address, so a
 * link or a reload keeps them).
 * @param {{org: string, ws: string, status: string, agent: string, card: string}} props
 */
export function Missions({ org, ws, status, agent, card }) {
  const params = { orgSlug: org, wsSlug: ws };
  const agents = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/agents', params, undefined, s), [org, ws]);
  const st = /** @type {any} */ (statuses.includes(status) ? status : undefined);
  const list = useLoad((s) => api.get(missionsPath, params, { status: st, agentId: agent || undefined, cardId: card || undefined, limit: 100 }, s), [org, ws, status, agent, card]);
  const filter = (/** @type {Record<string,string>} */ change) => {
    const q = new URLSearchParams({ status, agent, card, ...change });
    for (const [k, v] of [...q]) if (!v) q.delete(k);
    const s = q.toString();
    navigate(`/w/${org}/${ws}/missions${s ? '?' + s : ''}`);
  };
  const any = status || agent || card;
  return html`<div class="agents-head"><h1>Missions</h1><a href=${`/w/${org}/${ws}/agents`}>Agents</a></div>
    <form class="filters mission-filters" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <label>Status <select id="filter-status" value=${status} onChange=${(/** @type {any} */ e) => filter({ status: e.currentTarget.value })}>
        <option value="">Any status</option>${statuses.map((s) => html`<option value=${s}>${humanize(s)}</option>`)}</select></label>
      <label>Agent <select id="filter-agent" value=${agent} onChange=${(/** @type {any} */ e) => filter({ agent: e.currentTarget.value })}>
        <option value="">Any agent</option>${agents.data?.map((a) => html`<option value=${a.id}>${a.name}</option>`)}</select></label>
      ${card && html`<p>On one card only. <button type="button" class="link" onClick=${() => filter({ card: '' })}>Show every card</button></p>`}
      ${any && html`<button type="button" class="secondary" onClick=${() => navigate(`/w/${org}/${ws}/missions`)}>Clear the filters</button>`}
    </form>
    <${ErrorMessage} error=${agents.error} />
    <${MissionTable} org=${org} ws=${ws} list=${list.data} loading=${list.loading} error=${list.error} agents=${agents.data || []}
      onChanged=${list.reload} onCard=${(/** @type {string} */ id) => filter({ card: id })}
      empty=${any ? 'No mission matches these filters.' : html`No mission yet: start one from an <a href=${`/w/${org}/${ws}/agents`}>agent's page</a> or a card.`} />
    ${list.data?.length === 100 && html`<p class="muted">The 100 newest are shown: narrow them with the filters.</p>`}`;
}

/**
 * Missions as a table: objective (linked to its live page), agent, card, status in words, when; a
 * mission not finished can be stopped.
 * @param {{org: string, ws: string, list: MissionT[]|undefined, loading: boolean, error: unknown, agents: Agent[],
 *   onChanged: () => void, onCard?: (id: string) => void, empty: any}} props
 */
function MissionTable({ org, ws, list, loading, error, agents, onChanged, onCard, empty }) {
  const names = new Map(agents.map((a) => [a.id, a.name]));
  const titles = useCardTitles(org, ws, list);
  if (error) return html`<${ErrorMessage} error=${error} />`;
  if (!list) return loading ? html`<${Loading} />` : null;
  if (list.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table-scroll"><table class="missions-table">
    <thead><tr><th scope="col">Mission</th><th scope="col">Agent</th><th scope="col">Card</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${list.map((m) => html`<tr key=${m.id} data-mission-id=${m.id} data-status=${m.status}>
      <td><a href=${`/w/${org}/${ws}/missions/${m.id}`}>${m.objective}</a></td>
      <td>${names.get(m.agentId) ? html`<a href=${`/w/${org}/${ws}/agents/${m.agentId}`}>${names.get(m.agentId)}</a>` : html`<span class="muted">an agent</span>`}</td>
      <td>${m.cardId && m.projectId ? html`<a href=${`/w/${org}/${ws}/p/${m.projectId}?card=${m.cardId}`}>${titles[m.cardId] || 'the card'}</a>
        ${onCard && html` <button type="button" class="link" onClick=${() => onCard(/** @type {string} */ (m.cardId))}
          aria-label=${`Only this card: ${titles[m.cardId] || 'its missions'}`}>Only this card</button>`}` : html`<span class="muted">none</span>`}</td>
      <td><span class=${'status ' + m.status}>${humanize(m.status)}</span>${m.error && m.status === 'failed' ? html` <span class="muted">${m.error}</span>` : ''}</td>
      <td><${When} iso=${m.createdAt} /></td>
      <td>${!finished.includes(m.status) && html`<${ConfirmButton} label="Stop" className="secondary" title="Stop this mission?"
        confirmLabel="Stop the mission" detail=${html`<p>${m.objective}</p><p>The agent stops within a second; what it already did stays, and its pending proposals are rejected.</p>`}
        onConfirm=${async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/stop', { orgSlug: org, wsSlug: ws, missionId: m.id }); announce('Mission stopped'); onChanged(); }} />`}</td>
    </tr>`)}</tbody>
  </table></div>`;
}

/**
 * The titles of the cards the missions work on, read once per card.
 * @param {string} org @param {string} ws @param {MissionT[]|undefined} list
 * @returns {Record<string, string>}
 */
function useCardTitles(org, ws, list) {
  const keys = useMemo(() => [...new Set((list || []).filter((m) => m.cardId && m.projectId).map((m) => m.projectId + '/' + m.cardId))].sort().join(','), [list]);
  const titles = useLoad(async (s) => {
    /** @type {Record<string, string>} */
    const out = {};
    await Promise.all(keys.split(',').filter(Boolean).map(async (k) => {
      const [projectId, cardId] = k.split('/');
      try {
        const c = await api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards/{cardId}', { orgSlug: org, wsSlug: ws, projectId, cardId }, undefined, s);
        out[cardId] = c.title;
      } catch { /* a card deleted or out of reach: shown as "the card" */ }
    }));
    return out;
  }, [org, ws, keys]);
  return titles.data || {};
}
