// @ts-check
// A project's roadmap (its scopes and the cards that have a start or due date, on one time line) and the
// workspace's portfolio (every project's deadline, cards by column and priority, overdue cards, checklist
// progress). Loaded with import() when one of their screens first opens.
import { html, useLoad, ErrorMessage, Loading, formatDate, humanize } from './ui.js';
import * as api from './api.js';
import { ViewSwitcher } from './switcher.js';

/** @typedef {api.Schemas['RoadmapOut']} RoadmapT */
/** @typedef {api.Schemas['RoadmapCardOut']} RoadmapCard */

const DAY = 86400000;

/**
 * Where a span sits on the roadmap's line, as left and width in percent of [start, end] (a day at least,
 * so a one-day card shows).
 * @param {number} start @param {number} end @param {string|null|undefined} from @param {string|null|undefined} to
 */
function span(start, end, from, to) {
  const a = Date.parse(from || to || ''), b = Date.parse(to || from || '');
  if (isNaN(a) || isNaN(b)) return null;
  const total = Math.max(end - start, DAY);
  const left = Math.max(0, Math.min(100, ((a - start) / total) * 100));
  const width = Math.max(1, Math.min(100 - left, ((Math.max(b, a + DAY) - a) / total) * 100));
  return { left: left.toFixed(2) + '%', width: width.toFixed(2) + '%' };
}

/** A date range in words. @param {string|null|undefined} from @param {string|null|undefined} to */
function range(from, to) {
  if (from && to) return `${formatDate(from)} – ${formatDate(to)}`;
  if (from) return `from ${formatDate(from)}`;
  if (to) return `until ${formatDate(to)}`;
  return 'no dates';
}

/** @param {{org: string, ws: string, project: string}} props */
export function ProjectRoadmap({ org, ws, project }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  const p = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}', params, undefined, s), [org, ws, project]);
  const r = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/roadmap', params, undefined, s), [org, ws, project]);
  const x = r.data;
  const board = `/w/${org}/${ws}/p/${project}`;
  const empty = x && x.scopes.length === 0 && x.unscoped.length === 0;
  const start = Date.parse(x?.start || ''), end = Date.parse(x?.end || '');
  /** @param {{c: RoadmapCard}} props */
  const Card = ({ c }) => {
    const bar = span(start, end, c.startDate, c.dueDate);
    return html`<li class="tl-card" data-card-id=${c.id}>
      <a href=${`${board}?card=${c.id}`}>${c.title}</a>
      <span class="muted"> · ${range(c.startDate, c.dueDate)} · ${humanize(c.priority)} priority</span>
      ${bar && html`<div class="tl-line" aria-hidden="true"><span class=${'tl-bar ' + c.priority} style=${bar}></span></div>`}
    </li>`;
  };
  return html`<div class="agents-head"><h1>${p.data ? p.data.name : 'Project'}: roadmap</h1>
      <${ViewSwitcher} org=${org} ws=${ws} project=${project} current="roadmap" /></div>
    <${ErrorMessage} error=${p.error || r.error} />
    ${!x ? !r.error && html`<${Loading} />` : empty
      ? html`<p class="muted" data-empty="roadmap">Nothing on the roadmap yet. It shows the project's scopes and the cards that have a start or due date: <a href=${board}>give cards dates on the board</a>, or add scopes with dates in <a href=${board + '/settings'}>the project's settings</a>.</p>`
      : html`<p>${range(x.start, x.end)}</p>
        <ol class="timeline">
          ${x.scopes.map((sc) => {
            const bar = span(start, end, sc.startDate, sc.endDate);
            return html`<li class="tl-scope" key=${sc.id} data-scope-id=${sc.id}>
              <h2>${sc.name} <span class="muted">${range(sc.startDate, sc.endDate)}</span></h2>
              ${bar && html`<div class="tl-line" aria-hidden="true"><span class="tl-bar scope" style=${bar}></span></div>`}
              ${sc.cards.length === 0 ? html`<p class="muted">No dated card in this scope.</p>` : html`<ul class="tl-cards">${sc.cards.map((c) => html`<${Card} key=${c.id} c=${c} />`)}</ul>`}
            </li>`;
          })}
          ${x.unscoped.length > 0 && html`<li class="tl-scope" data-scope-id="">
            <h2>Outside any scope</h2>
            <ul class="tl-cards">${x.unscoped.map((c) => html`<${Card} key=${c.id} c=${c} />`)}</ul></li>`}
        </ol>`}`;
}

/** Days left in words. @param {number|null|undefined} n */
function daysLeft(n) {
  if (n == null) return '';
  if (n === 0) return 'due today';
  return n > 0 ? `${n} ${n === 1 ? 'day' : 'days'} left` : `${-n} ${n === -1 ? 'day' : 'days'} late`;
}

/** @param {{org: string, ws: string}} props */
export function Portfolio({ org, ws }) {
  const list = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/portfolio', { orgSlug: org, wsSlug: ws }, undefined, s), [org, ws]);
  return html`<h1>Portfolio</h1>
    <p class="muted">Every project of the workspace at a glance: its deadline, its cards by column and priority, the overdue ones and the checklists' progress. Archived cards are not counted.</p>
    <${ErrorMessage} error=${list.error} />
    ${!list.data ? !list.error && html`<${Loading} />` : list.data.length === 0
      ? html`<p class="muted" data-empty="portfolio">No project yet: <a href=${`/w/${org}/${ws}`}>create one</a>, and it shows here.</p>`
      : html`<div class="table-wrap"><table class="settings-table portfolio-table">
          <caption class="visually-hidden">Projects of the workspace</caption>
          <thead><tr><th scope="col">Project</th><th scope="col">Deadline</th><th scope="col">Cards</th><th scope="col">By column</th>
            <th scope="col">By priority</th><th scope="col">Overdue</th><th scope="col">Checklists</th></tr></thead>
          <tbody>${list.data.map((p) => html`<tr key=${p.projectId} data-project-id=${p.projectId}>
            <th scope="row"><a href=${`/w/${org}/${ws}/p/${p.projectId}`}>${p.name}</a>
              <br /><a class="muted" href=${`/w/${org}/${ws}/p/${p.projectId}/roadmap`} aria-label=${`${p.name}: roadmap`}>roadmap</a></th>
            <td>${p.deadline ? html`${formatDate(p.deadline)}<br /><span class=${(p.daysLeft ?? 0) < 0 ? 'overdue' : 'muted'}>${daysLeft(p.daysLeft)}</span>` : html`<span class="muted">none</span>`}</td>
            <td data-cards>${p.cardCount}</td>
            <td>${p.cardsByColumn.length === 0 ? html`<span class="muted">no column</span>` : p.cardsByColumn.map((c, i) => html`${i > 0 && ' · '}${c.name} ${c.count}`)}</td>
            <td>High ${p.cardsByPriority.high} · Medium ${p.cardsByPriority.medium} · Low ${p.cardsByPriority.low}</td>
            <td data-overdue class=${p.overdue > 0 ? 'overdue' : ''}>${p.overdue}</td>
            <td>${p.checklist.total === 0 ? html`<span class="muted">no item</span>` : html`<progress max="100" value=${p.checklist.percent} aria-label=${`${p.name}: ${p.checklist.percent}% of checklist items done`}></progress>
              ${p.checklist.done}/${p.checklist.total}`}</td>
          </tr>`)}</tbody></table></div>`}`;
}
