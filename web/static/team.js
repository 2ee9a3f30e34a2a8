// @ts-check
// Team administration: the organization's and the workspace's settings, their members and pending
// invitations, a project's members, creating an organization or a workspace (the switcher's dialog), the
// invitation page's details, and what a workspace the person cannot open says.
import { html, useState, useEffect, useRef, useMemo, useLoad, useAction, ErrorMessage, Loading, ConfirmButton,
  When, humanize, formValues, announce } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { session } from './session.js';
import { SignInDomains } from './orgdomains.js';

/** @typedef {api.Schemas['PendingInvitationOut']} PendingInvitation */

const ORG = '/organizations/{orgSlug}';
const ORG_MEMBERS = '/organizations/{orgSlug}/members';
const ORG_MEMBER = '/organizations/{orgSlug}/members/{userId}';
const ORG_INVITATIONS = '/organizations/{orgSlug}/invitations';
const WS = '/orgs/{orgSlug}/workspaces/{wsSlug}';
const WS_MEMBERS = '/orgs/{orgSlug}/workspaces/{wsSlug}/members';
const WS_MEMBER = '/orgs/{orgSlug}/workspaces/{wsSlug}/members/{userId}';
const WS_INVITATIONS = '/orgs/{orgSlug}/workspaces/{wsSlug}/invitations';
const PRJ_MEMBERS = '/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/members';

/** A role in words with its article: "an admin", "a member". @param {string} role */
export function roleWithArticle(role) {
  const w = humanize(role).toLowerCase();
  return (/^[aeiou]/.test(w) ? 'an ' : 'a ') + w;
}

/** The place's first workspace, where "the way back" leads. */
function firstWorkspace() {
  const o = session.places.find((p) => p.workspaces.length);
  return o ? { href: `/w/${o.slug}/${o.workspaces[0].slug}`, name: `${o.name} / ${o.workspaces[0].name}` } : null;
}

/** Turns a name into a slug: lowercase letters, digits and single hyphens. @param {string} s */
export function slugify(s) {
  return s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '').slice(0, 60);
}

/** @param {string} org @param {string} ws */
function knownPlace(org, ws) {
  return session.places.some((o) => o.slug === org && o.workspaces.some((w) => w.slug === ws));
}

/**
 * Shows children only in a workspace the person may open (their places, read again once if it is not
 * there); otherwise says so in words and offers the way back.
 * @param {{org: string, ws: string, children?: any}} props
 */
export function WorkspaceGate({ org, ws, children }) {
  const [state, setState] = useState(() => (knownPlace(org, ws) ? 'ok' : 'checking'));
  useEffect(() => {
    if (knownPlace(org, ws)) { setState('ok'); return; }
    let live = true;
    setState('checking');
    session.refreshPlaces().then(() => { if (live) setState(knownPlace(org, ws) ? 'ok' : 'missing'); },
      () => { if (live) setState('missing'); });
    return () => { live = false; };
  }, [org, ws]);
  if (state === 'ok') return children;
  if (state === 'checking') return html`<${Loading} />`;
  const back = firstWorkspace();
  return html`<section class="panel no-access" aria-labelledby="no-access-h">
    <h1 id="no-access-h">You cannot open this workspace</h1>
    <p>You are not a member of this workspace, or it no longer exists.</p>
    <p>${back ? html`<a class="button" href=${back.href}>Go to ${back.name}</a>`
      : html`You have no workspace yet: create an organization from the menu at the top.`}</p>
  </section>`;
}

/** The tabs between the team's screens. @param {{org: string, ws: string, current: string}} props */
function TeamNav({ org, ws, current }) {
  const base = `/w/${org}/${ws}`;
  const links = [['members', 'Members'], ['settings/workspace', 'Workspace settings'],
    ['settings/organization', 'Organization settings']];
  return html`<nav class="team-nav" aria-label="Team">
    ${links.map(([p, label]) => html`<a href=${`${base}/${p}`} aria-current=${p === current ? 'page' : undefined}>${label}</a>`)}
  </nav>`;
}

// ---- Members and invitations --------------------------------------------------------------------------

