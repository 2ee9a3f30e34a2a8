// @ts-check
// Signing in with the deployment's OpenID Connect providers: a button per provider on the sign-in page
// (each a navigation to the api's start route, which leaves for the provider and comes back signed in),
// and the providers' identities linked to the account on /settings, each unlinked while the account
// keeps another way to sign in; "Link <provider>" links one more to the signed-in account (the
// provider's sign-in, then back to /settings linked, not signed in anew).
import { html, useState, useLoad, useAction, ErrorMessage, ConfirmButton, When, Loading } from './ui.js';
import * as api from './api.js';

/** How people may sign in here: the providers, and whether passwords do. */
export function useProviders() {
  return useLoad((s) => api.get('/auth/providers', {}, undefined, s), []);
}

/**
 * A button per provider; next is the path to land on once signed in.
 * @param {{providers: api.Schemas['ProvidersOut']|undefined, next: string}} props
 */
export function ProviderButtons({ providers, next }) {
  const list = providers?.providers || [];
  if (list.length === 0) return null;
  const back = next !== '/' ? '?returnTo=' + encodeURIComponent(next) : '';
  // data-native: a navigation out of the app (to the provider), never the app's own router.
  return html`<div class="sso-buttons">
    ${list.map((p) => html`<a class="button sso" data-native data-provider=${p.id} href=${p.startUrl + back}>Sign in with ${p.name}</a>`)}
    ${providers?.passwordLogin && html`<p class="muted sso-or">or with your e-mail and password</p>`}
  </div>`;
}

/** The providers' identities linked to the signed-in account. */
export function LinkedIdentities() {
  const list = useLoad((s) => api.get('/auth/identities', {}, undefined, s), []);
  const providers = useProviders();
  const [done, setDone] = useState('');
  const [run, linking, linkError] = useAction();
  const ids = list.data || [];
  const offered = providers.data?.providers || [];
  if (!list.loading && ids.length === 0 && offered.length === 0 && !list.error) return null;
  return html`<section class="panel" aria-labelledby="identities-h">
    <h2 id="identities-h">Sign-in providers</h2>
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : ids.length === 0
      ? html`<p class="muted">No provider is linked to your account. Link one to sign in with it.</p>`
      : html`<ul class="identities">${ids.map((x) => html`<li data-identity=${x.id}>
          <strong>${x.providerName}</strong> ${x.email && html`<span>${x.email}</span>`}
          <span class="muted">linked <${When} iso=${x.createdAt} />, last used <${When} iso=${x.lastUsedAt} /></span>
          <${ConfirmButton} label="Unlink" title=${`Unlink ${x.providerName}?`}
            detail=${`You will no longer sign in with ${x.providerName} as ${x.email || 'this identity'}. Your account needs another way to sign in: a password, or another provider.`}
            onConfirm=${async () => { await api.del('/auth/identities/{identityId}', { identityId: x.id }); setDone(`${x.providerName} is unlinked.`); list.reload(); }} />
        </li>`)}</ul>`}
    ${offered.length > 0 && html`<p class="sso-link">${offered.map((p) => html`<button type="button" class="secondary" data-link-provider=${p.id} disabled=${linking}
        onClick=${() => run(async () => {
          const r = await api.post('/auth/identities/link', {}, { provider: p.id, returnTo: '/settings' });
          location.assign(r.url); // to the provider, then back here linked
        })}>Link ${p.name}</button>`)}</p>`}
    <${ErrorMessage} error=${linkError} />
    ${done && html`<p role="status">${done}</p>`}
  </section>`;
}
