/**
 * The channel a request came through, recorded in its audit event (src/domain/audit): `api` (a
 * program with an API key), `admin` (the administration API or CLI), `console` (the operator
 * console, a client of the API) or `mcp` (the in-process requests of the MCP server). A request
 * nobody marked is `admin` on an administration operation and `api` otherwise; the console and
 * the MCP server mark theirs with {@link markRequestChannel}.
 *
 * @module http/requestChannel
 */
import type { Request } from 'express';

/** The channels of a request. */
export type RequestChannel = 'api' | 'admin' | 'console' | 'mcp';

const channels = new WeakMap<object, RequestChannel>();

/** Marks `req` as having come through `channel` (before the audit hook reads it). */
export function markRequestChannel(req: Request | object, channel: RequestChannel): void {
  channels.set(req, channel);
}

/** The channel `req` was marked with, else `admin` for an `/admin/` path and `api` otherwise. */
export function channelOf(req: Request): RequestChannel {
  return channels.get(req) ?? ((req.originalUrl ?? req.url ?? '').startsWith('/admin/') ? 'admin' : 'api');
}
