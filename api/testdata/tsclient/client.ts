// A small client of Pilot's API, typed by the declarations openapi-typescript generates from the OpenAPI
// document (./schema.d.ts, written by api/openapi_client_test.go, which type-checks this file with tsc).
// It never runs: what it proves is that the document types what a client does.
import type { components, paths } from "./schema";

type Schemas = components["schemas"];
type Path = keyof paths;
type JSONBody<P extends Path, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
type JSONAnswer<P extends Path, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { "application/json": infer R } } };
}
  ? R
  : never;

const cards = "/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/cards" as const;
const scope = "/orgs/{orgSlug}/workspaces/{wsSlug}/projects/{projectId}/scopes/{scopeId}" as const;

async function call<T>(base: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) {
    const err = (await r.json()) as Schemas["ErrorBody"];
    throw new Error(`${r.status} ${err.message}`);
  }
  return (await r.json()) as T;
}

export async function demo(base: string, orgSlug: string, wsSlug: string, projectId: string, scopeId: string): Promise<string> {
  const login: JSONBody<"/auth/login", "post"> = { email: "ada@example.com", password: "correct horse battery" };
  const session = await call<JSONAnswer<"/auth/login", "post", 200>>(base, "POST", "/auth/login", undefined, login);
  const token: string | undefined = session.access_token;
  const prefix = `/orgs/${orgSlug}/workspaces/${wsSlug}/projects/${projectId}`;

  const create: JSONBody<typeof cards, "post"> = { title: "Write the launch post", priority: "high", checklist: [{ title: "Draft" }] };
  const card = await call<JSONAnswer<typeof cards, "post", 201>>(base, "POST", `${prefix}/cards`, token, create);
  // The card's parts are typed, not unknown.
  const open: string[] = card.checklist.filter((i) => !i.done).map((i) => i.title);
  const colours: string[] = card.labels.map((l) => l.color.toUpperCase());
  const fields: Record<string, unknown> = card.customFields;

  const list = await call<JSONAnswer<typeof cards, "get", 200>>(base, "GET", `${prefix}/cards`, token);
  const titles: string[] = list.map((c: Schemas["CardOut"]) => c.title);

  // A scope's settings are an object; null clears them.
  const patch: JSONBody<typeof scope, "patch"> = { settings: { theme: "dark", wip: 3, tags: ["a"] } };
  const clear: JSONBody<typeof scope, "patch"> = { settings: null };
  const updated = await call<JSONAnswer<typeof scope, "patch", 200>>(base, "PATCH", `${prefix}/scopes/${scopeId}`, token, patch);
  await call<Schemas["ScopeOut"]>(base, "PATCH", `${prefix}/scopes/${scopeId}`, token, clear);
  const settings: { [key: string]: unknown } = updated.settings;

  return [card.id, ...open, ...colours, ...Object.keys(fields), ...titles, ...Object.keys(settings)].join(",");
}
