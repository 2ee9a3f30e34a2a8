// @ts-check
// Signing up, in (with the second factor) and out, password recovery, e-mail verification, and
// invitations opened from their e-mail's link.
import { html, useState, useEffect, ErrorMessage, useAction, formValues, Loading } from './ui.js';
import * as api from './api.js';
import { navigate } from './router.js';
import { session } from './session.js';
import { useInvitation, InvitationDetails } from './team.js';
import { useProviders, ProviderButtons } from './sso.js';

/** Where to go after signing in: the next= path when it is one of ours. @param {URLSearchParams} q */
function nextPath(q) {
  const n = q.get('next') || '/';
  return n.startsWith('/') && !n.startsWith('//') ? n : '/';
}

/** @param {{title: string, children?: any}} props */
function AuthPage({ title, children }) {
  return html`<main id="main" class="auth">
    <h1 class="brand">Pilot</h1>
    <section class="panel" aria-labelledby="auth-title">
      <h2 id="auth-title">${title}</h2>
      ${children}
    </section>
  </main>`;
}

/** @param {{query: URLSearchParams}} props */
export function SignIn({ query }) {
  const [run, busy, error] = useAction();
  const [twoFactor, setTwoFactor] = useState('');
  const next = nextPath(query);
  const providers = useProviders();
  /** @param {api.Schemas['SessionBody']} s */
  const done = async (s) => {
    await session.start(s.csrfToken);
    navigate(next, { replace: true });
  };
  if (twoFactor) {
    return html`<${AuthPage} title="Two-factor authentication">
      <form onSubmit=${(/** @type {Event} */ e) => { const v = formValues(e); run(async () => done(await api.post('/auth/2fa/verify', {}, { twoFactorToken: twoFactor, code: v.code.trim() }))); }}>
        <label for="code">Code from your authenticator app, or a recovery code</label>
        <input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" required autofocus />
        <${ErrorMessage} error=${error} />
        <button type="submit" disabled=${busy}>Verify</button>
      </form>
    <//>`;
  }
  const passwords = providers.data?.passwordLogin !== false;
  return html`<${AuthPage} title="Sign in">
    <${ProviderButtons} providers=${providers.data} next=${next} />
    ${passwords && html`<form onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      run(async () => {
        const s = await api.post('/auth/login', {}, { email: v.email.trim(), password: v.password });
        if (s.twoFactorRequired) setTwoFactor(s.twoFactorToken || '');
        else await done(s);
      });
    }}>
      <label for="email">E-mail</label>
      <input id="email" name="email" type="email" autocomplete="username" required autofocus />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
    <p><a href=${'/sign-up' + (next !== '/' ? '?next=' + encodeURIComponent(next) : '')}>Create an account</a> · <a href="/forgot-password">Forgot your password?</a></p>`}
  <//>`;
}

/** @param {{query: URLSearchParams}} props */
export function SignUp({ query }) {
  const [run, busy, error] = useAction();
  const next = nextPath(query);
  return html`<${AuthPage} title="Create your account">
    <form onSubmit=${(/** @type {Event} */ e) => {
      const v = formValues(e);
      run(async () => {
        const s = await api.post('/auth/register', {}, { name: v.name.trim(), email: v.email.trim(), password: v.password });
        await session.start(s.csrfToken);
        navigate(next, { replace: true });
      });
    }}>
      <label for="name">Name</label>
      <input id="name" name="name" autocomplete="name" autofocus />
      <label for="email">E-mail</label>
      <input id="email" name="email" type="email" autocomplete="username" required />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" aria-describedby="pw-hint" />
      <p id="pw-hint" class="hint">At least 8 characters.</p>
      <${ErrorMessage} error=${error} />
      <button type="submit" disabled=${busy}>Create account</button>
    </form>
    <p>Already have an account? <a href=${'/sign-in' + (next !== '/' ? '?next=' + encodeURIComponent(next) : '')}>Sign in</a></p>
  <//>`;
}

