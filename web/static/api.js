// @ts-check
// The REST API, typed by the OpenAPI document: api.d.ts is generated from it (openapi-typescript), so a
// path, a body or an answer the API no longer has fails the type-check (make lint).

/** @typedef {import('../api').paths} Paths */
/** @typedef {import('../api').components['schemas']} Schemas */
/** @typedef {'get'|'post'|'put'|'patch'|'delete'} Method */

/**
 * The paths that have method M.
 * @template {Method} M
 * @typedef {{[P in keyof Paths]: [NonNullable<Paths[P][M]>] extends [never] ? never : P}[keyof Paths]} PathWith
 */

/**
 * The JSON an operation answers on success.
 * @template {keyof Paths} P
 * @template {Method} M
 * @typedef {NonNullable<Paths[P][M]> extends {responses: infer R}
 *   ? (R extends {200: {content: {'application/json': infer B}}} ? B
 *     : R extends {201: {content: {'application/json': infer B}}} ? B
 *     : R extends {202: {content: {'application/json': infer B}}} ? B : void)
 *   : never} Reply
 */

/**
 * The JSON body an operation takes.
 * @template {keyof Paths} P
 * @template {Method} M
 * @typedef {NonNullable<Paths[P][M]> extends {requestBody?: {content: {'application/json': infer B}}} ? B : never} Body
 */

/**
 * The query parameters an operation takes.
 * @template {keyof Paths} P
 * @template {Method} M
 * @typedef {NonNullable<Paths[P][M]> extends {parameters: {query?: infer Q}} ? ([Q] extends [never] ? Record<string, never> : NonNullable<Q>) : never} QueryOf
 */

/** @typedef {Record<string, string>} PathParams */
/** @typedef {Record<string, string|number|boolean|undefined|null>} Query */

