// @ts-check
// New projects with AI: a draft framed (name, description, team, context documents), refined by rounds of
// questions, given a phased roadmap written live on the draft's event stream, then executed into a
// project (a column per phase, a card per deliverable). The workspace's drafts, with their stage.
import { html, useState, useEffect, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, When, humanize, announce } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { follow } from './live.js';

/** @typedef {api.Schemas['DraftOut']} Draft */
/** @typedef {api.Schemas['DraftPhase']} Phase */
/** @typedef {{draftId: string, seq: number, type: string, status?: string, message?: string, data?: any, at: string}} DraftEvent */

/** What each stage asks of the person next. */
const nextStep = {
  framing: 'Framed: ask for questions, or go straight to the roadmap.',
  refining: 'Questions are being prepared.',
  refined: 'Questions to answer, or generate the roadmap.',
  generating: 'The roadmap is being written.',
  roadmap_ready: 'Roadmap ready: review it and create the project.',
  executed: 'Done: the project was created.',
  failed: 'The last step failed: try it again.',
};

/** The stages in order, as the page's progress shows them. */
const stages = [['framing', 'Framing'], ['questions', 'Questions'], ['roadmap', 'Roadmap'], ['project', 'Project']];

/** @param {string} status */
function stageOf(status) {
  if (status === 'refining' || status === 'refined') return 'questions';
  if (status === 'generating' || status === 'roadmap_ready') return 'roadmap';
  if (status === 'executed') return 'project';
  return 'framing';
}

