// @ts-check
// Imports of other tools' exports: choose the source, upload the file with progress, watch the import's
// report come in over its event stream; the workspace's earlier imports below.
import { html, useState, useEffect, useLoad, ErrorMessage, Loading, When, humanize, count, announce } from './ui.js';
import * as api from './api.js';
import { follow } from './live.js';

/** @typedef {import('../api').components['schemas']['ImportOut']} Import */

// The sources the importer reads, with where their export is found and its size limit.
const sources = [
  ['trello', 'Trello', 'the board’s JSON export (Menu → Print, export and share → Export as JSON), at most 50 MB'],
  ['jira', 'Jira', 'the CSV export of a filter (all fields), at most 20 MB'],
  ['vikunja', 'Vikunja', 'the export archive (Settings → Export your Vikunja data), the zip as downloaded, at most 50 MB'],
  ['plane', 'Plane', 'the CSV export of work items (Settings → Exports → CSV), the zip or a CSV file from it, at most 20 MB'],
  ['pilot', 'Pilot', 'a project export (JSON), at most 20 MB'],
];

/** @param {{org: string, ws: string}} props */
export function Imports({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const list = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/imports', params, undefined, s), [org, ws]);
  const [source, setSource] = useState('trello');
  const [sent, setSent] = useState(/** @type {number|null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [current, setCurrent] = useState(/** @type {string} */ (''));

  /** @param {Event} e */
  const submit = async (e) => {
    e.preventDefault();
    const form = /** @type {HTMLFormElement} */ (e.currentTarget);
    const input = /** @type {HTMLInputElement} */ (form.elements.namedItem('file'));
    if (!input.files?.length) { setError(new Error('Choose the export file first.')); return; }
    const fd = new FormData();
    fd.append('source', source);
    fd.append('file', input.files[0]);
    setError(null);
    setSent(0);
    try {
      const im = await api.upload('/orgs/{orgSlug}/workspaces/{wsSlug}/imports', params, fd,
        (n, total) => setSent(total ? Math.round((n / total) * 100) : 0));
      setCurrent(im.id);
      announce('Upload done: the import is queued');
      form.reset();
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setSent(null);
    }
  };

  const hint = sources.find(([v]) => v === source)?.[2];
  return html`<section class="imports">
    <h1>Import from another tool</h1>
    <p>Bring your projects from Trello, Jira, Vikunja, Plane or another Pilot. Each project of the export becomes
      a project here, whole or not at all; the report lists what was created and what was left out, with why.</p>
    <form class="stack" onSubmit=${submit}>
      <fieldset>
        <legend>Source</legend>
        ${sources.map(([v, label]) => html`<label class="inline"><input type="radio" name="source" value=${v}
          checked=${source === v} onChange=${() => setSource(v)} /> ${label}</label>`)}
      </fieldset>
      <label>Export file <input type="file" id="imports-file" name="file" required aria-describedby="import-hint" /></label>
      <p class="muted" id="import-hint">${hint}</p>
      <p><button type="submit" disabled=${sent !== null}>Import</button></p>
      ${sent !== null && html`<p><label>Uploading <progress max="100" value=${sent}>${sent}%</progress> ${sent}%</label></p>`}
      <${ErrorMessage} error=${error} />
    </form>
    ${current && html`<${ImportReport} org=${org} ws=${ws} id=${current} onDone=${() => list.reload()} />`}
    <h2>Earlier imports</h2>
    ${list.error ? html`<${ErrorMessage} error=${list.error} />` : !list.data ? html`<${Loading} />`
      : list.data.length === 0 ? html`<p>No import yet: choose a source and its export above.</p>`
      : html`<ul class="import-list">${list.data.map((im) => html`<li key=${im.id}>
          <button class="link" onClick=${() => setCurrent(im.id)}>${im.fileName || 'export'}</button>
          — ${humanize(im.source)}, ${humanize(im.status)}, <${When} iso=${im.createdAt} /></li>`)}</ul>`}
  </section>`;
}

/** An import's progress and report, kept current by its event stream.
 * @param {{org: string, ws: string, id: string, onDone: () => void}} props */
function ImportReport({ org, ws, id, onDone }) {
  const params = { orgSlug: org, wsSlug: ws, importId: id };
  const im = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/imports/{importId}', params, undefined, s), [org, ws, id]);
  const [note, setNote] = useState('');
  useEffect(() => follow(api.href('/orgs/{orgSlug}/workspaces/{wsSlug}/imports/{importId}/events', params),
    ['status', 'progress', 'done'], (type, data) => {
      setNote(data?.message || '');
      const d = data?.data || {};
      im.set((cur) => (cur ? { ...cur, status: data.status, itemsRead: d.itemsRead ?? cur.itemsRead,
        itemsCreated: d.itemsCreated ?? cur.itemsCreated, itemsSkipped: d.itemsSkipped ?? cur.itemsSkipped } : cur));
      if (type === 'done') { im.reload(); onDone(); announce(data?.message || 'Import finished'); return true; }
      return false;
    }), [org, ws, id]);
  if (im.error) return html`<${ErrorMessage} error=${im.error} />`;
  if (!im.data) return html`<${Loading} />`;
  const r = im.data;
  return html`<section class="import-report" aria-live="polite">
    <h2>Import of ${r.fileName || 'the export'} (${humanize(r.source)})</h2>
    <p class="import-status">${humanize(r.status)}${note ? ` — ${note}` : ''}</p>
    <p>${count(r.itemsRead)} items read, ${count(r.itemsCreated)} created, ${count(r.itemsSkipped)} left out.</p>
    ${r.error && html`<p class="error" role="alert">${r.error}</p>`}
    ${r.report.projects.length > 0 && html`<h3>Created</h3><ul>${r.report.projects.map((p) => html`<li key=${p.projectId}>
      <a href=${`/w/${org}/${ws}/p/${p.projectId}`}>${p.name}</a>: ${count(p.created.columns)} columns,
      ${count(p.created.cards)} cards, ${count(p.created.labels)} labels, ${count(p.created.checklistItems)} checklist items,
      ${count(p.created.comments)} comments, ${count(p.created.dueDates)} due dates, ${count(p.created.relations)} relations,
      ${count(p.created.attachments)} attachments as links, ${count(p.created.files)} attachments as files,
      ${count(p.assigned)} cards assigned
      ${p.warnings.length > 0 && html`<ul>${p.warnings.map((w) => html`<li>${w}</li>`)}</ul>`}</li>`)}</ul>`}
    ${r.report.skipped.length > 0 && html`<h3>Left out</h3><ul class="import-skipped">${r.report.skipped.map((s, i) => html`
      <li key=${i}>${s.item}: ${s.reason}</li>`)}</ul>`}
  </section>`;
}
