// @ts-check
// The signed-in person: read from the session cookie (auth/session), with its CSRF token, and the places
// (organizations and workspaces) they can open.
import * as api from './api.js';

/** @typedef {api.Schemas['UserOut']} User */
/** @typedef {api.Schemas['OrganizationOut'] & {workspaces: api.Schemas['WorkspaceOut'][]}} Place */

const listeners = new Set();
const changed = () => listeners.forEach((f) => f());

export const session = {
  /** @type {User|null} */
  user: null,
  /** @type {Place[]} */
  places: [],
  /** @param {() => void} f */
  subscribe(f) { listeners.add(f); return () => { listeners.delete(f); }; },
  /**
   * Reads the session from its cookie; no session is not an error. /auth/session answers 200 either way,
   * so a signed-out visit logs no failed request in the browser's console (/auth/me would be a 401).
   */
  async load() {
    try {
      const s = await api.get('/auth/session');
      if (!s.signedIn || !s.user) throw new api.ApiError(401, 'not signed in');
      api.setCsrf(s.csrfToken);
      this.user = s.user;
      await this.refreshPlaces();
    } catch (e) {
      if (!(e instanceof api.ApiError) || e.status !== 401) throw e;
      this.user = null;
    }
    changed();
  },
  /** After a login or sign-up: the cookie is set; read who we are. @param {string|undefined} csrf */
  async start(csrf) {
    api.setCsrf(csrf);
    await this.load();
  },
  async refreshPlaces() {
    const orgs = await api.getAll('/organizations');
    this.places = await Promise.all(orgs.map(async (o) => ({ ...o, workspaces: await api.getAll('/orgs/{orgSlug}/workspaces', { orgSlug: o.slug }) })));
    changed();
  },
  async signOut() {
    try { await api.post('/auth/logout'); } finally {
      this.user = null;
      this.places = [];
      api.setCsrf('');
      changed();
    }
  },
  /** The session ended elsewhere (a 401). */
  lost() {
    if (!this.user) return;
    this.user = null;
    changed();
  },
};