/** @param {{org: string, ws: string}} props */
export function Members({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const me = useLoad((s) => Promise.all([api.get(WS, params, undefined, s), api.get(ORG, params, undefined, s)]), [org, ws]);
  if (me.error) return html`<h1>Members</h1><${ErrorMessage} error=${me.error} />`;
  if (!me.data) return html`<h1>Members</h1><${Loading} />`;
  const [wsInfo, orgInfo] = me.data;
  const wsAdmin = wsInfo.myRole === 'admin';
  const orgAdmin = orgInfo.myRole === 'owner' || orgInfo.myRole === 'admin';
  return html`<h1>Members</h1>
    <${TeamNav} org=${org} ws=${ws} current="members" />
    <${WorkspaceMembers} org=${org} ws=${ws} workspace=${wsInfo} admin=${wsAdmin} />
    <${OrganizationMembers} org=${org} ws=${ws} organization=${orgInfo} admin=${orgAdmin} />
    <${Leave} org=${org} ws=${ws} workspace=${wsInfo} organization=${orgInfo} />`;
}

/** What leaving a workspace means, as the API does it. @param {{who: string, where: string}} props */
function LeavingDetail({ who, where }) {
  return html`<p>${who} leaves ${where}. At the same time:</p>
    <ul>
      <li>they leave its projects, and the cards assigned to them there are unassigned;</li>
      <li>the agent missions and pipeline runs they started there are cancelled;</li>
      <li>the automation rules they created there are disabled (its admins are told);</li>
      <li>their open live connections there end.</li>
    </ul>`;
}

/**
 * @param {{org: string, ws: string, workspace: api.Schemas['WorkspaceOut'], admin: boolean}} props
 */
function WorkspaceMembers({ org, ws, workspace, admin }) {
  const params = { orgSlug: org, wsSlug: ws };
  const members = useLoad((s) => api.getAll(WS_MEMBERS, params, undefined, s), [org, ws]);
  const invitations = useLoad((s) => (admin ? api.getAll(WS_INVITATIONS, params, undefined, s) : Promise.resolve([])), [org, ws, admin]);
  const [run, busy, error] = useAction();
  const myId = session.user?.id;
  /** @param {string} userId @param {Record<string,string>} body */
  const change = (userId, body) => run(async () => {
    const m = await api.patch(WS_MEMBER, { ...params, userId }, body);
    members.set((list) => (list || []).map((x) => (x.userId === userId ? m : x)));
    announce(`${m.name || m.email} is now ${humanize(m.role)}, pilotage ${humanize(m.pilotageRole)}`);
  });
  return html`<section class="panel" aria-labelledby="ws-members-h">
    <h2 id="ws-members-h">Members of the workspace ${workspace.name}</h2>
    <${ErrorMessage} error=${members.error || error} />
    ${members.loading && !members.data ? html`<${Loading} />` : html`<table class="members">
      <thead><tr><th scope="col">Person</th><th scope="col">Role</th><th scope="col">Pilotage role</th>${admin && html`<th scope="col"><span class="visually-hidden">Actions</span></th>`}</tr></thead>
      <tbody>${members.data?.map((m) => {
        const who = m.name || m.email;
        const owner = m.userId === workspace.ownerId;
        return html`<tr data-user=${m.email}>
          <td><strong>${who}</strong>${m.name && html` <span class="muted">${m.email}</span>`}${owner && html` <span class="badge">Owner</span>`}${m.userId === myId && html` <span class="muted">(you)</span>`}</td>
          <td>${admin && !owner ? html`<select aria-label=${`Role of ${who}`} value=${m.role} disabled=${busy}
              onChange=${(/** @type {any} */ e) => change(m.userId, { role: e.currentTarget.value })}>
              <option value="member">Member</option><option value="admin">Admin</option></select>` : humanize(m.role)}</td>
          <td>${admin && !owner ? html`<select aria-label=${`Pilotage role of ${who}`} value=${m.pilotageRole} disabled=${busy}
              onChange=${(/** @type {any} */ e) => change(m.userId, { pilotageRole: e.currentTarget.value })}>
              <option value="viewer">Viewer</option><option value="reviewer">Reviewer</option><option value="owner">Owner</option></select>` : humanize(m.pilotageRole)}</td>
          ${admin && html`<td>${!owner && m.userId !== myId && html`<${ConfirmButton} label="Remove" title=${`Remove ${who} from ${workspace.name}?`}
            confirmLabel="Remove from the workspace"
            detail=${html`<${LeavingDetail} who=${who} where=${'the workspace ' + workspace.name} /><p>They stay a member of the organization.</p>`}
            onConfirm=${async () => { await api.del(WS_MEMBER, { ...params, userId: m.userId }); members.reload(); announce(`${who} was removed`); }} />`}</td>`}
        </tr>`;
      })}</tbody>
    </table>`}
    ${admin && html`<${Invite} label="Invite to the workspace" idPrefix="ws-invite"
      send=${(/** @type {string} */ email, /** @type {'admin'|'member'} */ role) => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/members/invite', params, { email, role })}
      onSent=${invitations.reload} />
    <${Invitations} title="Invitations to the workspace waiting for an answer" idPrefix="ws-inv" list=${invitations}
      resend=${(/** @type {string} */ id) => api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/invitations/{invitationId}/resend', { ...params, invitationId: id })}
      revoke=${(/** @type {string} */ id) => api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/invitations/{invitationId}', { ...params, invitationId: id })} />`}
  </section>`;
}

/**
 * @param {{org: string, ws: string, organization: api.Schemas['OrganizationOut'], admin: boolean}} props
 */
function OrganizationMembers({ org, organization, admin }) {
  const params = { orgSlug: org };
  const members = useLoad((s) => api.getAll(ORG_MEMBERS, params, undefined, s), [org]);
  const invitations = useLoad((s) => (admin ? api.getAll(ORG_INVITATIONS, params, undefined, s) : Promise.resolve([])), [org, admin]);
  const [run, busy, error] = useAction();
  const myId = session.user?.id;
  return html`<section class="panel" aria-labelledby="org-members-h">
    <h2 id="org-members-h">Members of the organization ${organization.name}</h2>
    <p class="hint">Organization owners and admins act as admins in every workspace of it.</p>
    <${ErrorMessage} error=${members.error || error} />
    ${members.loading && !members.data ? html`<${Loading} />` : html`<table class="members">
      <thead><tr><th scope="col">Person</th><th scope="col">Role</th>${admin && html`<th scope="col"><span class="visually-hidden">Actions</span></th>`}</tr></thead>
      <tbody>${members.data?.map((m) => {
        const who = m.name || m.email;
        const owner = m.role === 'owner';
        return html`<tr data-user=${m.email}>
          <td><strong>${who}</strong>${m.name && html` <span class="muted">${m.email}</span>`}${m.userId === myId && html` <span class="muted">(you)</span>`}</td>
          <td>${admin && !owner ? html`<select aria-label=${`Organization role of ${who}`} value=${m.role} disabled=${busy}
              onChange=${(/** @type {any} */ e) => run(async () => {
                const r = await api.patch(ORG_MEMBER, { ...params, userId: m.userId }, { role: e.currentTarget.value });
                members.set((list) => (list || []).map((x) => (x.userId === m.userId ? r : x)));
                announce(`${who} is now ${humanize(r.role)} of the organization`);
              })}>
              <option value="member">Member</option><option value="admin">Admin</option></select>` : humanize(m.role)}</td>
          ${admin && html`<td>${!owner && m.userId !== myId && html`<${ConfirmButton} label="Remove" title=${`Remove ${who} from ${organization.name}?`}
            confirmLabel="Remove from the organization"
            detail=${html`<${LeavingDetail} who=${who} where=${'the organization ' + organization.name + ' and every workspace of it'} />`}
            onConfirm=${async () => { await api.del(ORG_MEMBER, { ...params, userId: m.userId }); members.reload(); announce(`${who} was removed`); }} />`}</td>`}
        </tr>`;
      })}</tbody>
    </table>`}
    ${admin && html`<${Invite} label="Invite to the organization" idPrefix="org-invite"
      send=${(/** @type {string} */ email, /** @type {'admin'|'member'} */ role) => api.post(ORG_MEMBERS, params, { email, role })}
      onSent=${invitations.reload} />
    <${Invitations} title="Invitations to the organization waiting for an answer" idPrefix="org-inv" list=${invitations}
      resend=${(/** @type {string} */ id) => api.post('/organizations/{orgSlug}/invitations/{invitationId}/resend', { ...params, invitationId: id })}
      revoke=${(/** @type {string} */ id) => api.del('/organizations/{orgSlug}/invitations/{invitationId}', { ...params, invitationId: id })} />`}
  </section>`;
}

/**
 * An invitation form: an e-mail address and a role.
 * @param {{label: string, idPrefix: string, send: (email: string, role: 'admin'|'member') => Promise<unknown>, onSent: () => void}} props
 */
function Invite({ label, idPrefix, send, onSent }) {
  const [run, busy, error] = useAction();
  const [sent, setSent] = useState('');
  return html`<form class="inline-form invite" aria-label=${label} onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      const form = /** @type {HTMLFormElement} */ (e.currentTarget);
      setSent('');
      run(async () => {
        await send(v.email.trim(), v.role === 'admin' ? 'admin' : 'member');
        setSent(v.email.trim());
        form.reset();
        onSent();
      });
    }}>
    <h3>${label}</h3>
    <label for=${idPrefix + '-email'}>E-mail</label>
    <input id=${idPrefix + '-email'} name="email" type="email" required maxlength="254" autocomplete="off" />
    <label for=${idPrefix + '-role'}>Role</label>
    <select id=${idPrefix + '-role'} name="role"><option value="member">Member</option><option value="admin">Admin</option></select>
    <button type="submit" disabled=${busy}>Send the invitation</button>
    <${ErrorMessage} error=${error} />
    ${sent && html`<p role="status">An invitation is on its way to ${sent}.</p>`}
  </form>`;
}

/**
 * The invitations waiting for an answer, with resend and withdraw.
 * @param {{title: string, idPrefix: string, list: {data: PendingInvitation[]|undefined, error: unknown, loading: boolean, reload: () => void},
 *   resend: (id: string) => Promise<unknown>, revoke: (id: string) => Promise<unknown>}} props
 */
function Invitations({ title, idPrefix, list, resend, revoke }) {
  const [run, busy, error] = useAction();
  const [said, setSaid] = useState('');
  return html`<div class="invitations">
    <h3 id=${idPrefix + '-h'}>${title}</h3>
    <${ErrorMessage} error=${list.error || error} />
    ${said && html`<p role="status">${said}</p>`}
    ${list.loading && !list.data ? html`<${Loading} />` : !list.data?.length
      ? html`<p class="muted">No invitation is waiting. Invite someone with the form above.</p>`
      : html`<ul aria-labelledby=${idPrefix + '-h'}>${list.data.map((i) => html`<li data-email=${i.email}>
          <strong>${i.email}</strong> as ${roleWithArticle(i.role)}, invited by ${i.inviterName} <${When} iso=${i.createdAt} />.
          ${i.expired ? html` <span class="status failed">Expired</span>` : html` <span class="muted">Expires <${When} iso=${i.expiresAt} /></span>`}
          <span class="actions">
            <button type="button" class="secondary" disabled=${busy} aria-label=${`Send the invitation to ${i.email} again`}
              onClick=${() => run(async () => { await resend(i.id); setSaid(`The invitation was sent again to ${i.email}, with a new link valid 7 days.`); list.reload(); })}>Send again</button>
            <${ConfirmButton} label="Withdraw" title=${`Withdraw the invitation to ${i.email}?`}
              detail=${html`<p>Its link will no longer work. You can invite ${i.email} again later.</p>`}
              confirmLabel="Withdraw the invitation"
              onConfirm=${async () => { await revoke(i.id); setSaid(`The invitation to ${i.email} was withdrawn.`); list.reload(); }} />
          </span>
        </li>`)}</ul>`}
  </div>`;
}

// ---- A project's members ------------------------------------------------------------------------------

/** @param {{org: string, ws: string, project: string}} props */
export function ProjectMembers({ org, ws, project }) {
  const params = { orgSlug: org, wsSlug: ws, projectId: project };
  const proj = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}', params, undefined, s), [org, ws, project]);
  const members = useLoad((s) => api.getAll(PRJ_MEMBERS, params, undefined, s), [org, ws, project]);
  const [run, busy, error] = useAction();
  const name = proj.data?.name || 'the project';
  return html`<p><a href=${`/w/${org}/${ws}/p/${project}`}>← Back to the board</a></p>
    <h1>Members of ${name}</h1>
    <p class="hint">Project members hear of its changes. Anyone in the workspace can open the project.</p>
    <${ErrorMessage} error=${proj.error || members.error} />
    ${members.loading && !members.data ? html`<${Loading} />` : !members.data?.length
      ? html`<p class="muted">Nobody is a member of this project yet: add someone from the workspace below.</p>`
      : html`<ul class="project-members">${members.data.map((m) => {
          const who = m.name || m.email;
          return html`<li data-user=${m.email}><strong>${who}</strong>${m.name && html` <span class="muted">${m.email}</span>`}
            <span class="muted">added <${When} iso=${m.addedAt} /></span>
            <${ConfirmButton} label="Remove" title=${`Remove ${who} from ${name}?`} confirmLabel="Remove from the project"
              detail=${html`<p>${who} leaves the project's members and no longer hears of its changes as one. They stay in the workspace, and the cards assigned to them stay assigned.</p>`}
              onConfirm=${async () => { await api.del('/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/members/{userId}', { ...params, userId: m.userId }); members.reload(); }} /></li>`;
        })}</ul>`}
    <form class="inline-form panel" aria-label="Add a member to the project" onSubmit=${(/** @type {Event} */ e) => {
        const v = formValues(e);
        const form = /** @type {HTMLFormElement} */ (e.currentTarget);
        run(async () => { await api.post(PRJ_MEMBERS, params, { email: v.email.trim() }); form.reset(); members.reload(); announce('Added'); });
      }}>
      <h2>Add a member</h2>
      <label for="project-member-email">E-mail of someone in the workspace</label>
      <input id="project-member-email" name="email" type="email" required maxlength="254" autocomplete="off" />
      <button type="submit" disabled=${busy}>Add to the project</button>
      <${ErrorMessage} error=${error} />
    </form>`;
}

// ---- Settings -----------------------------------------------------------------------------------------

/** @param {{org: string, ws: string}} props */
export function OrganizationSettings({ org, ws }) {
  const params = { orgSlug: org };
  const info = useLoad((s) => api.get(ORG, params, undefined, s), [org]);
  const [run, busy, error] = useAction();
  const [checkout, checkingOut, checkoutError] = useAction();
  const [saved, setSaved] = useState('');
  const o = info.data;
  const admin = o?.myRole === 'owner' || o?.myRole === 'admin';
  const owner = o?.myRole === 'owner';
  return html`<h1>Organization settings</h1>
    <${TeamNav} org=${org} ws=${ws} current="settings/organization" />
    <${ErrorMessage} error=${info.error} />
    ${!o ? !info.error && html`<${Loading} />` : html`
      <section class="panel" aria-labelledby="org-name-h">
        <h2 id="org-name-h">${o.name}</h2>
        <p class="muted">Its address is <code>${o.slug}</code>. You are ${roleWithArticle(o.myRole)} of it.${o.isPersonal ? ' It is your personal organization.' : ''}</p>
        ${admin && html`<p><a href=${`/w/${org}/${ws}/settings/audit`} data-link="audit">Audit log</a>: who did what in the organization, when and from where.</p>`}
        ${admin ? html`<form class="inline-form" onSubmit=${(/** @type {Event} */ e) => {
            const v = formValues(e);
            setSaved('');
            run(async () => {
              const r = await api.patch(ORG, params, { name: v.name.trim() });
              info.set(r);
              await session.refreshPlaces();
              setSaved(`The organization is now called ${r.name}.`);
            });
          }}>
            <label for="org-name">Name</label>
            <input id="org-name" name="name" required maxlength="100" defaultValue=${o.name} />
            <button type="submit" disabled=${busy}>Rename</button>
            <${ErrorMessage} error=${error} />
            ${saved && html`<p role="status">${saved}</p>`}
          </form>`
        : html`<p>Only its owner and admins can change its settings.</p>`}
      </section>
      ${admin && !o.isPersonal && html`<${SignInDomains} org=${org} name=${o.name} />`}
      ${owner && html`<section class="panel" aria-labelledby="billing-h">
        <h2 id="billing-h">Billing</h2>
        <p>Open a checkout for this organization with the billing provider.</p>
        <button type="button" disabled=${checkingOut} onClick=${() => checkout(async () => {
          const c = await api.post('/organizations/{orgSlug}/billing/checkout', params);
          location.assign(c.url);
        })}>Open the billing checkout</button>
        <${ErrorMessage} error=${checkoutError} />
      </section>`}
      ${owner && html`<section class="panel" aria-labelledby="org-delete-h">
        <h2 id="org-delete-h">Delete the organization</h2>
        ${o.isPersonal ? html`<p class="muted">Your personal organization cannot be deleted while your account exists.</p>`
          : html`<p>Deleting ${o.name} removes every workspace, project, card and record in it, for everyone. It cannot be undone.</p>
          <${ConfirmButton} label="Delete the organization" title=${`Delete ${o.name}?`} typed=${o.name}
            detail=${html`<p>Every workspace, project, card, document and record of ${o.name} is deleted, for all its members. Pending invitations are withdrawn.</p>`}
            onConfirm=${async () => { await api.del(ORG, params); await session.refreshPlaces(); navigate(firstWorkspace()?.href || '/', { replace: true }); }} />`}
      </section>`}`}`;
}

/** @param {{org: string, ws: string}} props */
export function WorkspaceSettings({ org, ws }) {
  const params = { orgSlug: org, wsSlug: ws };
  const info = useLoad((s) => Promise.all([api.get(WS, params, undefined, s), api.get(ORG, params, undefined, s)]), [org, ws]);
  const [run, busy, error] = useAction();
  const [saved, setSaved] = useState('');
  const [creating, setCreating] = useState(false);
  const [w, o] = info.data || [];
  const admin = w?.myRole === 'admin';
  const orgAdmin = o?.myRole === 'owner' || o?.myRole === 'admin';
  return html`<h1>Workspace settings</h1>
    <${TeamNav} org=${org} ws=${ws} current="settings/workspace" />
    <${ErrorMessage} error=${info.error} />
    ${!w ? !info.error && html`<${Loading} />` : html`
      <section class="panel" aria-labelledby="ws-name-h">
        <h2 id="ws-name-h">${w.name}</h2>
        <p class="muted">Its address is <code>${w.slug}</code>. You are ${roleWithArticle(w.myRole)} of it, and ${roleWithArticle(w.myPilotageRole)} in pilotage.</p>
        ${admin ? html`<form class="inline-form" onSubmit=${(/** @type {Event} */ e) => {
            const v = formValues(e);
            setSaved('');
            run(async () => {
              const r = await api.patch(WS, params, { name: v.name.trim() });
              info.set((d) => [r, /** @type {any} */ (d)?.[1]]);
              await session.refreshPlaces();
              setSaved(`The workspace is now called ${r.name}.`);
            });
          }}>
            <label for="ws-name">Name</label>
            <input id="ws-name" name="name" required maxlength="100" defaultValue=${w.name} />
            <button type="submit" disabled=${busy}>Rename</button>
            <${ErrorMessage} error=${error} />
            ${saved && html`<p role="status">${saved}</p>`}
          </form>`
        : html`<p>Only its admins can change its settings.</p>`}
      </section>
      ${admin && html`<section class="panel" aria-labelledby="ws-hooks-h">
        <h2 id="ws-hooks-h">Webhooks</h2>
        <p>Send the workspace's events to other services. <a href=${`/w/${org}/${ws}/webhooks`}>Manage the webhooks</a></p>
      </section>`}
      ${orgAdmin && html`<section class="panel" aria-labelledby="ws-new-h">
        <h2 id="ws-new-h">Another workspace</h2>
        <p>Create a workspace in ${o?.name}: you become its admin.</p>
        <button type="button" onClick=${() => setCreating(true)}>New workspace…</button>
        ${creating && html`<${NewPlace} kind="workspace" org=${org} onClose=${() => setCreating(false)} />`}
      </section>`}
      ${admin && html`<section class="panel" aria-labelledby="ws-delete-h">
        <h2 id="ws-delete-h">Delete the workspace</h2>
        ${w.isPersonal ? html`<p class="muted">A personal workspace cannot be deleted.</p>`
          : html`<p>Deleting ${w.name} removes its projects, cards, documents, agents, pipelines and pilotage records, for everyone. It cannot be undone.</p>
          <${ConfirmButton} label="Delete the workspace" title=${`Delete ${w.name}?`} typed=${w.name}
            detail=${html`<p>Every project, card, document, agent, pipeline and pilotage record of ${w.name} is deleted, for all its members, and its pending invitations are withdrawn.</p>`}
            onConfirm=${async () => { await api.del(WS, params); await session.refreshPlaces(); navigate(firstWorkspace()?.href || '/', { replace: true }); }} />`}
      </section>`}`}`;
}

// ---- Creating an organization or a workspace ----------------------------------------------------------

/**
 * A modal dialog that creates an organization (with its first workspace) or a workspace, then opens it.
 * @param {{kind: 'organization'|'workspace', org?: string, onClose: () => void}} props
 */
export function NewPlace({ kind, org, onClose }) {
  const ref = useRef(/** @type {HTMLDialogElement|null} */ (null));
  const [run, busy, error] = useAction();
  const id = useMemo(() => 'new-' + kind, [kind]);
  const admins = session.places.filter((o) => o.myRole === 'owner' || o.myRole === 'admin');
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const [wsName, setWsName] = useState('General');
  useEffect(() => {
    const d = ref.current;
    d?.showModal();
    const closed = () => onClose();
    d?.addEventListener('close', closed);
    return () => d?.removeEventListener('close', closed);
  }, []);
  const submit = (/** @type {Event} */ e) => {
    const v = formValues(e);
    run(async () => {
      let orgSlug = v.org || org || '';
      let wsSlug;
      if (kind === 'organization') {
        const o = await api.post('/organizations', {}, { name: v.name.trim(), slug: v.slug });
        orgSlug = o.slug;
        const w = await api.post('/orgs/{orgSlug}/workspaces', { orgSlug }, { name: v.wsName.trim(), slug: slugify(v.wsName) || 'general' });
        wsSlug = w.slug;
      } else {
        const w = await api.post('/orgs/{orgSlug}/workspaces', { orgSlug }, { name: v.name.trim(), slug: v.slug });
        wsSlug = w.slug;
      }
      await session.refreshPlaces();
      ref.current?.close();
      navigate(`/w/${orgSlug}/${wsSlug}`);
      announce(`${v.name.trim()} created`);
    });
  };
  const what = kind === 'organization' ? 'organization' : 'workspace';
  return html`<dialog ref=${ref} class="confirm new-place" aria-labelledby=${id + '-h'}>
    <form onSubmit=${submit}>
      <h2 id=${id + '-h'}>New ${what}</h2>
      ${kind === 'workspace' && (admins.length ? html`<label for=${id + '-org'}>Organization</label>
        <select id=${id + '-org'} name="org" value=${admins.some((o) => o.slug === org) ? org : admins[0].slug}>
          ${admins.map((o) => html`<option value=${o.slug}>${o.name}</option>`)}
        </select>` : html`<p class="error" role="alert">Only an organization's owners and admins can create its workspaces: create an organization of your own first.</p>`)}
      <label for=${id + '-name'}>Name of the ${what}</label>
      <input id=${id + '-name'} name="name" required maxlength="100" value=${name}
        onInput=${(/** @type {any} */ e) => { setName(e.currentTarget.value); if (!slugEdited) setSlug(slugify(e.currentTarget.value)); }} />
      <label for=${id + '-slug'}>Address in links</label>
      <input id=${id + '-slug'} name="slug" required minlength="2" maxlength="60" pattern="[a-z0-9]+(-[a-z0-9]+)*" value=${slug}
        aria-describedby=${id + '-slug-hint'} onInput=${(/** @type {any} */ e) => { setSlug(e.currentTarget.value); setSlugEdited(true); }} />
      <p id=${id + '-slug-hint'} class="hint">2 to 60 lowercase letters, digits and hyphens.</p>
      ${kind === 'organization' && html`<label for=${id + '-ws'}>Name of its first workspace</label>
        <input id=${id + '-ws'} name="wsName" required maxlength="100" value=${wsName} onInput=${(/** @type {any} */ e) => setWsName(e.currentTarget.value)} />`}
      <${ErrorMessage} error=${error} />
      <div class="actions">
        <button type="submit" disabled=${busy || (kind === 'workspace' && !admins.length)}>Create the ${what}</button>
        <button type="button" class="secondary" onClick=${() => ref.current?.close()}>Cancel</button>
      </div>
    </form>
  </dialog>`;
}

// ---- The invitation page's details --------------------------------------------------------------------

/**
 * Reads an invitation by its link's token (no sign-in needed): where it leads, who sent it, the role.
 * @param {string} token @param {'workspace'|'organization'} kind
 */
export function useInvitation(token, kind) {
  return useLoad((s) => (kind === 'workspace'
    ? api.get('/invitations/{token}', { token }, undefined, s)
    : api.get('/organization-invitations/{token}', { token }, undefined, s)), [token, kind]);
}

/**
 * What an invitation is, in words.
 * @param {{invitation: ReturnType<typeof useInvitation>}} props
 */
export function InvitationDetails({ invitation }) {
  const i = invitation.data;
  if (invitation.error) {
    const gone = invitation.error instanceof api.ApiError && invitation.error.status === 404;
    return gone
      ? html`<p class="error" role="alert">This invitation no longer exists: it was withdrawn, or sent again with a new link. Ask whoever invited you for a new one.</p>`
      : html`<${ErrorMessage} error=${invitation.error} />`;
  }
  if (!i) return html`<${Loading} />`;
  const where = i.workspaceName
    ? html`the workspace <strong>${i.workspaceName}</strong> of <strong>${i.organizationName}</strong>`
    : html`the organization <strong>${i.organizationName}</strong>`;
  return html`<p class="invitation-summary"><strong>${i.inviterName}</strong> invited you to join ${where} as ${roleWithArticle(i.role)}.</p>
    ${i.status === 'accepted' && html`<p role="status">This invitation was already accepted.</p>`}
    ${i.status === 'expired' && html`<p class="error" role="alert">This invitation has expired: ask ${i.inviterName} to send it again.</p>`}`;
}

// ---- Leaving ------------------------------------------------------------------------------------------

/** What leaving means for the person who leaves. @param {{where: string}} props */
function YouLeaveDetail({ where }) {
  return html`<p>You leave ${where}, and can come back only if someone invites you again. At the same time:</p>
    <ul>
      <li>you leave its projects, and the cards assigned to you there are unassigned;</li>
      <li>the agent missions and pipeline runs you started there are cancelled;</li>
      <li>the automation rules you created there are disabled (its admins are told);</li>
      <li>you stop receiving its notifications.</li>
    </ul>`;
}

/** After leaving: the places again, and the first workspace left to open (or the start page). */
async function afterLeaving() {
  await session.refreshPlaces();
  const back = firstWorkspace();
  navigate(back ? back.href : '/');
}

/**
 * Leaving the workspace or the organization oneself, confirmed; when one may not (an owner, or an
 * organization admin for whom leaving the workspace would change nothing), it says why instead.
 * @param {{org: string, ws: string, workspace: api.Schemas['WorkspaceOut'], organization: api.Schemas['OrganizationOut']}} props
 */
function Leave({ org, ws, workspace, organization }) {
  const myId = session.user?.id;
  const orgRole = organization.myRole;
  let wsPart;
  if (workspace.ownerId === myId) {
    wsPart = html`<p class="hint" data-leave="workspace">You own the workspace ${workspace.name}, so you cannot leave it: a workspace
      always keeps its owner. An admin may delete it in the workspace settings when nobody needs it any more.</p>`;
  } else if (orgRole === 'owner' || orgRole === 'admin') {
    wsPart = html`<p class="hint" data-leave="workspace">As ${roleWithArticle(orgRole)} of the organization you act as an admin in
      every workspace of it, so leaving ${workspace.name} alone would change nothing: leave the organization instead.</p>`;
  } else {
    wsPart = html`<${ConfirmButton} label="Leave the workspace" title=${`Leave ${workspace.name}?`} confirmLabel="Leave the workspace"
      detail=${html`<${YouLeaveDetail} where=${'the workspace ' + workspace.name} /><p>You stay a member of the organization ${organization.name}.</p>`}
      onConfirm=${async () => {
        await api.del(WS_MEMBER, { orgSlug: org, wsSlug: ws, userId: myId || '' });
        announce(`You left ${workspace.name}`);
        await afterLeaving();
      }} />`;
  }
  const orgPart = orgRole === 'owner'
    ? html`<p class="hint" data-leave="organization">You own the organization ${organization.name}, so you cannot leave it: an
      organization always keeps its owner.${organization.isPersonal ? ' It is your personal organization.'
        : ' Its owner may delete it in the organization settings when nobody needs it any more.'}</p>`
    : html`<${ConfirmButton} label="Leave the organization" title=${`Leave ${organization.name}?`} confirmLabel="Leave the organization"
      detail=${html`<${YouLeaveDetail} where=${'the organization ' + organization.name + ' and every workspace of it'} />`}
      onConfirm=${async () => {
        await api.del(ORG_MEMBER, { orgSlug: org, userId: myId || '' });
        announce(`You left ${organization.name}`);
        await afterLeaving();
      }} />`;
  return html`<section class="panel leave" aria-labelledby="leave-h">
    <h2 id="leave-h">Leave</h2>
    <h3>The workspace ${workspace.name}</h3>
    ${wsPart}
    <h3>The organization ${organization.name}</h3>
    ${orgPart}
  </section>`;
}
