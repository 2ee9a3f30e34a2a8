// @ts-check
// The organization settings' "Sign-in domains": its owners and admins name the e-mail domains of its
// people; whoever's address at one of them is verified joins the organization as a member.
import { html, useLoad, useAction, ErrorMessage, Loading, ConfirmButton, When, formValues, announce } from './ui.js';
import * as api from './api.js';

const ORG_DOMAINS = '/organizations/{orgSlug}/domains';
const ORG_DOMAIN = '/organizations/{orgSlug}/domains/{domainId}';

// A hostname of at least two labels, as the API checks it (lower case once trimmed).
const DOMAIN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** @param {{org: string, name: string}} props */
export function SignInDomains({ org, name }) {
  const params = { orgSlug: org };
  const list = useLoad((s) => api.get(ORG_DOMAINS, params, undefined, s), [org]);
  const [run, busy, error, setError] = useAction();
  const domains = list.data || [];
  return html`<section class="panel" aria-labelledby="org-domains-h">
    <h2 id="org-domains-h">Sign-in domains</h2>
    <p>People whose e-mail address at one of these domains is verified join ${name} as members, without an
      invitation: when they first sign in with single sign-on and the provider says their address is verified,
      or when they follow the link Pilot e-mails to verify it. Signing up with a password alone never joins.
      A domain belongs to one organization only.</p>
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : domains.length === 0
      ? html`<p class="muted">No sign-in domains yet: people join only by invitation. Add your company's domain to let its people in.</p>`
      : html`<ul class="org-domains">${domains.map((d) => html`<li key=${d.id}>
          <code>${d.domain}</code> <span class="muted">added <${When} iso=${d.createdAt} /></span>
          <${ConfirmButton} label=${`Remove ${d.domain}`} title=${`Remove the sign-in domain ${d.domain}?`}
            detail=${html`<p>People of ${d.domain} who joined stay members; nobody joins by it any more.</p>`}
            confirmLabel="Remove" onConfirm=${async () => {
              await api.del(ORG_DOMAIN, { orgSlug: org, domainId: d.id });
              list.set((all) => (all || []).filter((x) => x.id !== d.id));
              announce(`${d.domain} removed`);
            }} />
        </li>`)}</ul>`}
    <form class="inline-form" noValidate onSubmit=${(/** @type {Event} */ e) => {
        const form = /** @type {HTMLFormElement} */ (e.currentTarget);
        const domain = String(formValues(e).domain || '').trim().toLowerCase().replace(/^@/, '');
        if (!DOMAIN.test(domain)) {
          setError(new Error(domain ? `"${domain}" is not a domain: give a name like example.com.` : 'Give a domain, like example.com.'));
          return;
        }
        run(async () => {
          const d = await api.post(ORG_DOMAINS, params, { domain });
          list.set((all) => [...(all || []), d]);
          form.reset();
          announce(`${d.domain} added`);
        });
      }}>
      <label for="org-domain">Domain</label>
      <input id="org-domain" name="domain" placeholder="example.com" maxlength="253" autocomplete="off"
        aria-describedby="org-domain-help" />
      <button type="submit" disabled=${busy}>Add the domain</button>
      <p id="org-domain-help" class="muted">Only the domain after the @, like example.com; its subdomains are not included.</p>
      <${ErrorMessage} error=${error} />
    </form>
  </section>`;
}
