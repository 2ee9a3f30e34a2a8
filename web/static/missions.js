// @ts-check
// Agents at work: a mission followed live (status, steps, streamed text) and its proposals; the
// workspace's pending proposals.
import { html, useState, useEffect, useLoad, useAction, ErrorMessage, Loading, formatTime, humanize, count, duration, ConfirmButton, When, announce } from './ui.js';
import * as api from './api.js';
import { follow } from './live.js';

/** @typedef {api.Schemas['ProposalOut']} Proposal */
/** @typedef {{missionId: string, seq: number, type: string, status?: string, message?: string, data?: any, at: string}} MissionEvent */

const final = ['completed', 'failed', 'stopped', 'expired'];

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
    return follow(api.href('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/events', params), ['status', 'ack', 'step', 'proposal', 'question', 'token', 'done'],
      (type, data) => {
        const ev = /** @type {MissionEvent} */ (data);
        setEvents((list) => [...list, ev]);
        if (ev.status && type !== 'token') setStatus(ev.status);
        if (type === 'proposal' || type === 'done' || (type === 'status' && ev.status === 'awaiting_approval')) proposals.reload();
        if (type === 'question' || (type === 'status' && ['running', 'stale'].includes(ev.status || ''))) m.reload();
        if (type === 'done') { m.reload(); return true; }
        return false;
      }, (state) => {
        // Connected again after a loss: what was read meanwhile may be stale or have failed.
        if (state === 'open' && opened) { m.reload(); proposals.reload(); }
        if (state === 'open') opened = true;
        setConn(state);
      });
  }, [org, ws, mission]);
  // The mission as read may lag the stream (a read that left before the question came back after it):
  // read it again when the stream says another status, so the question, stop reason or resume show.
  useEffect(() => { if (status && m.data && m.data.status !== status && !m.loading) m.reload(); }, [status, m.data?.status]);
  const text = events.filter((e) => e.type === 'token').map((e) => e.message || '').join('');
  const steps = events.filter((e) => e.type !== 'token');
  const shown = status || m.data?.status || '';
  return html`<h1>Mission</h1>
    <${ErrorMessage} error=${m.error} />
    ${m.data && html`<p><strong>${m.data.objective}</strong></p>
      ${m.data.cardId && html`<p><a href=${`/w/${org}/${ws}/p/${m.data.projectId}?card=${m.data.cardId}`}>Open the card</a></p>`}`}
    <p class="status-line">Status: <span class=${'status ' + shown} data-status=${shown} role="status">${humanize(shown) || '…'}</span>
      ${!final.includes(shown) && html` <span class="muted">${conn === 'open' ? 'live' : conn === 'reconnecting' ? 'connecting…' : ''}</span>`}
      ${shown === 'stopped' && m.data?.stopReason && html` <span class="muted">${stopWords[m.data.stopReason] || humanize(m.data.stopReason)}</span>`}
      ${m.data?.error && html` <span class="error">${m.data.error}</span>`}</p>
    ${m.data && html`<${Usage} usage=${m.data.usage} />`}
    ${shown === 'awaiting_input' && m.data?.question && html`<${Question} params=${params} q=${m.data.question} onDone=${m.reload} />`}
    ${shown === 'stale' && html`<${Resume} params=${params} onDone=${m.reload} />`}
    ${!final.includes(shown) && shown && html`<${Stop} params=${params} objective=${m.data?.objective || ''} onDone=${m.reload} />`}
    <${Outcome} steps=${steps} proposals=${proposals.data} />
    <${ProposalList} org=${org} ws=${ws} list=${proposals.data} error=${proposals.error} onDecided=${proposals.reload} />
    <section aria-labelledby="steps-title"><h2 id="steps-title">Steps</h2>
      <ol class="events">${steps.map((e) => html`<li><span class="muted">${formatTime(e.at)}</span> <strong>${humanize(e.type)}</strong>${e.status ? ' · ' + humanize(e.status) : ''}${e.message ? ': ' + e.message : ''}</li>`)}</ol>
    </section>
    ${text && html`<section aria-labelledby="text-title"><h2 id="text-title">What the agent said</h2>
      <p class="muted">As it worked, before anyone decided on its proposals: the outcome above says where they stand.</p>
      <pre class="stream">${text}</pre></section>`}`;
}

/** What a mission cost so far. @param {{usage: api.Schemas['MissionUsageOut']}} props */
function Usage({ usage: u }) {
  return html`<p class="mission-usage muted" data-total-tokens=${u.totalTokens}>Cost: ${count(u.modelTurns)} ${u.modelTurns === 1 ? 'model turn' : 'model turns'} ·
    ${count(u.totalTokens)} tokens (${count(u.promptTokens)} read, ${count(u.completionTokens)} written) ·
    ${duration(u.wallSeconds)} in all, ${duration(u.waitingSeconds)} waiting for people</p>`;
}