/** @param {{org: string, ws: string}} props */
export function Drafts({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const list = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts', params, undefined, s), [org, ws]);
  const base = `/w/${org}/${ws}`;
  return html`<h1>Project drafts</h1>
    <p>A draft turns an idea into a project: describe it, answer a few questions, review the roadmap it gets, then create the project.</p>
    <p class="actions"><a class="button" href=${base + '/drafts/new'}>New project with AI</a> <a class="button secondary" href=${base}>All projects</a></p>
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : list.data?.length === 0
      ? html`<p class="muted" data-empty="drafts">No draft yet. Start one with "New project with AI": describe the project, and Pilot asks what it needs to know and proposes a roadmap.</p>`
      : list.data && html`<ul class="drafts">
        ${list.data.map((d) => html`<li class="draft-item" key=${d.id} data-draft-id=${d.id}>
          <p><a href=${`${base}/drafts/${d.id}`}><strong>${d.name}</strong></a>
            · <span class=${'status ' + d.status} data-status=${d.status}>${humanize(d.status)}</span>
            · <span class="muted">updated <${When} iso=${d.updatedAt} /></span></p>
          <p class="muted">${nextStep[/** @type {keyof typeof nextStep} */ (d.status)] || ''}
            ${d.projectId && html` <a href=${`${base}/p/${d.projectId}`}>Open the project</a>`}</p>
          <${DeleteDraft} org=${org} ws=${ws} d=${d} onDone=${list.reload} />
        </li>`)}
      </ul>`}`;
}

/** @param {{org: string, ws: string, d: Draft, onDone: () => void}} props */
function DeleteDraft({ org, ws, d, onDone }) {
  return html`<${ConfirmButton} label=${`Delete the draft ${d.name}`} title=${`Delete the draft “${d.name}”?`}
    confirmLabel="Delete the draft"
    detail=${html`<p>Its framing, answers and roadmap are deleted.${d.projectId ? ' The project it created stays.' : ''}</p>`}
    onConfirm=${async () => {
      await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}', { orgSlug: org, wsSlug: ws, draftId: d.id });
      announce(`Draft ${d.name} deleted`);
      onDone();
    }} />`;
}

/**
 * Rows of a small repeated form (team members, inline documents): each row an object of strings.
 * @param {{legend: string, hint: string, rows: Record<string,string>[], fields: [string, string, string][],
 *   onChange: (rows: Record<string,string>[]) => void, addLabel: string, id: string}} props
 */
function Rows({ legend, hint, rows, fields, onChange, addLabel, id }) {
  const set = (/** @type {number} */ i, /** @type {string} */ k, /** @type {string} */ v) => onChange(rows.map((r, j) => (j === i ? { ...r, [k]: v } : r)));
  return html`<fieldset class="rows">
    <legend>${legend}</legend>
    <p class="hint">${hint}</p>
    ${rows.map((r, i) => html`<div class="row" key=${i}>
      ${fields.map(([k, label, kind]) => html`<label for=${`${id}-${i}-${k}`}>${label}
        ${kind === 'textarea'
          ? html`<textarea id=${`${id}-${i}-${k}`} rows="4" value=${r[k] || ''} onInput=${(/** @type {any} */ e) => set(i, k, e.currentTarget.value)}></textarea>`
          : html`<input id=${`${id}-${i}-${k}`} type=${kind} value=${r[k] || ''} onInput=${(/** @type {any} */ e) => set(i, k, e.currentTarget.value)} />`}
      </label>`)}
      <button type="button" class="secondary" onClick=${() => onChange(rows.filter((_, j) => j !== i))}>Remove<span class="visually-hidden"> row ${i + 1} of ${legend.toLowerCase()}</span></button>
    </div>`)}
    <button type="button" class="secondary" onClick=${() => onChange([...rows, {}])}>${addLabel}</button>
  </fieldset>`;
}

/** @param {any[]|null|undefined} nodes @returns {{id: string, title: string}[]} */
function flatten(nodes) {
  return (nodes || []).flatMap((n) => [{ id: n.id, title: n.title }, ...flatten(n.children)]);
}

/** The framing: what the project is, who works on it, what to read. @param {{org: string, ws: string}} props */
export function NewDraft({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const docs = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/documents/all', params, undefined, s), [org, ws]);
  const [team, setTeam] = useState(/** @type {Record<string,string>[]} */ ([]));
  const [notes, setNotes] = useState(/** @type {Record<string,string>[]} */ ([]));
  const [picked, setPicked] = useState(/** @type {string[]} */ ([]));
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [run, busy, error] = useAction();
  const documents = flatten(docs.data);
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    run(async () => {
      const d = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts', params, {
        name: name.trim(),
        description: description.trim() || undefined,
        teamMembers: team.filter((m) => m.name?.trim()).map((m) => ({ name: m.name.trim(), role: m.role?.trim() || undefined, email: m.email?.trim() || undefined })),
        contextDocuments: [
          ...picked.map((id) => ({ documentId: id })),
          ...notes.filter((n) => n.title?.trim() || n.content?.trim()).map((n) => ({ title: (n.title || '').trim(), content: (n.content || '').trim() })),
        ],
      });
      // The first round of questions starts at once; the draft's page shows them as they come.
      try { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/refine', { ...params, draftId: d.id }, {}); } catch { /* the page offers it again */ }
      navigate(`/w/${org}/${ws}/drafts/${d.id}`);
    });
  };
  return html`<h1>New project with AI</h1>
    <p>Describe the project. Pilot then asks a few questions, proposes a roadmap of phases and deliverables, and creates the project from it when you agree.</p>
    <form class="draft-form" onSubmit=${submit}>
      <label for="draft-name">Project name</label>
      <input id="draft-name" required maxlength="200" value=${name} onInput=${(/** @type {any} */ e) => setName(e.currentTarget.value)} />
      <label for="draft-description">What is it about?</label>
      <p class="hint" id="draft-description-hint">Its goal, for whom, constraints. Items you list on their own lines (starting with "-") become deliverables.</p>
      <textarea id="draft-description" aria-describedby="draft-description-hint" rows="8" maxlength="10000" value=${description} onInput=${(/** @type {any} */ e) => setDescription(e.currentTarget.value)}></textarea>
      <${Rows} id="team" legend="Team" hint="Who works on it, and their role. With the e-mail of a workspace member, they join the project it creates."
        rows=${team} onChange=${setTeam} addLabel="Add a team member"
        fields=${[['name', 'Name', 'text'], ['role', 'Role', 'text'], ['email', 'E-mail (optional)', 'email']]} />
      <fieldset class="rows">
        <legend>Context documents</legend>
        <p class="hint">Documents of this workspace to read while planning (copied into the draft as they are now).</p>
        <${ErrorMessage} error=${docs.error} />
        ${docs.data && !documents.length && html`<p class="muted">This workspace has no document yet; you can paste text below instead.</p>`}
        ${documents.map((d) => html`<label class="check" key=${d.id}><input type="checkbox" checked=${picked.includes(d.id)}
          onChange=${(/** @type {any} */ e) => setPicked(e.currentTarget.checked ? [...picked, d.id] : picked.filter((x) => x !== d.id))} /> ${d.title}</label>`)}
      </fieldset>
      <${Rows} id="note" legend="Other context" hint="Text to take into account (notes, a brief), pasted here."
        rows=${notes} onChange=${setNotes} addLabel="Add a text"
        fields=${[['title', 'Title', 'text'], ['content', 'Text', 'textarea']]} />
      <${ErrorMessage} error=${error} />
      <p class="actions"><button type="submit" disabled=${busy}>${busy ? 'Preparing the first questions…' : 'Start the draft'}</button>
        <a class="button secondary" href=${`/w/${org}/${ws}/drafts`}>Cancel</a></p>
    </form>`;
}

