// @ts-check
// Account settings (/settings): the profile, the e-mail address and the password; two-factor
// authentication and the signed-in sessions (/settings/security); personal access tokens
// (/settings/tokens); calendar feeds (/settings/calendar, calendarfeeds.js). The QR code library is loaded
// only when a person sets up two-factor authentication.
import { html, useState, useEffect, useRef, useLoad, useAction, ErrorMessage, Loading, When, formatDate, formValues,
  ConfirmButton, copyText, download, announce } from './ui.js';
import { LinkedIdentities } from './sso.js';
import { CalendarFeeds } from './calendarfeeds.js';
import * as api from './api.js';
import { session } from './session.js';

/** @typedef {api.Schemas['UserOut']} User */
/** @typedef {NonNullable<api.Schemas['CreateTokenInputBody']['scopes']>[number]} Scope */

const tabs = [
  { path: '/settings', label: 'Profile' },
  { path: '/settings/security', label: 'Security' },
  { path: '/settings/tokens', label: 'Access tokens' },
  { path: '/settings/calendar', label: 'Calendar feeds' },
];

/** @param {{path: string}} props */
export function Settings({ path }) {
  const tab = tabs.find((t) => t.path === path);
  if (!tab) return html`<h1>Page not found</h1><p>Nothing is at ${path}. <a href="/settings">Go to your account settings</a></p>`;
  return html`<div class="settings">
    <h1>Account settings</h1>
    <nav aria-label="Account settings" class="settings-tabs">
      ${tabs.map((t) => html`<a href=${t.path} aria-current=${t === tab ? 'page' : undefined}>${t.label}</a>`)}
    </nav>
    ${tab.path === '/settings' && html`<${Profile} /><${LinkedIdentities} />`}
    ${tab.path === '/settings/security' && html`<${TwoFactor} /><${Sessions} />`}
    ${tab.path === '/settings/tokens' && html`<${Tokens} />`}
    ${tab.path === '/settings/calendar' && html`<${CalendarFeeds} />`}
  </div>`;
}

/** Who is signed in, read again (its fields change on this screen). */
function useMe() {
  return useLoad((s) => api.get('/auth/me', {}, undefined, s), []);
}

/** Keeps the session's copy of the user in step with what the API answered. @param {User} u */
function remember(u) {
  if (session.user) Object.assign(session.user, u);
}

function Profile() {
  const me = useMe();
  const [run, busy, error] = useAction();
  const [saved, setSaved] = useState(false);
  const u = me.data?.user;
  if (!u) return html`<${ErrorMessage} error=${me.error} />${me.loading && html`<${Loading} />`}`;
  return html`<section class="panel" aria-labelledby="profile-h">
      <h2 id="profile-h">Profile</h2>
      <form onSubmit=${(/** @type {Event} */ e) => {
        const v = formValues(e);
        setSaved(false);
        run(async () => {
          const out = await api.patch('/auth/me', {}, { name: v.name.trim(), jobTitle: v.jobTitle.trim() });
          remember(out.user);
          me.set(out);
          setSaved(true);
          announce('Profile saved');
        });
      }}>
        <label for="profile-name">Name</label>
        <input id="profile-name" name="name" autocomplete="name" maxlength="100" defaultValue=${u.name} />
        <label for="profile-title">Job title</label>
        <input id="profile-title" name="jobTitle" autocomplete="organization-title" maxlength="100" defaultValue=${u.jobTitle} />
        <${ErrorMessage} error=${error} />
        <div class="actions"><button type="submit" disabled=${busy}>Save profile</button>${saved && html`<span class="muted" role="status">Saved.</span>`}</div>
      </form>
    </section>
    <${Email} user=${u} />
    <${Password} />`;
}

/** @param {{user: User}} props */
function Email({ user }) {
  const [run, busy, error] = useAction();
  const [sent, setSent] = useState(false);
  return html`<section class="panel" aria-labelledby="email-h">
    <h2 id="email-h">E-mail</h2>
    <p><strong>${user.email}</strong> ${user.emailVerified
      ? html`<span class="tag ok">Verified</span>`
      : html`<span class="tag warn">Not verified</span>`}</p>
    ${!user.emailVerified && html`<p class="hint">Open the link in the e-mail we sent to verify the address. It is valid for 24 hours.</p>
      ${sent
        ? html`<p role="status">A new link is on its way to ${user.email}.</p>`
        : html`<button type="button" class="secondary" disabled=${busy} onClick=${() => run(async () => { await api.post('/auth/verify-email/send'); setSent(true); })}>Send the link again</button>`}
      <${ErrorMessage} error=${error} />`}
  </section>`;
}

