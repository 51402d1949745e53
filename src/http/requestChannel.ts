/**
 * The channel a request came through, recorded in its audit event (src/domain/audit): `api` (a
 * program with an API key), `admin` (the administration API or CLI), `console` (the operator
 * console, a client of the API) or `mcp` (the in-process requests of the MCP server).
 *
 * The MCP server marks its requests with {@link markRequestChannel}. The console is a page of
 * this server (src/http/console.ts) whose `Referrer-Policy: same-origin` lets the browser name it
 * in the `Referer` of its API calls, and only of those to this origin: a request the browser
 * says is same-origin (`Sec-Fetch-Site: same-origin`, Fetch Metadata,
 * https://www.w3.org/TR/fetch-metadata/#sec-fetch-site-header) from a page under `/console/` is
 * `console`. The channel describes a request, it grants nothing: a client that forges these
 * headers only mislabels its own events. Any other request is `admin` on an administration path
 * and `api` otherwise.
 *
 * @module http/requestChannel
 */
import type { Request } from 'express';

/** The channels of a request. */
export type RequestChannel = 'api' | 'admin' | 'console' | 'mcp';

/** Where the console is served (src/http/console.ts). */
const CONSOLE_PATH = '/console/';

const channels = new WeakMap<object, RequestChannel>();

/** Marks `req` as having come through `channel` (before the audit hook reads it). */
export function markRequestChannel(req: Request | object, channel: RequestChannel): void {
  channels.set(req, channel);
}

/** Whether the browser says `req` was sent by a page of the console on this origin (see the module comment). */
function fromConsole(req: Request): boolean {
  if (req.headers['sec-fetch-site'] !== 'same-origin') return false;
  const referer = req.headers.referer;
  if (!referer) return false;
  try {
    return new URL(referer).pathname.startsWith(CONSOLE_PATH);
  } catch {
    return false;
  }
}

/** The channel `req` was marked with; else `console` from the console; else `admin` for an `/admin/` path and `api` otherwise. */
export function channelOf(req: Request): RequestChannel {
  const marked = channels.get(req);
  if (marked) return marked;
  if (fromConsole(req)) return 'console';
  return (req.originalUrl ?? req.url ?? '').startsWith('/admin/') ? 'admin' : 'api';
}