/**
 * The roadmap as far as the model has written it: the complete name, goal, title and description strings
 * of its JSON, in order.
 * @param {string} text @returns {Phase[]}
 */
export function partialRoadmap(text) {
  /** @type {Phase[]} */
  const phases = [];
  const re = /"(name|goal|title|description)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
  for (const m of text.matchAll(re)) {
    let v;
    try { v = JSON.parse('"' + m[2] + '"'); } catch { continue; }
    const phase = phases[phases.length - 1];
    if (m[1] === 'name') phases.push({ name: v, goal: '', deliverables: [] });
    else if (!phase) continue;
    else if (m[1] === 'goal') phase.goal = v;
    else if (m[1] === 'title') phase.deliverables?.push({ title: v, description: '' });
    else {
      const last = phase.deliverables?.[phase.deliverables.length - 1];
      if (last) last.description = v;
    }
  }
  return phases;
}

/** @param {{phases: Phase[]|null|undefined, live?: boolean}} props */
function Roadmap({ phases, live }) {
  return html`<ol class="roadmap" aria-label=${live ? 'The roadmap so far' : 'Roadmap'}>
    ${(phases || []).map((p, i) => html`<li class="phase" key=${i}>
      <h3>${p.name}</h3>
      ${p.goal && html`<p class="muted">${p.goal}</p>`}
      <ul class="deliverables">${(p.deliverables || []).map((d, j) => html`<li key=${j}><strong>${d.title}</strong>${d.description && html`<p>${d.description}</p>`}</li>`)}</ul>
    </li>`)}
  </ol>`;
}