/** An error the API answered, in its error shape: message is what the person reads. */
export class ApiError extends Error {
  /** @param {number} status @param {string} message @param {any} [body] */
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

let csrfToken = '';
/** @param {string|undefined} t the session's CSRF token (login, auth/me) */
export function setCsrf(t) { csrfToken = t || ''; }

/** Called on a 401: the session is gone. */
let onUnauthorized = () => {};
/** @param {() => void} f */
export function whenUnauthorized(f) { onUnauthorized = f; }

/**
 * fills a path template (/orgs/{orgSlug}/…) with its parameters.
 * @param {string} path @param {PathParams} [params]
 */
export function fill(path, params) {
  return path.replace(/\{(\w+)\}/g, (_, k) => {
    const v = params?.[k];
    if (v === undefined) throw new Error('missing path parameter ' + k);
    return encodeURIComponent(v);
  });
}

/**
 * @param {string} method @param {string} path @param {PathParams} [params]
 * @param {{query?: Query, body?: any, form?: FormData, signal?: AbortSignal}} [opts]
 */
async function request(method, path, params, opts = {}) {
  return (await send(method, fill(path, params), path, opts)).data;
}

/**
 * @param {string} method @param {string} url the path, filled @param {string} path the template
 * @param {{query?: Query, body?: any, form?: FormData, signal?: AbortSignal}} opts
 * @returns {Promise<{data: any, res: Response}>}
 */
async function send(method, url, path, opts) {
  if (opts.query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
    const s = q.toString();
    if (s) url += '?' + s;
  }
  /** @type {Record<string,string>} */
  const headers = { Accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  let body;
  if (opts.form) body = opts.form;
  else if (opts.body !== undefined) { headers['Content-Type'] = 'application/json'; body = JSON.stringify(opts.body); }
  let res;
  try {
    res = await fetch(url, { method, headers, body, credentials: 'same-origin', signal: opts.signal });
  } catch (e) {
    if (e?.name === 'AbortError') throw e;
    throw new ApiError(0, 'The server cannot be reached. Check your connection and try again.');
  }
  const text = await res.text();
  let data;
  try { data = text ? JSON.parse(text) : undefined; } catch { data = undefined; }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/login') && !path.startsWith('/auth/2fa')) onUnauthorized();
    const msg = (data && typeof data.message === 'string' && data.message) || `${res.status} ${res.statusText || 'error'}`;
    const detail = data?.errors?.length ? ': ' + data.errors.map((/** @type {any} */ e) => e.message + (e.location ? ` (${e.location})` : '')).join('; ') : '';
    throw new ApiError(res.status, msg + detail, data);
  }
  return { data, res };
}

/** The target of a Link header's rel="next", when it names a path of ours. @param {string|null} link */
function nextLink(link) {
  if (!link) return null;
  for (const part of link.split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (m && m[1].startsWith('/') && !m[1].startsWith('//')) return m[1];
  }
  return null;
}

/**
 * Every item of a paged list: the first page, then each page the Link header names (rel="next") until
 * there is none.
 * @template {PathWith<'get'>} P
 * @param {P} path @param {PathParams} [params] @param {QueryOf<P, 'get'>} [query] @param {AbortSignal} [signal]
 * @returns {Promise<Reply<P, 'get'>>}
 */
export async function getAll(path, params, query, signal) {
  let { data, res } = await send('GET', fill(path, params), path, { query, signal });
  const all = Array.isArray(data) ? [...data] : data;
  for (let next = nextLink(res.headers.get('Link')), pages = 1; next && Array.isArray(all) && pages < 1000; pages++) {
    ({ data, res } = await send('GET', next, path, { signal }));
    all.push(...data);
    next = nextLink(res.headers.get('Link'));
  }
  return all;
}

/**
 * @template {PathWith<'get'>} P
 * @param {P} path @param {PathParams} [params] @param {QueryOf<P, 'get'>} [query] @param {AbortSignal} [signal]
 * @returns {Promise<Reply<P, 'get'>>}
 */
export function get(path, params, query, signal) { return request('GET', path, params, { query, signal }); }

/**
 * @template {PathWith<'post'>} P
 * @param {P} path @param {PathParams} [params] @param {Body<P, 'post'>} [body]
 * @returns {Promise<Reply<P, 'post'>>}
 */
export function post(path, params, body) { return request('POST', path, params, { body }); }

/**
 * @template {PathWith<'post'>} P
 * @param {P} path @param {PathParams} params @param {FormData} form
 * @param {(sent: number, total: number) => void} [onProgress] told of the bytes sent as they go
 * @returns {Promise<Reply<P, 'post'>>}
 */
export function upload(path, params, form, onProgress) {
  if (!onProgress) return request('POST', path, params, { form });
  // fetch reports no upload progress; XMLHttpRequest does.
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', fill(path, params));
    xhr.setRequestHeader('Accept', 'application/json');
    if (csrfToken) xhr.setRequestHeader('X-CSRF-Token', csrfToken);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total);
    xhr.onerror = () => reject(new ApiError(0, 'The server cannot be reached. Check your connection and try again.'));
    xhr.onload = () => {
      let data;
      try { data = xhr.responseText ? JSON.parse(xhr.responseText) : undefined; } catch { data = undefined; }
      if (xhr.status >= 200 && xhr.status < 300) { resolve(data); return; }
      if (xhr.status === 401) onUnauthorized();
      reject(new ApiError(xhr.status, (data && typeof data.message === 'string' && data.message) || `${xhr.status} error`, data));
    };
    xhr.send(form);
  });
}

/**
 * @template {PathWith<'patch'>} P
 * @param {P} path @param {PathParams} [params] @param {Body<P, 'patch'>} [body]
 * @returns {Promise<Reply<P, 'patch'>>}
 */
export function patch(path, params, body) { return request('PATCH', path, params, { body }); }

/**
 * @template {PathWith<'put'>} P
 * @param {P} path @param {PathParams} [params] @param {Body<P, 'put'>} [body]
 * @returns {Promise<Reply<P, 'put'>>}
 */
export function put(path, params, body) { return request('PUT', path, params, { body }); }

/**
 * @template {PathWith<'delete'>} P
 * @param {P} path @param {PathParams} [params]
 * @returns {Promise<Reply<P, 'delete'>>}
 */
export function del(path, params) { return request('DELETE', path, params); }

/**
 * A URL of the API for the browser to open itself (a download, an event stream).
 * @param {keyof Paths} path @param {PathParams} params
 */
export function href(path, params) { return fill(path, params); }

/** @param {unknown} e */
export function message(e) {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
