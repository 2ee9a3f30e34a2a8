// @ts-check
// Calendar feeds (docs/calendar.md): secret URLs a calendar application subscribes to. CalendarFeeds is
// the account settings' tab (/settings/calendar): a personal feed created, its URL shown once to copy,
// every feed listed and revoked. SubscribeCalendar is a project settings' section: a feed of the project.
import { html, useState, useEffect, useRef, useLoad, useAction, ErrorMessage, Loading, When, ConfirmButton, copyText,
  announce, humanize } from './ui.js';
import * as api from './api.js';

/** @typedef {api.Schemas['CreatedCalendarFeedOut']} CreatedFeed */

/** The URL of a feed just created, shown once, with a copy button. @param {{feed: CreatedFeed, onDone: () => void}} props */
function FeedShown({ feed, onDone }) {
  const [copied, setCopied] = useState(false);
  const shown = useRef(/** @type {HTMLElement|null} */ (null));
  useEffect(() => { shown.current?.focus(); }, [feed]);
  return html`<section class="token-shown" tabindex="-1" ref=${shown} aria-labelledby="feed-shown-h">
    <h3 id="feed-shown-h">Your calendar feed “${feed.name}”</h3>
    <p>Copy its address now and add it to your calendar application as a subscription (“From URL” in Google
      Calendar, “New Calendar Subscription” in Apple Calendar, “On the Network” in Thunderbird):
      <strong>it is shown only once</strong>. Anyone with the address can read the feed.</p>
    <p><code class="secret" data-feed-url=${feed.url}>${feed.url}</code></p>
    <div class="actions">
      <button type="button" class="secondary" onClick=${async () => setCopied(await copyText(feed.url))}>Copy the address</button>
      <button type="button" onClick=${onDone}>Done</button>
      ${copied && html`<span class="muted" role="status">Copied.</span>`}
    </div>
  </section>`;
}

/** The account's calendar feeds: create a personal one, list and revoke them all. */
export function CalendarFeeds() {
  const list = useLoad((s) => api.getAll('/calendar-feeds', {}, undefined, s), []);
  const [run, busy, error] = useAction();
  const [created, setCreated] = useState(/** @type {CreatedFeed|null} */ (null));
  return html`<section class="panel" aria-labelledby="new-feed-h">
      <h2 id="new-feed-h">Calendar feeds</h2>
      <p class="hint">A calendar feed shows the cards assigned to you that have a due or start date in your calendar
        application, in every workspace you can open, and stays up to date. To follow a whole project, open its settings.</p>
      <form onSubmit=${(/** @type {Event} */ e) => {
        e.preventDefault();
        const form = /** @type {HTMLFormElement} */ (e.currentTarget);
        const name = String(new FormData(form).get('name') || '').trim();
        run(async () => {
          setCreated(await api.post('/calendar-feeds', {}, { kind: 'personal', ...(name ? { name } : {}) }));
          form.reset();
          list.reload();
        });
      }}>
        <label for="feed-name">Name</label>
        <input id="feed-name" name="name" maxlength="100" placeholder="My cards" aria-describedby="feed-name-hint" />
        <p id="feed-name-hint" class="hint">Where you use it, such as "Phone"; the calendar shows it.</p>
        <${ErrorMessage} error=${error} />
        <button type="submit" disabled=${busy}>Create a feed of my cards</button>
      </form>
      ${created && html`<${FeedShown} feed=${created} onDone=${() => setCreated(null)} />`}
    </section>
    <section class="panel" aria-labelledby="feeds-h">
      <h2 id="feeds-h">Your calendar feeds</h2>
      <${ErrorMessage} error=${list.error} />
      ${list.loading && !list.data ? html`<${Loading} />` : !list.data?.length ? html`<p class="muted">No calendar feed yet. Create one above, or from a project's settings, to see your cards in your calendar.</p>` : html`<div class="table-wrap"><table class="settings-table">
        <caption class="visually-hidden">Your calendar feeds</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Shows</th><th scope="col">Starts with</th><th scope="col">Created</th><th scope="col">Last fetched</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${list.data.map((f) => html`<tr data-feed-id=${f.id}>
          <td>${f.name}</td>
          <td>${f.project ? html`${humanize(f.kind)}: <a href=${`/w/${f.project.organizationSlug}/${f.project.workspaceSlug}/p/${f.project.id}`}>${f.project.name}</a> <span class="muted">(${f.project.workspaceName})</span>` : 'Cards assigned to you'}</td>
          <td><code>${f.prefix}…</code></td>
          <td><${When} iso=${f.createdAt} /></td>
          <td>${f.lastFetchedAt ? html`<${When} iso=${f.lastFetchedAt} />` : html`<span class="muted">Never</span>`}</td>
          <td><${ConfirmButton} label="Revoke" title=${`Revoke the calendar feed “${f.name}”?`}
            detail="Calendars subscribed to it stop receiving updates. This cannot be undone."
            onConfirm=${async () => { await api.del('/calendar-feeds/{id}', { id: f.id }); announce(`Calendar feed ${f.name} revoked`); list.reload(); }} /></td>
        </tr>`)}</tbody>
      </table></div>`}
    </section>`;
}

/** A project settings' section: subscribe to the project in a calendar. @param {{projectId: string, name: string}} props */
export function SubscribeCalendar({ projectId, name }) {
  const [run, busy, error] = useAction();
  const [created, setCreated] = useState(/** @type {CreatedFeed|null} */ (null));
  return html`<section class="panel" aria-labelledby="settings-calendar">
    <h2 id="settings-calendar">Subscribe in a calendar</h2>
    <p class="hint">A calendar feed of ${name}: every card with a due or start date, whoever it is assigned to, kept up
      to date in your calendar application while you can open this project. <a href="/settings/calendar">Your calendar feeds</a> lists and revokes them.</p>
    <${ErrorMessage} error=${error} />
    ${created ? html`<${FeedShown} feed=${created} onDone=${() => setCreated(null)} />`
      : html`<button type="button" disabled=${busy} onClick=${() => run(async () => {
        setCreated(await api.post('/calendar-feeds', {}, { kind: 'project', projectId }));
      })}>Create a calendar feed of this project</button>`}
  </section>`;
}
