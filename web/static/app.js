// @ts-check
// The app's entry: reads the session, then shows the screen the path names.
import { html, render, useState, useEffect, ErrorMessage, Loading, Boundary, Lazy } from './ui.js';
import * as api from './api.js';
import { useLocation, match, navigate, onLinkClick } from './router.js';
import { session } from './session.js';
import { SignIn, SignUp, ForgotPassword, ResetPassword, VerifyEmail, AcceptInvitation } from './auth.js';
import { Shell } from './shell.js';
import { Projects } from './projects.js';
import { Board } from './board.js';
import { ProjectSettings } from './projectsettings.js';
import { Mission, Proposals } from './missions.js';
import { Inbox, Search, Documents } from './more.js';
import { Agents, AgentPage, Missions } from './agents.js';
import { Settings } from './settings.js';
import { TimeReport } from './timetrack.js';

/** The drafts' screens, loaded when one first opens. */
const drafts = () => import('./drafts.js');
/** Pipelines, plugins and skills, loaded when one of their screens first opens. */
const pipelines = () => import('./pipelines.js');
/** The pilotage cockpit's screens, loaded when one first opens. */
const cockpit = () => import('./cockpit.js');
/** Automations and webhooks, loaded when one of their screens first opens. */
const automations = () => import('./automations.js');
const webhooks = () => import('./webhooks.js');
/** Imports of other tools' exports, loaded when their screen first opens. */
const imports = () => import('./imports.js');
const audit = () => import('./audit.js');
import { Members, ProjectMembers, OrganizationSettings, WorkspaceSettings } from './team.js';
import { viewRoutes } from './switcher.js';

/** Pages anyone may open; every other page needs a session. */
const publicPages = ['/sign-in', '/sign-up', '/forgot-password', '/reset-password', '/verify-email'];

/** @type {[string, (p: Record<string,string>, q: URLSearchParams) => any][]} */
const workspaceRoutes = [
  ['/w/:org/:ws', (p) => html`<${Projects} ...${p} />`],
  ['/w/:org/:ws/p/:project', (p, q) => html`<${Board} ...${p} card=${q.get('card') || ''} />`],
  ['/w/:org/:ws/p/:project/settings', (p) => html`<${ProjectSettings} ...${p} />`],
  ['/w/:org/:ws/missions/:mission', (p) => html`<${Mission} ...${p} />`],
  ['/w/:org/:ws/proposals', (p) => html`<${Proposals} ...${p} />`],
  ['/w/:org/:ws/inbox', (p) => html`<${Inbox} ...${p} />`],
  ['/w/:org/:ws/search', (p, q) => html`<${Search} ...${p} q=${q.get('q') || ''} />`],
  ['/w/:org/:ws/docs', (p, q) => html`<${Documents} ...${p} doc=${q.get('doc') || ''} />`],
  ['/w/:org/:ws/pilotage', (p) => html`<${Lazy} load=${cockpit} name="Dashboard" props=${p} />`],
  ['/w/:org/:ws/pilotage/:section', (p, q) => html`<${Lazy} load=${cockpit} name="Section" props=${{ ...p, action: q.get('action') || '' }} />`],
  ['/w/:org/:ws/agents', (p) => html`<${Agents} ...${p} />`],
  ['/w/:org/:ws/agents/:agent', (p) => html`<${AgentPage} ...${p} />`],
  ['/w/:org/:ws/missions', (p, q) => html`<${Missions} ...${p} status=${q.get('status') || ''} agent=${q.get('agent') || ''} card=${q.get('card') || ''} />`],
  ['/w/:org/:ws/drafts', (p) => html`<${Lazy} load=${drafts} name="Drafts" props=${p} />`],
  ['/w/:org/:ws/drafts/new', (p) => html`<${Lazy} load=${drafts} name="NewDraft" props=${p} />`],
  ['/w/:org/:ws/drafts/:draft', (p) => html`<${Lazy} load=${drafts} name="DraftPage" props=${p} />`],
  ['/w/:org/:ws/pipelines', (p) => html`<${Lazy} load=${pipelines} name="Pipelines" props=${p} />`],
  ['/w/:org/:ws/pipelines/new', (p) => html`<${Lazy} load=${pipelines} name="NewPipeline" props=${p} />`],
  ['/w/:org/:ws/pipelines/:pipeline', (p) => html`<${Lazy} load=${pipelines} name="PipelinePage" props=${p} />`],
  ['/w/:org/:ws/pipelines/:pipeline/runs/:run', (p) => html`<${Lazy} load=${pipelines} name="RunPage" props=${p} />`],
  ['/w/:org/:ws/plugins', (p) => html`<${Lazy} load=${pipelines} name="Plugins" props=${p} />`],
  ['/w/:org/:ws/members', (p) => html`<${Members} ...${p} />`],
  ['/w/:org/:ws/settings/organization', (p) => html`<${OrganizationSettings} ...${p} />`],
  ['/w/:org/:ws/settings/workspace', (p) => html`<${WorkspaceSettings} ...${p} />`],
  ['/w/:org/:ws/p/:project/members', (p) => html`<${ProjectMembers} ...${p} />`],
  ['/w/:org/:ws/p/:project/automations', (p) => html`<${Lazy} load=${automations} name="Automations" props=${p} />`],
  ['/w/:org/:ws/p/:project/automations/:rule', (p) => html`<${Lazy} load=${automations} name="AutomationRule" props=${p} />`],
  ['/w/:org/:ws/webhooks', (p) => html`<${Lazy} load=${webhooks} name="Webhooks" props=${p} />`],
  ['/w/:org/:ws/webhooks/:webhook', (p) => html`<${Lazy} load=${webhooks} name="WebhookPage" props=${p} />`],
  ['/w/:org/:ws/imports', (p) => html`<${Lazy} load=${imports} name="Imports" props=${p} />`],
  ['/w/:org/:ws/time', (p, q) => html`<${TimeReport} ...${p} project=${q.get('project') || ''} />`],
  ['/w/:org/:ws/settings/audit', (p) => html`<${Lazy} load=${audit} name="AuditLog" props=${p} />`],
  ...viewRoutes,
];