function Password() {
  const [run, busy, error, setError] = useAction();
  const [done, setDone] = useState(false);
  return html`<section class="panel" aria-labelledby="password-h">
    <h2 id="password-h">Password</h2>
    <form onSubmit=${(/** @type {Event} */ e) => {
      const form = /** @type {HTMLFormElement} */ (e.currentTarget);
      const v = formValues(e);
      setDone(false);
      if (v.newPassword !== v.confirm) { setError(new Error('The new password and its confirmation differ: type the same password twice.')); return; }
      run(async () => {
        const s = await api.post('/auth/change-password', {}, { currentPassword: v.currentPassword, newPassword: v.newPassword });
        api.setCsrf(s.csrfToken); // the answer opened this browser's new session
        form.reset();
        setDone(true);
      });
    }}>
      <label for="pw-current">Current password</label>
      <input id="pw-current" name="currentPassword" type="password" autocomplete="current-password" required />
      <label for="pw-new">New password</label>
      <input id="pw-new" name="newPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="128" aria-describedby="pw-new-hint" />
      <p id="pw-new-hint" class="hint">At least 8 characters. Every other device will be signed out.</p>
      <label for="pw-confirm">New password, again</label>
      <input id="pw-confirm" name="confirm" type="password" autocomplete="new-password" required minlength="8" maxlength="128" />
      <${ErrorMessage} error=${error} />
      ${done && html`<p role="status">Your password is changed. Every other session was signed out.</p>`}
      <button type="submit" disabled=${busy}>Change password</button>
    </form>
  </section>`;
}