export function ForgotPassword() {
  const [run, busy, error] = useAction();
  const [sent, setSent] = useState(false);
  return html`<${AuthPage} title="Forgot your password?">
    ${sent
      ? html`<p role="status">If an account uses that address, an e-mail with a link to choose a new password is on its way.</p>`
      : html`<form onSubmit=${(/** @type {Event} */ e) => { const v = formValues(e); run(async () => { await api.post('/auth/forgot-password', {}, { email: v.email.trim() }); setSent(true); }); }}>
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" required autofocus />
          <${ErrorMessage} error=${error} />
          <button type="submit" disabled=${busy}>Send the link</button>
        </form>`}
    <p><a href="/sign-in">Back to sign in</a></p>
  <//>`;
}

/** @param {{query: URLSearchParams}} props */
export function ResetPassword({ query }) {
  const [run, busy, error] = useAction();
  const [done, setDone] = useState(false);
  const token = query.get('token') || '';
  return html`<${AuthPage} title="Choose a new password">
    ${!token ? html`<p class="error" role="alert">This link has no token: open the link from the e-mail again.</p>` : done
      ? html`<p role="status">Your password is changed. Every other session was signed out.</p><p><a href="/sign-in">Sign in</a></p>`
      : html`<form onSubmit=${(/** @type {Event} */ e) => { const v = formValues(e); run(async () => { await api.post('/auth/reset-password', {}, { token, newPassword: v.password }); setDone(true); }); }}>
          <label for="password">New password</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" autofocus />
          <${ErrorMessage} error=${error} />
          <button type="submit" disabled=${busy}>Change password</button>
        </form>`}
  <//>`;
}

/** @param {{query: URLSearchParams}} props */
export function VerifyEmail({ query }) {
  const token = query.get('token') || '';
  const [state, setState] = useState(/** @type {'busy'|'done'|unknown} */ ('busy'));
  useEffect(() => {
    if (!token) { setState(new Error('This link has no token: open the link from the e-mail again.')); return; }
    api.post('/auth/verify-email', {}, { token }).then(() => setState('done'), (e) => setState(e));
  }, [token]);
  return html`<${AuthPage} title="Verify your e-mail">
    ${state === 'busy' ? html`<${Loading} label="Verifying…" />` : state === 'done'
      ? html`<p role="status">Your e-mail address is verified.</p><p><a href="/">Continue</a></p>`
      : html`<${ErrorMessage} error=${state} />`}
  <//>`;
}

/**
 * An invitation opened from its e-mail: sign in or up first (coming back here), then accept and land in
 * the workspace (or the organization's first workspace).
 * @param {{token: string, kind: 'workspace'|'organization', path: string}} props
 */
export function AcceptInvitation({ token, kind, path }) {
  const [run, busy, error] = useAction();
  const invitation = useInvitation(token, kind);
  const user = session.user;
  const next = encodeURIComponent(path);
  const open = invitation.data?.status === 'pending';
  if (!user) {
    return html`<${AuthPage} title="You are invited">
      <${InvitationDetails} invitation=${invitation} />
      <p>Sign in, or create an account with the address the invitation was sent to, to accept it.</p>
      <p class="actions"><a class="button" href=${'/sign-in?next=' + next}>Sign in</a> <a class="button secondary" href=${'/sign-up?next=' + next}>Create an account</a></p>
    <//>`;
  }
  const accept = () => run(async () => {
    if (kind === 'workspace') {
      const r = await api.post('/invitations/{token}/accept', { token });
      await session.refreshPlaces();
      navigate(`/w/${r.organizationSlug}/${r.workspace.slug}`, { replace: true });
    } else {
      const r = await api.post('/organization-invitations/{token}/accept', { token });
      await session.refreshPlaces();
      const wss = await api.get('/orgs/{orgSlug}/workspaces', { orgSlug: r.organization.slug });
      navigate(wss.length ? `/w/${r.organization.slug}/${wss[0].slug}` : '/', { replace: true });
    }
  });
  return html`<${AuthPage} title="You are invited">
    <${InvitationDetails} invitation=${invitation} />
    <p>You are signed in as <strong>${user.email}</strong>.</p>
    <${ErrorMessage} error=${error} />
    ${open ? html`<p class="actions"><button onClick=${accept} disabled=${busy}>Accept the invitation</button></p>`
      : invitation.data || invitation.error ? html`<p><a href="/">Go to your workspace</a></p>` : null}
  <//>`;
}
