/**
 * The console's HTTP client: openapi-fetch (https://openapi-ts.dev/openapi-fetch/) typed from the
 * contract's generated `paths`, so every call is a public operation with its documented shapes.
 * The bearer token is added by a middleware from the session (src/session.tsx); errors are
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

let currentToken: string | null = null;
let onUnauthorized: () => void = () => {};

/** Sets the token sent as `Authorization: Bearer` and what to do when the server answers 401. */
export function setToken(token: string | null, unauthorized: () => void = () => {}): void {
  currentToken = token;
  onUnauthorized = unauthorized;
}

/** The `Authorization` header of the current session, for plain `fetch` calls (previews, CSV and .pkpass downloads). */
export function authHeader(): Record<string, string> {
  return currentToken ? { Authorization: `Bearer ${currentToken}` } : {};
}

const auth: Middleware = {
  onRequest({ request }) {
    if (currentToken) request.headers.set('Authorization', `Bearer ${currentToken}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) onUnauthorized();
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

/** A plain fetch with the session's token, throwing {@link ApiError} on a non-2xx answer. */
export async function fetchWithAuth(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(path, { ...init, headers: { ...authHeader(), ...(init.headers as Record<string, string> | undefined) } });
  if (res.status === 401) onUnauthorized();
  if (!res.ok) {
    const body = await res.json().catch(() => undefined);
    throw toApiError(res.status, body);
  }
  return res;
}

/**
 * Saves what `path` (path and query on this origin) answers as the file `name`: a download that
 * needs the session's token, which a plain link cannot send. The answer is read into a `blob:`
 * URL and clicked as a download link (https://developer.mozilla.org/en-US/docs/Web/API/URL/createObjectURL_static).
 * @throws ApiError when the server answers an error.
 */
export async function downloadWithAuth(path: string, name: string): Promise<void> {
  const res = await fetchWithAuth(path);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await res.blob());
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
