// @ts-check
// A workspace's projects, and creating one (empty or from a template).
import { html, useState, useLoad, useAction, ErrorMessage, Loading, formValues, formatDate, announce } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { ImportProject } from './projectsettings.js';

/** @param {{org: string, ws: string}} props */
export function Projects({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const projects = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects', params, undefined, s), [org, ws]);
  const templates = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/templates', params, undefined, s), [org, ws]);
  const [run, busy, error] = useAction();
  const create = (/** @type {Event} */ e) => {
    const v = formValues(e);
    run(async () => {
      const p = await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects', params, {
        name: v.name.trim(), description: v.description?.trim() || undefined, templateId: v.template || undefined,
      });
      navigate(`/w/${org}/${ws}/p/${p.id}`);
    });
  };
  return html`<h1>Projects</h1>
    <p class="actions"><a class="button" href=${`/w/${org}/${ws}/drafts/new`}>New project with AI</a>
      <a class="button secondary" href=${`/w/${org}/${ws}/drafts`}>Project drafts</a>
      <a class="button secondary" href=${`/w/${org}/${ws}/imports`}>Import from another tool</a></p>
    <${ErrorMessage} error=${projects.error} />
    ${projects.loading && !projects.data ? html`<${Loading} />` : projects.data?.length === 0
      ? html`<p class="muted">No project yet: create the first one below.</p>`
      : html`<ul class="cards-grid">
          ${projects.data?.map((p) => html`<li class="project"><a href=${`/w/${org}/${ws}/p/${p.id}`}><strong>${p.name}</strong></a>
            ${p.description && html`<p class="muted">${p.description}</p>`}
            ${p.deadline && html`<p class="muted">Deadline ${formatDate(p.deadline)}</p>`}</li>`)}
        </ul>`}
    <${ArchivedProjects} org=${org} ws=${ws} onRestored=${projects.reload} />
    <section class="panel" aria-labelledby="new-project">
      <h2 id="new-project">New project</h2>
      <form onSubmit=${create} class="inline-form">
        <label for="project-name">Name</label>
        <input id="project-name" name="name" required maxlength="200" />
        <label for="project-description">Description</label>
        <input id="project-description" name="description" />
        <label for="project-template">Template</label>
        <select id="project-template" name="template">
          ${!templates.data && html`<option value="">Basic kanban</option>`}
          ${templates.data?.map((t) => html`<option value=${t.id}>${t.name}: ${t.description}</option>`)}
        </select>
        <${ErrorMessage} error=${error || templates.error} />
        <button type="submit" disabled=${busy}>Create project</button>
      </form>
    </section>
    <${ImportProject} org=${org} ws=${ws} />`;
}

/**
 * The workspace's archived projects, shown on asking, each openable (read-only) and restorable.
 * @param {{org: string, ws: string, onRestored: () => void}} props
 */
function ArchivedProjects({ org, ws, onRestored }) {
  const params = { orgSlug: org, wsSlug: ws };
  const [open, setOpen] = useState(false);
  const list = useLoad((s) => (open ? api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/projects', params, { archived: 'true' }, s)
    : Promise.resolve(null)), [org, ws, open]);
  const [run, busy, error] = useAction();
  return html`<section class="archived-projects" aria-labelledby="archived-projects">
    <h2 id="archived-projects">Archived</h2>
    <button type="button" class="secondary" aria-expanded=${open} onClick=${() => setOpen(!open)}>
      ${open ? 'Hide archived projects' : 'Show archived projects'}</button>
    ${open && html`<${ErrorMessage} error=${list.error || error} />
      ${list.loading && !list.data ? html`<${Loading} />` : list.data?.length === 0
        ? html`<p class="muted">No archived project. A project is archived from its settings.</p>`
        : html`<ul class="archived-list">${list.data?.map((p) => html`<li>
            <a href=${`/w/${org}/${ws}/p/${p.id}`}>${p.name}</a>
            <span class="muted"> archived ${formatDate(p.archivedAt)}</span>
            <button type="button" class="secondary" disabled=${busy} aria-label=${`Restore ${p.name}`} onClick=${() => run(async () => {
              await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/unarchive', { ...params, projectId: p.id });
              announce(`${p.name} restored`);
              list.reload();
              onRestored();
            })}>Restore</button></li>`)}</ul>`}`}
  </section>`;
}