/** A draft where it stands, kept current by its event stream. @param {{org: string, ws: string, draft: string}} props */
export function DraftPage({ org, ws, draft }) {
  const params = { orgSlug: org, wsSlug: ws, draftId: draft };
  const d = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}', params, undefined, s), [org, ws, draft]);
  const [tokens, setTokens] = useState('');
  const [note, setNote] = useState('');
  const [conn, setConn] = useState(/** @type {'open'|'reconnecting'|'closed'} */ ('reconnecting'));
  useEffect(() => {
    setTokens('');
    let opened = false;
    // A working draft's stream starts at its current job's first event, so a reload shows the roadmap
    // written so far again; an idle draft's waits for its next event.
    return follow(api.href('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/events', params), ['status', 'token', 'done'],
      (type, data) => {
        const ev = /** @type {DraftEvent} */ (data);
        if (type === 'token') { setTokens((t) => t + (ev.message || '')); return false; }
        if (type === 'status') {
          if (ev.message) setNote(ev.message);
          // A person adjusted the roadmap (here or on another page): show it as it now is.
          if (ev.data?.roadmap) d.set((cur) => (cur ? { ...cur, roadmap: ev.data.roadmap } : cur));
          if (ev.message?.includes('once more') || ev.message?.includes('started again')) setTokens('');
          const st = ev.status;
          if (st) d.set((cur) => (cur ? { ...cur, status: /** @type {Draft['status']} */ (st) } : cur));
          return false;
        }
        setNote(ev.message || '');
        d.reload();
        if (ev.status === 'roadmap_ready') announce('The roadmap is ready');
        if (ev.status === 'refined') announce('New questions are ready');
        return ev.status === 'executed';
      }, (state) => {
        if (state === 'open' && opened) d.reload();
        if (state === 'open') opened = true;
        setConn(state);
      });
  }, [org, ws, draft]);
  if (d.error && !d.data) return html`<h1>Project draft</h1><${ErrorMessage} error=${d.error} /><p><a href=${`/w/${org}/${ws}/drafts`}>Back to the drafts</a></p>`;
  if (!d.data) return html`<h1>Project draft</h1><${Loading} />`;
  const x = d.data;
  const stage = stageOf(x.status);
  const working = x.status === 'refining' || x.status === 'generating';
  /** @param {Draft} next */
  const update = (next) => { d.set(next); if (next.status !== 'generating') setTokens(''); };
  return html`<p><a href=${`/w/${org}/${ws}/drafts`}>← Project drafts</a></p>
    <h1>${x.name}</h1>
    <ol class="stages" aria-label="Progress">
      ${stages.map(([k, label]) => html`<li key=${k} class=${k === stage ? 'current' : ''} aria-current=${k === stage ? 'step' : undefined}>${label}</li>`)}
    </ol>
    <p class="status-line">Stage: <span class=${'status ' + x.status} data-status=${x.status}>${humanize(x.status)}</span>
      <span class="muted"> · ${nextStep[x.status]}</span>
      ${x.status !== 'executed' && html` <span class="muted" data-conn=${conn}>${conn === 'open' ? '· live' : conn === 'reconnecting' ? '· connecting…' : ''}</span>`}</p>
    <p class="visually-hidden" role="status">${working ? note : ''}</p>
    <${ErrorMessage} error=${d.error} />
    ${x.status === 'failed' && html`<p class="error" role="alert">It failed: ${x.error || 'no reason given'}. Try again below.</p>`}
    <${Framing} x=${x} />
    ${x.status === 'refining' && html`<section class="panel" aria-labelledby="q-h"><h2 id="q-h">Questions</h2><p role="status">Preparing questions… ${note && html`<span class="muted">(${note})</span>`}</p></section>`}
    ${(x.status === 'framing' || x.status === 'refined' || x.status === 'failed') && html`<${Questions} key=${x.round + ':' + x.status} params=${params} x=${x} onChange=${update} />`}
    ${x.status === 'generating' && html`<section class="panel" aria-labelledby="r-h" aria-busy="true">
      <h2 id="r-h">Roadmap</h2>
      <p>Writing the roadmap… <span class="muted">${note}</span></p>
      <${Roadmap} phases=${partialRoadmap(tokens)} live=${true} />
      ${tokens && html`<details><summary>What the model is writing</summary><pre class="stream">${tokens}</pre></details>`}
    </section>`}
    ${x.status === 'roadmap_ready' && html`<${RoadmapReady} org=${org} ws=${ws} params=${params} x=${x} onChange=${update} />`}
    ${x.status === 'executed' && html`<section class="panel" aria-labelledby="p-h"><h2 id="p-h">Project</h2>
      <p>This draft became a project${x.executedAt && html` <${When} iso=${x.executedAt} />`}. <a href=${`/w/${org}/${ws}/p/${x.projectId}`}>Open its board</a></p>
      ${membersSkipped.get(x.id)?.length && html`<${NotAdded} names=${membersSkipped.get(x.id) || []} />`}
      ${x.roadmap && html`<details><summary>The roadmap it was made from</summary><${Roadmap} phases=${x.roadmap.phases} /></details>`}</section>`}
    <section class="danger-zone" aria-label="Delete"><${DeleteDraft} org=${org} ws=${ws} d=${x} onDone=${() => navigate(`/w/${org}/${ws}/drafts`)} /></section>`;
}

