// @ts-check
// The project's view switcher (Board | List | Calendar), and the routes of the tracker's views (a
// project's list and calendar, my work), whose modules load when their screen first opens.
import { html, useState, useEffect, ErrorMessage, Loading } from './ui.js';

/**
 * Links to a project's views; the current one is marked.
 * @param {{org: string, ws: string, project: string, current: 'board'|'list'|'calendar'|'roadmap'}} props
 */
export function ViewSwitcher({ org, ws, project, current }) {
  const base = `/w/${org}/${ws}/p/${project}`;
  /** @type {[string, string, string][]} */
  const views = [['board', 'Board', base], ['list', 'List', base + '/list'], ['calendar', 'Calendar', base + '/calendar'],
    ['roadmap', 'Roadmap', base + '/roadmap']];
  return html`<nav class="view-switcher" aria-label="Project views">
    ${views.map(([k, label, href]) => html`<a href=${href} aria-current=${k === current ? 'page' : undefined}>${label}</a>`)}
  </nav>`;
}

/** @type {Map<string, Promise<any>>} */
const modules = new Map();
/** @type {Record<string, () => Promise<any>>} */
const loaders = { views: () => import('./views.js'), calendar: () => import('./calendar.js'), timeline: () => import('./timeline.js') };

/**
 * A screen from a module loaded on first use: mod names the module, name its component.
 * @param {{mod: string, name: string, props: Record<string, any>}} p
 */
function Lazy({ mod, name, props }) {
  const [Comp, setComp] = useState(/** @type {any} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    if (!modules.has(mod)) modules.set(mod, loaders[mod]().catch((e) => { modules.delete(mod); throw e; }));
    let live = true;
    modules.get(mod)?.then((m) => { if (live) setComp(() => m[name]); }, (e) => { if (live) setError(e); });
    return () => { live = false; };
  }, [mod, name]);
  if (error) return html`<${ErrorMessage} error=${error} /><p><button onClick=${() => location.reload()}>Reload the page</button></p>`;
  if (!Comp) return html`<${Loading} />`;
  return html`<${Comp} ...${props} />`;
}

/** @type {[string, (p: Record<string,string>, q: URLSearchParams) => any][]} */
export const viewRoutes = [
  ['/w/:org/:ws/p/:project/list', (p, q) => html`<${Lazy} mod="views" name="ProjectList" props=${{ ...p, query: q }} />`],
  ['/w/:org/:ws/p/:project/calendar', (p, q) => html`<${Lazy} mod="calendar" name="Calendar" props=${{ ...p, query: q }} />`],
  ['/w/:org/:ws/my-work', (p) => html`<${Lazy} mod="views" name="MyWork" props=${p} />`],
  ['/w/:org/:ws/p/:project/roadmap', (p) => html`<${Lazy} mod="timeline" name="ProjectRoadmap" props=${p} />`],
  ['/w/:org/:ws/portfolio', (p) => html`<${Lazy} mod="timeline" name="Portfolio" props=${p} />`],
];
