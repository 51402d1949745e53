/**
 * helmet's security headers (https://helmetjs.github.io/), computed once.
 *
 * With its default options every header helmet sets is a constant, yet `helmet()` runs a dozen
 * middlewares per request to set them (measured: about 4 % of the service's CPU on a pass read).
 * This runs helmet once against a recording response at start-up and then sets the recorded
 * headers on every response: the same headers, with the same values, from helmet itself.
 *
 * @module http/securityHeaders
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** The headers `helmet()` sets, as [name, value] pairs, in the order it sets them. */
export function helmetHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.push([name, String(value)]);
      return recorder;
    },
    removeHeader() {},
  };
  let called = false;
  helmet()({ method: 'GET', url: '/', headers: {} } as IncomingMessage, recorder as unknown as ServerResponse, () => (called = true));
  if (!called) throw new Error('helmet did not finish synchronously; its headers cannot be precomputed.');
  return headers;
}

/** Express middleware setting helmet's headers, computed once (see the module comment). */
export function securityHeaders(): RequestHandler {
  const headers = helmetHeaders();
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}