/** What the draft was framed with. @param {{x: Draft}} props */
function Framing({ x }) {
  const team = x.teamMembers || [];
  const docs = x.contextDocuments || [];
  return html`<details class="framing" open=${x.status === 'framing'}>
    <summary>Framing</summary>
    ${x.description ? html`<p class="pre">${x.description}</p>` : html`<p class="muted">No description.</p>`}
    ${team.length > 0 && html`<p><strong>Team:</strong> ${team.map((m) => m.name + (m.role ? ` (${m.role})` : '')).join(', ')}</p>`}
    ${docs.length > 0 && html`<p><strong>Context:</strong> ${docs.map((c) => c.title).join(', ')}</p>`}
    ${(x.answers || []).length > 0 && html`<h3>Answers so far</h3><dl class="answers">${(x.answers || []).map((a) => html`<dt>${a.question}</dt><dd>${a.answer}</dd>`)}</dl>`}
  </details>`;
}

/** Waits while a job runs (the answer was 202): the draft once it is idle. @param {Record<string,string>} params */
async function settled(params) {
  for (let i = 0; i < 240; i++) {
    const d = await api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}', params);
    if (d.status !== 'refining' && d.status !== 'generating') return d;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('The draft is still working. Reload the page later to see where it stands.');
}

/** The current round's questions, and the ways on. @param {{params: Record<string,string>, x: Draft, onChange: (d: Draft) => void}} props */
function Questions({ params, x, onChange }) {
  const questions = x.questions || [];
  const [answers, setAnswers] = useState(/** @type {Record<number,string>} */ ({}));
  const [run, busy, error] = useAction();
  const given = questions.map((q, i) => ({ question: q, answer: (answers[i] || '').trim() })).filter((a) => a.answer);
  const refine = () => run(async () => {
    onChange(await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/refine', params, given.length ? { answers: given } : {}));
  });
  const generate = () => run(async () => {
    if (given.length) {
      // The answers are kept first, so the roadmap takes them in.
      let r = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/refine', params, { answers: given });
      if (r.status === 'refining') { onChange(r); r = await settled(params); }
      if (r.status === 'failed') { onChange(r); return; }
    }
    onChange(await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/generate-roadmap', params));
  });
  const last = x.round >= 4;
  return html`<section class="panel" aria-labelledby="q-h">
    <h2 id="q-h">Questions</h2>
    ${x.status === 'framing' || (x.status === 'failed' && !questions.length)
      ? html`<p>Pilot can ask a few questions to understand the project better (up to 4 rounds), or write the roadmap from the framing alone.</p>`
      : questions.length === 0
        ? html`<p>${last ? 'Every round of questions is answered.' : 'No more questions.'} Generate the roadmap.</p>`
        : html`<p class="muted">Round ${x.round} of at most 4. Answer what you can; unanswered questions may come back.</p>
          <form class="questions" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); refine(); }}>
            ${questions.map((q, i) => html`<label for=${'answer-' + i}>${q}</label>
              <textarea id=${'answer-' + i} rows="2" maxlength="2000" value=${answers[i] || ''} onInput=${(/** @type {any} */ e) => setAnswers({ ...answers, [i]: e.currentTarget.value })}></textarea>`)}
            ${!last && html`<button type="submit" disabled=${busy || !given.length}>Send answers and ask more</button>`}
          </form>`}
    <${ErrorMessage} error=${error} />
    <p class="actions">
      ${(x.status === 'framing' || (x.status === 'failed' && !questions.length)) && html`<button type="button" disabled=${busy} onClick=${refine}>Ask me questions</button>`}
      <button type="button" class=${questions.length && !last ? 'secondary' : ''} disabled=${busy} onClick=${generate}>${given.length ? 'Send answers and generate the roadmap' : 'Generate the roadmap'}</button>
    </p>
  </section>`;
}

