// @ts-check
// Agents at work: a mission followed live (status, steps, streamed text) and its proposals; the
// workspace's pending proposals.
import { html, useState, useEffect, useLoad, useAction, ErrorMessage, Loading, formatTime } from './ui.js';
import * as api from './api.js';
import { follow } from './live.js';

/** @typedef {api.Schemas['ProposalOut']} Proposal */
/** @typedef {{missionId: string, seq: number, type: string, status?: string, message?: string, data?: any, at: string}} MissionEvent */

const final = ['completed', 'failed'];

/** @param {{org: string, ws: string, mission: string}} props */
export function Mission({ org, ws, mission }) {
  const params = { orgSlug: org, wsSlug: ws, missionId: mission };
  const m = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}', params, undefined, s), [org, ws, mission]);
  const proposals = useLoad((s) => api.getAll('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/proposals', params, undefined, s), [org, ws, mission]);
  const [events, setEvents] = useState(/** @type {MissionEvent[]} */ ([]));
  const [status, setStatus] = useState('');
  const [conn, setConn] = useState(/** @type {'open'|'reconnecting'|'closed'} */ ('reconnecting'));
  useEffect(() => {
    setEvents([]);
    let opened = false;
    // The stream replays the mission's events from the first, so a reload loses none of them.
    return follow(api.href('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/events', params), ['status', 'step', 'proposal', 'token', 'done'],
      (type, data) => {
        const ev = /** @type {MissionEvent} */ (data);
        setEvents((list) => [...list, ev]);
        if (ev.status && type !== 'token') setStatus(ev.status);
        if (type === 'proposal' || type === 'done' || (type === 'status' && ev.status === 'awaiting_approval')) proposals.reload();
        if (type === 'done') { m.reload(); return true; }
        return false;
      }, (state) => {
        // Connected again after a loss: what was read meanwhile may be stale or have failed.
        if (state === 'open' && opened) { m.reload(); proposals.reload(); }
        if (state === 'open') opened = true;
        setConn(state);
      });
  }, [org, ws, mission]);
  const text = events.filter((e) => e.type === 'token').map((e) => e.message || '').join('');
  const steps = events.filter((e) => e.type !== 'token');
  const shown = status || m.data?.status || '';
  return html`<h1>Mission</h1>
    <${ErrorMessage} error=${m.error} />
    ${m.data && html`<p><strong>${m.data.objective}</strong></p>
      ${m.data.cardId && html`<p><a href=${`/w/${org}/${ws}/p/${m.data.projectId}?card=${m.data.cardId}`}>Open the card</a></p>`}`}
    <p class="status-line">Status: <span class=${'status ' + shown} data-status=${shown} role="status">${shown.replace('_', ' ') || '…'}</span>
      ${!final.includes(shown) && html` <span class="muted">${conn === 'open' ? 'live' : conn === 'reconnecting' ? 'connecting…' : ''}</span>`}
      ${m.data?.error && html` <span class="error">${m.data.error}</span>`}</p>
    ${!final.includes(shown) && shown && html`<${Cancel} params=${params} onDone=${m.reload} />`}
    <${ProposalList} org=${org} ws=${ws} list=${proposals.data} error=${proposals.error} onDecided=${proposals.reload} />
    <section aria-labelledby="steps-title"><h2 id="steps-title">Steps</h2>
      <ol class="events">${steps.map((e) => html`<li><span class="muted">${formatTime(e.at)}</span> <strong>${e.type}</strong>${e.status ? ' · ' + e.status : ''}${e.message ? ': ' + e.message : ''}</li>`)}</ol>
    </section>
    ${text && html`<section aria-labelledby="text-title"><h2 id="text-title">What the agent said</h2><pre class="stream">${text}</pre></section>`}`;
}

/** @param {{params: Record<string,string>, onDone: () => void}} props */
function Cancel({ params, onDone }) {
  const [run, busy, error] = useAction();
  return html`<p><button class="secondary" disabled=${busy} onClick=${() => run(async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/cancel', params); onDone(); })}>Cancel the mission</button></p>
    <${ErrorMessage} error=${error} />`;
}

/** @param {{org: string, ws: string, list: Proposal[]|undefined, error: unknown, onDecided: () => void, showMission?: boolean}} props */
function ProposalList({ org, ws, list, error, onDecided, showMission }) {
  if (!list && !error) return null;
  return html`<section aria-labelledby="proposals-title"><h2 id="proposals-title">Proposals</h2>
    <${ErrorMessage} error=${error} />
    ${list?.length === 0 && html`<p class="muted">No proposal.</p>`}
    <ul class="proposals">${list?.map((p) => html`<${ProposalItem} key=${p.id} p=${p} org=${org} ws=${ws} onDecided=${onDecided} showMission=${showMission} />`)}</ul>
  </section>`;
}

/** @param {{p: Proposal, org: string, ws: string, onDecided: () => void, showMission?: boolean}} props */
function ProposalItem({ p, org, ws, onDecided, showMission }) {
  const [run, busy, error] = useAction();
  const params = { orgSlug: org, wsSlug: ws, proposalId: p.id };
  return html`<li class="proposal" data-proposal-id=${p.id}>
    <p><strong>${p.tool.replace(/_/g, ' ')}</strong> · <span class=${'status ' + p.status}>${p.status}</span></p>
    ${p.explanation && html`<p>${p.explanation}</p>`}
    <details><summary>Arguments</summary><pre>${JSON.stringify(p.args, null, 2)}</pre></details>
    ${showMission && html`<p><a href=${`/w/${org}/${ws}/missions/${p.missionId}`}>Open the mission</a></p>`}
    ${p.status === 'pending' && html`<p class="actions">
      <button disabled=${busy} onClick=${() => run(async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/proposals/{proposalId}/approve', params); onDecided(); })}>Approve</button>
      <button class="secondary" disabled=${busy} onClick=${() => run(async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/proposals/{proposalId}/reject', params, {}); onDecided(); })}>Reject</button>
    </p>`}
    <${ErrorMessage} error=${error} />
  </li>`;
}

/** @param {{org: string, ws: string}} props */
export function Proposals({ org, ws }) {
  const list = useLoad((s) => api.get('/orgs/{orgSlug}/workspaces/{wsSlug}/agent-runtime/proposals', { orgSlug: org, wsSlug: ws }, undefined, s), [org, ws]);
  return html`<h1>Pending proposals</h1>
    ${list.loading && !list.data ? html`<${Loading} />` : html`<${ProposalList} org=${org} ws=${ws} list=${list.data} error=${list.error} onDecided=${list.reload} showMission=${true} />`}`;
}