function Root() {
  return html`<${Boundary}><${App} /><//>`;
}

function App() {
  const { path, query } = useLocation();
  const [ready, setReady] = useState(/** @type {true|unknown} */ (false));
  const [, setTick] = useState(0);
  useEffect(() => {
    const unsub = session.subscribe(() => setTick((n) => n + 1));
    api.whenUnauthorized(() => session.lost());
    session.load().then(() => setReady(true), (e) => setReady(e));
    return unsub;
  }, []);
  useEffect(() => { document.getElementById('main')?.focus({ preventScroll: true }); }, [path]);
  if (ready !== true) {
    return html`<main id="main" class="auth">${ready === false ? html`<${Loading} />` : html`<${ErrorMessage} error=${ready} /><p><button onClick=${() => location.reload()}>Try again</button></p>`}</main>`;
  }
  if (path === '/sign-in') return html`<${SignIn} query=${query} />`;
  if (path === '/sign-up') return html`<${SignUp} query=${query} />`;
  if (path === '/forgot-password') return html`<${ForgotPassword} />`;
  if (path === '/reset-password') return html`<${ResetPassword} query=${query} />`;
  if (path === '/verify-email') return html`<${VerifyEmail} query=${query} />`;
  let m;
  if ((m = match('/invitations/:token/accept', path))) return html`<${AcceptInvitation} token=${m.token} kind="workspace" path=${path} />`;
  if ((m = match('/organization-invitations/:token/accept', path))) return html`<${AcceptInvitation} token=${m.token} kind="organization" path=${path} />`;
  if (!session.user) {
    if (!publicPages.includes(path)) navigateLater('/sign-in' + (path !== '/' && path !== '/sign-out' ? '?next=' + encodeURIComponent(path + location.search) : ''));
    return null;
  }
  if (path === '/sign-out') {
    session.signOut().finally(() => navigate('/sign-in', { replace: true }));
    return null;
  }
  if (path === '/') {
    const first = session.places.find((o) => o.workspaces.length);
    if (first) navigateLater(`/w/${first.slug}/${first.workspaces[0].slug}`);
    else return html`<${Shell}><p>You have no workspace yet.</p><//>`;
    return null;
  }
  if (path === '/settings' || path.startsWith('/settings/')) {
    const first = session.places.find((o) => o.workspaces.length);
    const { org, ws } = lastPlace.org ? lastPlace : { org: first?.slug, ws: first?.workspaces[0].slug };
    return html`<${Shell} org=${org} ws=${ws}><${Boundary} key=${path}><${Settings} path=${path} /><//><//>`;
  }
  for (const [pattern, view] of workspaceRoutes) {
    const p = match(pattern, path);
    if (p) lastPlace = { org: p.org, ws: p.ws };
    if (p) return html`<${Shell} org=${p.org} ws=${p.ws}><${Boundary} key=${path}>${view(p, query)}<//><//>`;
  }
  return html`<${Shell}><h1>Page not found</h1><p>Nothing is at ${path}. <a href="/">Go to your workspace</a></p><//>`;
}

/** The workspace last shown, whose navigation the account settings keep. */
let lastPlace = { org: '', ws: '' };

/** @param {string} path */
function navigateLater(path) { queueMicrotask(() => navigate(path, { replace: true })); }

document.addEventListener('click', onLinkClick);
const root = document.getElementById('app');
if (root) { root.textContent = ''; render(html`<${Root} />`, root); }