/** The team members an execution could not add to the project, by draft id, for this page's life. */
const membersSkipped = new Map();

/** Who the project was created without, and what to do. @param {{names: string[]}} props */
function NotAdded({ names }) {
  return html`<p>Not added to the project (no e-mail, or not a member of this workspace): ${names.join(', ')}. Invite them to the workspace, then add them to the project.</p>`;
}

/**
 * The roadmap to review, adjusted (phases and deliverables renamed, added, removed, moved), then the project.
 * @param {{org: string, ws: string, params: Record<string,string>, x: Draft, onChange: (d: Draft) => void}} props
 */
function RoadmapReady({ org, ws, params, x, onChange }) {
  const [run, busy, error] = useAction();
  const [skipped, setSkipped] = useState(/** @type {{names: string[], projectId: string}|null} */ (null));
  const [editing, setEditing] = useState(false);
  const phases = x.roadmap?.phases || [];
  const cards = phases.reduce((n, p) => n + (p.deliverables?.length || 0), 0);
  const execute = () => run(async () => {
    const r = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/execute', params);
    if (r.membersSkipped?.length) {
      // Kept beyond this component: the draft's stream says "executed" next, and the page then shows the
      // executed draft, which must still say who was not added.
      membersSkipped.set(x.id, r.membersSkipped);
      setSkipped({ names: r.membersSkipped, projectId: r.project.id });
      announce('The project is created');
      return;
    }
    navigate(`/w/${org}/${ws}/p/${r.project.id}`);
  });
  if (skipped) {
    return html`<section class="panel" aria-labelledby="p-h"><h2 id="p-h">Project created</h2>
      <${NotAdded} names=${skipped.names} />
      <p><a class="button" href=${`/w/${org}/${ws}/p/${skipped.projectId}`}>Open the project's board</a></p></section>`;
  }
  if (editing) {
    return html`<section class="panel" aria-labelledby="r-h"><h2 id="r-h">Adjust the roadmap</h2>
      <${RoadmapEditor} params=${params} phases=${phases} onCancel=${() => setEditing(false)}
        onSaved=${(/** @type {Draft} */ next) => { onChange(next); setEditing(false); announce('Roadmap saved'); }} /></section>`;
  }
  return html`<section class="panel" aria-labelledby="r-h">
    <h2 id="r-h">Roadmap</h2>
    <p>${phases.length} ${phases.length === 1 ? 'phase' : 'phases'}, ${cards} ${cards === 1 ? 'deliverable' : 'deliverables'}. Creating the project makes a column per phase and a card per deliverable.</p>
    <${Roadmap} phases=${phases} />
    <${ErrorMessage} error=${error} />
    <p class="actions">
      <button type="button" disabled=${busy} onClick=${execute}>Create the project</button>
      <button type="button" class="secondary" disabled=${busy} onClick=${() => setEditing(true)}>Adjust the roadmap</button>
      <button type="button" class="secondary" disabled=${busy} onClick=${() => run(async () => onChange(await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/generate-roadmap', params)))}>Generate the roadmap again</button>
    </p>
  </section>`;
}

/** Limits of an adjusted roadmap (the API's). */
const maxPhases = 20, maxDeliverables = 50;

/**
 * The roadmap as a form: each phase's name and goal, its deliverables' titles and descriptions; phases and
 * deliverables added, removed and moved up. Saved whole (`PATCH …/roadmap`); the API's refusal is shown.
 * @param {{params: Record<string,string>, phases: Phase[], onSaved: (d: Draft) => void, onCancel: () => void}} props
 */
