// @ts-check
// Signing in with the deployment's OpenID Connect providers: a button per provider on the sign-in page
// (each a navigation to the api's start route, which leaves for the provider and comes back signed in),
// and the providers' identities linked to the account on /settings, each unlinked while the account
// keeps another way to sign in.
import { html, useState, useLoad, ErrorMessage, ConfirmButton, When, Loading } from './ui.js';
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
  const ids = list.data || [];
  const offered = providers.data?.providers || [];
  if (!list.loading && ids.length === 0 && offered.length === 0 && !list.error) return null;
  return html`<section class="panel" aria-labelledby="identities-h">
    <h2 id="identities-h">Sign-in providers</h2>
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : ids.length === 0
      ? html`<p class="muted">No provider is linked to your account. Sign out, then sign in with ${offered.map((p) => p.name).join(' or ')} to link it: your account is found by the e-mail address the provider verified.</p>`
      : html`<ul class="identities">${ids.map((x) => html`<li data-identity=${x.id}>
          <strong>${x.providerName}</strong> ${x.email && html`<span>${x.email}</span>`}
          <span class="muted">linked <${When} iso=${x.createdAt} />, last used <${When} iso=${x.lastUsedAt} /></span>
          <${ConfirmButton} label="Unlink" title=${`Unlink ${x.providerName}?`}
            detail=${`You will no longer sign in with ${x.providerName} as ${x.email || 'this identity'}. Your account needs another way to sign in: a password, or another provider.`}
            onConfirm=${async () => { await api.del('/auth/identities/{identityId}', { identityId: x.id }); setDone(`${x.providerName} is unlinked.`); list.reload(); }} />
        </li>`)}</ul>`}
    ${done && html`<p role="status">${done}</p>`}
  </section>`;
}