/** What an agent tool does, in words. @type {Record<string, string>} */
const toolWords = { add_comment: 'post a comment', add_checklist_items: 'add checklist items', update_card: 'update the card',
  move_card: 'move the card', create_card: 'create a card', propose_pilotage_action: 'propose a cockpit action' };
/** @param {string} tool */
const toolInWords = (tool) => toolWords[tool] || tool.replace(/_/g, ' ');

/**
 * What became of the agent's actions, as they stand now: applied (at once, or approved), waiting for
 * approval, rejected, not applied. The agent's own words were written before anyone decided.
 * @param {{steps: MissionEvent[], proposals: Proposal[]|undefined}} props
 */
function Outcome({ steps, proposals }) {
  /** @type {Record<string, string[]>} */
  const by = { applied: [], pending: [], rejected: [], refused: [] };
  const seen = new Set();
  for (const e of steps) {
    if (e.type !== 'step' || !e.data?.stepKey || seen.has(e.data.stepKey)) continue;
    seen.add(e.data.stepKey);
    if (e.data.outcome === 'applied' || e.data.outcome === 'refused') by[e.data.outcome].push(toolInWords(e.data.tool || ''));
  }
  for (const p of proposals || []) {
    const k = p.status === 'approved' ? 'applied' : p.status;
    if (by[k]) by[k].push(toolInWords(p.tool));
  }
  const rows = /** @type {[string, string][]} */ ([['applied', 'Applied'], ['pending', 'Waiting for approval'], ['rejected', 'Rejected'], ['refused', 'Not applied']])
    .filter(([k]) => by[k].length);
  if (!rows.length) return null;
  return html`<section aria-labelledby="outcome-title"><h2 id="outcome-title">Outcome</h2>
    <ul class="outcome">${rows.map(([k, label]) => html`<li data-outcome=${k}><strong>${label}:</strong> ${by[k].join('; ')}</li>`)}</ul>
  </section>`;
}

/** Why a stopped mission stopped, in words. @type {Record<string, string>} */
const stopWords = { person: 'by a person', creator_left: 'its requester left the workspace', budget: 'it used up its budget' };

/** Stops the mission (confirmed): what it did stays, its pending proposals are rejected. @param {{params: Record<string,string>, objective: string, onDone: () => void}} props */
function Stop({ params, objective, onDone }) {
  return html`<p class="mission-stop"><${ConfirmButton} label="Stop the mission" className="secondary" title="Stop this mission?" confirmLabel="Stop the mission"
    detail=${html`<p>${objective}</p><p>The agent stops within a second; what it already did stays, and its pending proposals are rejected.</p>`}
    onConfirm=${async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/stop', params); announce('Mission stopped'); onDone(); }} /></p>`;
}

/** A stale mission (its worker fell silent) runs again under a new job. @param {{params: Record<string,string>, onDone: () => void}} props */
function Resume({ params, onDone }) {
  const [run, busy, error] = useAction();
  return html`<div class="mission-stale"><p>No news from the agent's worker for a while: the mission is stale. Resume it, or stop it.</p>
    <p><button disabled=${busy} onClick=${() => run(async () => { await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/resume', params); announce('Mission resumed'); onDone(); })}>Resume the mission</button></p>
    <${ErrorMessage} error=${error} /></div>`;
}

/**
 * The agent's question with its options as buttons and a box for any other answer; answering resumes
 * the mission.
 * @param {{params: Record<string,string>, q: api.Schemas['MissionQuestionOut'], onDone: () => void}} props
 */
function Question({ params, q, onDone }) {
  const [run, busy, error] = useAction();
  const [answer, setAnswer] = useState('');
  const reply = (/** @type {string} */ a) => run(async () => {
    await api.post('/orgs/{orgSlug}/workspaces/{wsSlug}/missions/{missionId}/reply', params, { answer: a });
    announce('Answer sent'); setAnswer(''); onDone();
  });
  return html`<section class="mission-question" aria-labelledby="question-title"><h2 id="question-title">The agent asks</h2>
    <p class="question-text">${q.question}</p>
    ${q.options.length > 0 && html`<p class="actions question-options">${q.options.map((o) => html`<button type="button" disabled=${busy} onClick=${() => reply(o)}>${o}</button>`)}</p>`}
    <form onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); if (answer.trim()) reply(answer.trim()); }}>
      <label for="mission-answer">${q.options.length > 0 ? 'Or answer in your words' : 'Your answer'}</label>
      <textarea id="mission-answer" rows="2" maxlength="4000" value=${answer} onInput=${(/** @type {any} */ e) => setAnswer(e.currentTarget.value)}></textarea>
      <p><button type="submit" disabled=${busy || !answer.trim()}>Send the answer</button>
        <span class="muted"> Unanswered, the mission expires <${When} iso=${q.deadline} />.</span></p>
    </form>
    <${ErrorMessage} error=${error} /></section>`;
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
  return html`<li class="proposal" data-proposal-id=${p.id} data-tool=${p.tool}>
    <p><strong>${toolInWords(p.tool)}</strong> · <span class=${'status ' + p.status}>${humanize(p.status)}</span></p>
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