function RoadmapEditor({ params, phases, onSaved, onCancel }) {
  const [run, busy, error] = useAction();
  const [list, setList] = useState(() => phases.map((p) => ({ name: p.name, goal: p.goal || '',
    deliverables: (p.deliverables || []).map((d) => ({ title: d.title, description: d.description || '' })) })));
  /** @param {(l: typeof list) => void} f */
  const change = (f) => setList((l) => { const next = structuredClone(l); f(next); return next; });
  /** @template T @param {T[]} a @param {number} i */
  const up = (a, i) => { if (i > 0) [a[i - 1], a[i]] = [a[i], a[i - 1]]; };
  const save = (/** @type {Event} */ e) => {
    e.preventDefault();
    run(async () => onSaved(await api.patch('/orgs/{orgSlug}/workspaces/{wsSlug}/project-drafts/{draftId}/roadmap', params,
      { phases: list.map((p) => ({ name: p.name.trim(), goal: p.goal.trim(),
        deliverables: p.deliverables.map((d) => ({ title: d.title.trim(), description: d.description.trim() })) })) })));
  };
  const input = (/** @type {(v: string) => void} */ set) => (/** @type {any} */ e) => set(e.currentTarget.value);
  return html`<form class="roadmap-editor" onSubmit=${save}>
    <p class="hint">Each phase becomes a column and each deliverable a card. Up to ${maxPhases} phases of ${maxDeliverables} deliverables.</p>
    <ol class="roadmap-edit">${list.map((p, i) => html`<li class="phase-edit" key=${i} data-phase=${i}>
      <fieldset><legend>Phase ${i + 1}</legend>
        <label for=${`ph-${i}-name`}>Name</label>
        <input id=${`ph-${i}-name`} required maxlength="100" value=${p.name} onInput=${input((v) => change((l) => { l[i].name = v; }))} />
        <label for=${`ph-${i}-goal`}>Goal</label>
        <textarea id=${`ph-${i}-goal`} rows="2" maxlength="1000" value=${p.goal} onInput=${input((v) => change((l) => { l[i].goal = v; }))}></textarea>
        <ul class="deliverables-edit">${p.deliverables.map((d, j) => html`<li key=${j} data-deliverable=${j}>
          <label for=${`ph-${i}-d-${j}-title`}>Deliverable ${j + 1}</label>
          <input id=${`ph-${i}-d-${j}-title`} required maxlength="200" value=${d.title} onInput=${input((v) => change((l) => { l[i].deliverables[j].title = v; }))} />
          <label for=${`ph-${i}-d-${j}-description`}>Its description</label>
          <textarea id=${`ph-${i}-d-${j}-description`} rows="2" maxlength="2000" value=${d.description} onInput=${input((v) => change((l) => { l[i].deliverables[j].description = v; }))}></textarea>
          <p class="actions">
            ${j > 0 && html`<button type="button" class="secondary" aria-label=${`Move up deliverable ${j + 1} of phase ${i + 1}`} onClick=${() => change((l) => up(l[i].deliverables, j))}>Move up</button>`}
            <button type="button" class="secondary" aria-label=${`Remove deliverable ${j + 1} of phase ${i + 1}`} onClick=${() => change((l) => { l[i].deliverables.splice(j, 1); })}>Remove</button></p>
        </li>`)}</ul>
        ${p.deliverables.length === 0 && html`<p class="muted">No deliverable: the phase becomes an empty column.</p>`}
        <p class="actions">
          <button type="button" class="secondary" disabled=${p.deliverables.length >= maxDeliverables} aria-label=${`Add a deliverable to phase ${i + 1}`}
            onClick=${() => change((l) => { l[i].deliverables.push({ title: '', description: '' }); })}>Add a deliverable</button>
          ${i > 0 && html`<button type="button" class="secondary" aria-label=${`Move up phase ${i + 1}`} onClick=${() => change((l) => up(l, i))}>Move up</button>`}
          <button type="button" class="secondary" disabled=${list.length <= 1} aria-label=${`Remove phase ${i + 1}`} onClick=${() => change((l) => { l.splice(i, 1); })}>Remove</button></p>
      </fieldset></li>`)}</ol>
    <p><button type="button" class="secondary" disabled=${list.length >= maxPhases} onClick=${() => change((l) => { l.push({ name: '', goal: '', deliverables: [] }); })}>Add a phase</button></p>
    <${ErrorMessage} error=${error} />
    <div class="actions">
      <button type="submit" disabled=${busy}>Save the roadmap</button>
      <button type="button" class="secondary" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}
