/**
 * The console's HTTP client: openapi-fetch (https://openapi-ts.dev/openapi-fetch/) typed from the
 * contract's generated `paths`, so every call is a public operation with its documented shapes.
 * The session (cookie and CSRF token, or the operator's token) is added by a middleware (see
 * {@link sessionHeaders}, set from src/session.tsx); errors are
 * JSON:API error documents (https://jsonapi.org/format/#error-objects) turned into {@link ApiError}.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../generated/api.d.ts';

export type Schemas = components['schemas'];

/** One JSON:API error object as the service sends it. */
export interface ApiErrorObject {
  status?: string;
  code?: string;
  title?: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string; header?: string };
}

/** A failed call: the HTTP status and the error objects of the answer (one made up when it had none). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: ApiErrorObject[],
  ) {
    super(errors.map((e) => e.detail ?? e.title ?? `HTTP ${status}`).join(' '));
  }

  /** The detail of the error whose `source.pointer` (or `parameter`) is `where`, if any. */
  at(where: string): string | undefined {
    const hit = this.errors.filter((e) => e.source?.pointer === where || e.source?.parameter === where);
    return hit.length ? hit.map((e) => e.detail).join(' ') : undefined;
  }
}

/**
 * How calls are authenticated. A person's session is the `HttpOnly` cookie the sign-in set
 * (`wps_session`, `__Host-wps_session` over HTTPS), which the browser sends by itself on this
 * origin; every state-changing call also sends the session's CSRF token as `X-CSRF-Token`
 * (double submit, https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html).
 * The operator's administration token, when the console works as the operator, goes as
 * `Authorization: Bearer` to `/admin/` paths only.
 */
let csrfToken: string | null = null;
let adminToken: string | null = null;
let onUnauthorized: () => void = () => {};

/** Sets the CSRF token of the person's session (from getSession or a sign-in answer), or none. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Sets the administration token sent to `/admin/` paths, or none. */
export function setAdminToken(token: string | null): void {
  adminToken = token;
}

/** What to do when the server answers 401 to a signed-in call (the session ended): back to sign-in. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Calls whose 401 is an answer to show (a refused sign-in), not an ended session. */
const SIGN_IN_PATHS = /^\/api\/v1\/(sign-in\/|invitation-acceptances|session$)/;

/** The headers a call to `path` with `method` needs besides the cookie: the CSRF token for changes, the administration token for `/admin/`. */
export function sessionHeaders(method: string, path: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (csrfToken && !SAFE_METHODS.has(method.toUpperCase())) headers['X-CSRF-Token'] = csrfToken;
  if (adminToken && path.startsWith('/admin/')) headers.Authorization = `Bearer ${adminToken}`;
  return headers;
}

function unauthorized(path: string, status: number): void {
  if (status === 401 && !SIGN_IN_PATHS.test(path)) onUnauthorized();
}

const auth: Middleware = {
  onRequest({ request }) {
    const path = new URL(request.url).pathname;
    for (const [name, value] of Object.entries(sessionHeaders(request.method, path))) request.headers.set(name, value);
    return request;
  },
  onResponse({ request, response }) {
    unauthorized(new URL(request.url).pathname, response.status);
    return response;
  },
};

/** The client of the contract, on the origin that served the console. */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(auth);

/** Turns an openapi-fetch answer into its data, or throws {@link ApiError}. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  throw toApiError(response.status, error);
}

/** Builds the {@link ApiError} of a status and parsed body (a JSON:API error document or anything else). */
export function toApiError(status: number, body: unknown): ApiError {
  const errors = (body as { errors?: ApiErrorObject[] } | undefined)?.errors;
  return new ApiError(status, Array.isArray(errors) && errors.length ? errors : [{ status: String(status), detail: `The server answered HTTP ${status}.` }]);
}

/**
 * A plain fetch on this origin with the session (its cookie, and the CSRF token for changes),
 * throwing {@link ApiError} on a non-2xx answer.
 */
export async function fetchWithSession(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = {
    ...sessionHeaders(init.method ?? 'GET', new URL(path, window.location.origin).pathname),
    ...(init.headers as Record<string, string> | undefined),
  };
  const res = await fetch(path, { ...init, credentials: 'same-origin', headers });
  unauthorized(new URL(path, window.location.origin).pathname, res.status);
  if (!res.ok) {
    const body = await res.json().catch(() => undefined);
    throw toApiError(res.status, body);
  }
  return res;
}

/**
 * Saves what `path` (path and query on this origin) answers as the file `name`: a download that
 * needs the session (a plain link would leave the console for the file's JSON errors). The answer is read into a `blob:`
 * URL and clicked as a download link (https://developer.mozilla.org/en-US/docs/Web/API/URL/createObjectURL_static).
 * @throws ApiError when the server answers an error.
 */
export async function downloadWithSession(path: string, name: string): Promise<void> {
  const res = await fetchWithSession(path);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await res.blob());
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
