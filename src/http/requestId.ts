/**
 * Request ids: a client's `X-Request-Id` is kept when it is a short token, otherwise a UUID is
 * made; either way it is echoed in the response and tagged on every log line of the request.
 *
 * @module http/requestId
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id (src/http/requestLog.ts): picks it and sets the `X-Request-Id` response header. */
export function requestIdOf(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && ACCEPTED.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}