/** The otpauth URL as a QR code, drawn here as SVG (uqr, loaded now); data-otpauth keeps the URL. @param {{text: string}} props */
function QrCode({ text }) {
  const [qr, setQr] = useState(/** @type {{size: number, data: boolean[][]}|null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  useEffect(() => {
    let live = true;
    import('./vendor/uqr.js').then((m) => { if (live) setQr(m.encode(text, { ecc: 'M', border: 4 })); },
      () => { if (live) setError(new Error('The QR code could not be drawn: type the key below into your app instead.')); });
    return () => { live = false; };
  }, [text]);
  if (error) return html`<${ErrorMessage} error=${error} />`;
  if (!qr) return html`<${Loading} label="Drawing the QR code…" />`;
  let d = '';
  qr.data.forEach((row, y) => row.forEach((dark, x) => { if (dark) d += `M${x} ${y}h1v1h-1z`; }));
  const box = `0 0 ${qr.size} ${qr.size}`;
  return html`<svg class="qr" viewBox=${box} role="img" aria-label="QR code for your authenticator app" data-otpauth=${text} shape-rendering="crispEdges">
    <rect width=${qr.size} height=${qr.size} fill="#fff" /><path d=${d} fill="#000" />
  </svg>`;
}

/** Recovery codes, shown once, to copy or download. @param {{codes: string[], onDone: () => void}} props */
function RecoveryCodes({ codes, onDone }) {
  const ref = useRef(/** @type {HTMLElement|null} */ (null));
  const [copied, setCopied] = useState(false);
  useEffect(() => { ref.current?.focus(); }, []);
  const text = codes.join('\n') + '\n';
  return html`<section class="recovery" tabindex="-1" ref=${ref} aria-labelledby="recovery-h">
    <h3 id="recovery-h">Your recovery codes</h3>
    <p>Each code signs you in once if you lose your authenticator. Keep them somewhere safe: <strong>they are shown only now</strong>.</p>
    <ul class="codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
    <div class="actions">
      <button type="button" class="secondary" onClick=${async () => setCopied(await copyText(text))}>Copy the codes</button>
      <button type="button" class="secondary" onClick=${() => download('pilot-recovery-codes.txt', text)}>Download the codes</button>
      <button type="button" onClick=${onDone}>I have saved them</button>
      ${copied && html`<span class="muted" role="status">Copied.</span>`}
    </div>
  </section>`;
}

/**
 * The current password and a code, then a confirmation, for the two-factor changes that need both.
 * @param {{id: string, label: string, title: string, detail: string, onConfirm: (v: {password: string, code: string}) => Promise<unknown>}} props
 */
function PasswordAndCode({ id, label, title, detail, onConfirm }) {
  const box = useRef(/** @type {HTMLDivElement|null} */ (null));
  /** @param {string} name */
  const field = (name) => /** @type {HTMLInputElement|null} */ (box.current?.querySelector(`input[name="${name}"]`));
  return html`<div ref=${box} class="inline-fields">
    <div><label for=${id + '-password'}>Current password</label>
      <input id=${id + '-password'} name="password" type="password" autocomplete="current-password" required /></div>
    <div><label for=${id + '-code'}>Code from your app, or a recovery code</label>
      <input id=${id + '-code'} name="code" autocomplete="one-time-code" required /></div>
    <${ConfirmButton} label=${label} title=${title} detail=${detail} onConfirm=${async () => {
      const password = field('password')?.value || '';
      const code = (field('code')?.value || '').trim();
      if (!password || !code) throw new Error('Type your current password and a code first.');
      await onConfirm({ password, code });
      for (const n of ['password', 'code']) { const f = field(n); if (f) f.value = ''; }
    }} />
  </div>`;
}

function TwoFactor() {
  const me = useMe();
  const [run, busy, error] = useAction();
  const [setup, setSetup] = useState(/** @type {api.Schemas['TwoFactorSetupOutputBody']|null} */ (null));
  const [codes, setCodes] = useState(/** @type {string[]|null} */ (null));
  const u = me.data?.user;
  /** @param {User} user */
  const changed = (user) => { remember(user); me.set((d) => ({ ...d, user })); };
  let body;
  if (!u) body = html`<${ErrorMessage} error=${me.error} />${me.loading && html`<${Loading} />`}`;
  else if (codes) {
    body = html`<${RecoveryCodes} codes=${codes} onDone=${() => { setCodes(null); announce('Two-factor authentication is on'); }} />`;
  } else if (u.twoFactorEnabled) {
    body = html`<p><span class="tag ok">On</span> Signing in asks for a code from your authenticator app, or a recovery code.</p>
      <h3>New recovery codes</h3>
      <p class="hint">Ten new codes replace the ones you have, which stop working.</p>
      <${PasswordAndCode} id="renew" label="Renew recovery codes" title="Renew your recovery codes?"
        detail="Your current recovery codes will stop working; the new ones are shown once."
        onConfirm=${async (/** @type {{password: string, code: string}} */ v) => { setCodes((await api.post('/auth/2fa/recovery-codes', {}, v)).recoveryCodes || []); }} />
      <h3>Turn off</h3>
      <p class="hint">Signing in will ask for your password only.</p>
      <${PasswordAndCode} id="disable" label="Turn off two-factor authentication" title="Turn off two-factor authentication?"
        detail="Your authenticator app and recovery codes will no longer be asked for, nor accepted."
        onConfirm=${async (/** @type {{password: string, code: string}} */ v) => {
          const out = await api.post('/auth/2fa/disable', {}, v);
          changed({ ...u, twoFactorEnabled: out.twoFactorEnabled });
          announce('Two-factor authentication is off');
        }} />`;
  } else if (!setup) {
    body = html`<p><span class="tag warn">Off</span> Signing in asks for your password only. With two-factor authentication, it also asks for a code from an authenticator app on your phone.</p>
      <${ErrorMessage} error=${error} />
      <button type="button" disabled=${busy} onClick=${() => run(async () => setSetup(await api.post('/auth/2fa/setup')))}>Set up two-factor authentication</button>`;
  } else {
    body = html`<ol class="steps">
        <li><p>Scan this QR code with your authenticator app:</p><${QrCode} text=${setup.otpauthUrl} />
          <p>Or type this key into the app: <code class="secret" data-secret=${setup.secret}>${setup.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
            <button type="button" class="link" onClick=${() => copyText(setup.secret)}>Copy the key</button></p></li>
        <li><p>Type your password and the six-digit code the app shows:</p>
          <form onSubmit=${(/** @type {Event} */ e) => {
            const v = formValues(e);
            run(async () => {
              const out = await api.post('/auth/2fa/enable', {}, { password: v.password, code: v.code.replace(/\s/g, '') });
              setSetup(null);
              setCodes(out.recoveryCodes || []);
              changed({ ...u, twoFactorEnabled: out.twoFactorEnabled });
            });
          }}>
            <label for="tf-password">Current password</label>
            <input id="tf-password" name="password" type="password" autocomplete="current-password" required />
            <label for="tf-code">Six-digit code</label>
            <input id="tf-code" name="code" autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]{6,7}" required aria-describedby="tf-code-hint" />
            <p id="tf-code-hint" class="hint">A new code shows every 30 seconds.</p>
            <${ErrorMessage} error=${error} />
            <div class="actions"><button type="submit" disabled=${busy}>Turn on</button>
              <button type="button" class="secondary" onClick=${() => setSetup(null)}>Cancel</button></div>
          </form></li>
      </ol>`;
  }
  return html`<section class="panel" aria-labelledby="tf-h"><h2 id="tf-h">Two-factor authentication</h2>${body}</section>`;
}

function Sessions() {
  const list = useLoad((s) => api.get('/auth/sessions', {}, undefined, s), []);
  const [ended, setEnded] = useState('');
  const others = (list.data || []).filter((x) => !x.current);
  return html`<section class="panel" aria-labelledby="sessions-h">
    <h2 id="sessions-h">Where you are signed in</h2>
    <${ErrorMessage} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : html`<div class="table-wrap"><table class="settings-table">
      <caption class="visually-hidden">Your sessions</caption>
      <thead><tr><th scope="col">Device</th><th scope="col">Address</th><th scope="col">Last seen</th><th scope="col">Signed in</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${(list.data || []).map((x) => html`<tr class=${x.current ? 'current' : ''} data-session=${x.id}>
        <td>${x.device || 'Unknown device'}${x.current && html` <span class="tag ok">This device</span>`}</td>
        <td>${x.clientIp || '—'}</td>
        <td><${When} iso=${x.lastSeenAt} /></td>
        <td><${When} iso=${x.createdAt} /></td>
        <td>${x.current ? html`<a href="/sign-out">Sign out</a>` : html`<${ConfirmButton} label="End session"
          title=${`End the session on ${x.device || 'this device'}?`} detail="That device will be signed out at once."
          onConfirm=${async () => { await api.del('/auth/sessions/{sessionId}', { sessionId: x.id }); setEnded(`The session on ${x.device || 'that device'} ended.`); list.reload(); }} />`}</td>
      </tr>`)}</tbody>
    </table></div>
    ${others.length === 0 ? html`<p class="muted">Only this device is signed in.</p>` : html`<${ConfirmButton} label="Sign out every other device"
      title="Sign out every other device?" detail=${`${others.length} other ${others.length === 1 ? 'session' : 'sessions'} will end at once; this one stays.`}
      onConfirm=${async () => { const r = await api.post('/auth/sessions/revoke-others'); setEnded(`${r.revoked} ${r.revoked === 1 ? 'session' : 'sessions'} ended.`); list.reload(); }} />`}
    ${ended && html`<p role="status">${ended}</p>`}`}
  </section>`;
}

/** What each scope of a personal access token allows, in words. @type {Record<Scope, [string, string]>} */
const scopeWords = {
  'projects:read': ['Read projects', 'projects, columns, cards, comments and attachments'],
  'projects:write': ['Change projects', 'create, update and delete projects, columns, cards, comments and attachments'],
  'pilotage:read': ['Read the pilotage', 'missions, priorities, todos and decisions'],
  'pilotage:write': ['Change the pilotage', 'create and update missions, todos and decisions; propose actions'],
  'notifications:read': ['Notifications', 'read your notifications and mark them read'],
  'account:read': ['Read your profile', 'your name, e-mail address and job title'],
  'account:write': ['Change your profile', 'your name and job title'],
};
const scopes = /** @type {Scope[]} */ (Object.keys(scopeWords));

/** How long a new token lasts: days, or 0 for never. */
/** @type {[number, string][]} */
const lifetimes = [[7, '7 days'], [30, '30 days'], [90, '90 days'], [365, 'One year'], [0, 'No expiry']];

/** @param {{list: string[]|null}} props */
function ScopeList({ list }) {
  const known = (list || []).map((s) => scopeWords[/** @type {Scope} */ (s)]?.[0] || s);
  return known.length ? known.join(', ') : 'No scope';
}

function Tokens() {
  const list = useLoad((s) => api.getAll('/api-tokens', {}, undefined, s), []);
  const [run, busy, error, setError] = useAction();
  const [created, setCreated] = useState(/** @type {api.Schemas['CreatedTokenOut']|null} */ (null));
  const [copied, setCopied] = useState(false);
  const shown = useRef(/** @type {HTMLElement|null} */ (null));
  useEffect(() => { if (created) shown.current?.focus(); }, [created]);
  const now = Date.now();
  return html`<section class="panel" aria-labelledby="new-token-h">
      <h2 id="new-token-h">New personal access token</h2>
      <p class="hint">A token lets a script or another program use the API as you, with the scopes you choose: send it as <code>Authorization: Bearer …</code>.</p>
      <form onSubmit=${(/** @type {Event} */ e) => {
        const form = /** @type {HTMLFormElement} */ (e.currentTarget);
        const v = formValues(e);
        const picked = new FormData(form).getAll('scope');
        const chosen = scopes.filter((s) => picked.includes(s));
        if (!chosen.length) { setError(new Error('Choose at least one scope: what the token may do.')); return; }
        const days = Number(v.lifetime);
        run(async () => {
          const t = await api.post('/api-tokens', {}, { name: v.name.trim(), scopes: chosen,
            expiresAt: days ? new Date(now + days * 86400000).toISOString() : null });
          setCopied(false);
          setCreated(t);
          form.reset();
          const lifetime = /** @type {HTMLSelectElement|null} */ (form.querySelector('#token-lifetime'));
          if (lifetime) lifetime.value = '90'; // reset picks the first option: Preact sets selected, not the attribute
          list.reload();
        });
      }}>
        <label for="token-name">Name</label>
        <input id="token-name" name="name" required maxlength="100" aria-describedby="token-name-hint" />
        <p id="token-name-hint" class="hint">What it is for, such as "Nightly export".</p>
        <fieldset class="scopes">
          <legend>What it may do</legend>
          ${scopes.map((s) => html`<div class="scope"><input type="checkbox" id=${'scope-' + s.replace(':', '-')} name="scope" value=${s} />
            <label for=${'scope-' + s.replace(':', '-')}>${scopeWords[s][0]} <span class="muted">— ${scopeWords[s][1]}</span></label></div>`)}
        </fieldset>
        <label for="token-lifetime">Expires after</label>
        <select id="token-lifetime" name="lifetime">
          ${lifetimes.map(([d, l]) => html`<option value=${String(d)} selected=${d === 90}>${l}</option>`)}
        </select>
        <${ErrorMessage} error=${error} />
        <button type="submit" disabled=${busy}>Create token</button>
      </form>
      ${created && html`<section class="token-shown" tabindex="-1" ref=${shown} aria-labelledby="token-shown-h">
        <h3 id="token-shown-h">Your new token “${created.name}”</h3>
        <p>Copy it now: <strong>it is shown only once</strong>.</p>
        <p><code class="secret" data-token=${created.token}>${created.token}</code></p>
        <div class="actions">
          <button type="button" class="secondary" onClick=${async () => setCopied(await copyText(created.token))}>Copy the token</button>
          <button type="button" onClick=${() => setCreated(null)}>Done</button>
          ${copied && html`<span class="muted" role="status">Copied.</span>`}
        </div>
      </section>`}
    </section>
    <section class="panel" aria-labelledby="tokens-h">
      <h2 id="tokens-h">Your tokens</h2>
      <${ErrorMessage} error=${list.error} />
      ${list.loading && !list.data ? html`<${Loading} />` : !list.data?.length ? html`<p class="muted">No token yet. Create one above when a program needs to use the API as you.</p>` : html`<div class="table-wrap"><table class="settings-table">
        <caption class="visually-hidden">Your personal access tokens</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Starts with</th><th scope="col">May</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
        <tbody>${list.data.map((t) => html`<tr data-token-id=${t.id}>
          <td>${t.name}</td>
          <td><code>${t.prefix}…</code></td>
          <td><${ScopeList} list=${t.scopes} /></td>
          <td><${When} iso=${t.createdAt} /></td>
          <td>${t.lastUsedAt ? html`<${When} iso=${t.lastUsedAt} />` : html`<span class="muted">Never</span>`}</td>
          <td>${!t.expiresAt ? 'Never' : new Date(t.expiresAt).getTime() <= now ? html`<span class="tag warn">Expired</span>` : formatDate(t.expiresAt)}</td>
          <td><${ConfirmButton} label="Revoke" title=${`Revoke the token “${t.name}”?`}
            detail="Programs using it will be refused from their next request on. This cannot be undone."
            onConfirm=${async () => { await api.del('/api-tokens/{id}', { id: t.id }); announce(`Token ${t.name} revoked`); list.reload(); }} /></td>
        </tr>`)}</tbody>
      </table></div>`}
    </section>`;
}
