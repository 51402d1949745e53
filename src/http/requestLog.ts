/**
 * Request logging: one line per request when its response is finished, with pino-http's fields
 * and messages (https://github.com/pinojs/pino-http#example-output) — `req { id, method, url,
 * remoteAddress }` (the URL redacted), `res { statusCode }`, `responseTime` in ms, and
 * `request completed`, `request errored` (status ≥ 500) or `request aborted` (the client went away
 * before the response ended) — and `req.log`, the request's logger, whose lines all carry `req`.
 *
 * Unlike pino-http, which makes two child loggers per request up front (pino serialises a child's
 * bindings into a string when it is made), `req.log` is made the first time something logs
 * through it, and the completion line only when its level is enabled. Those child loggers were
 * the request's largest allocation site among objects that outlived a young-generation GC
 * (≈ 7.7 KB per pass read, V8's sampling heap profiler at 1,000 reads per second); with the
 * validator's route table compiled once (patches/), a pass read went from ≈ 455–480 to
 * ≈ 417–437 µs of CPU (`npm run bench -- passesAndLoyalty`).
 *
 * `req.log` is one getter shared by every request, not a closure made per request: V8 allocates
 * the accessor pair of a getter defined with a new function in old space, where, dead or alive, it
 * keeps its getter, and through it the request and all it references, alive through every
 * young-generation GC until the next full one. With a per-request getter here and in the request
 * context (src/app.ts), ≈ 1.5 MB survived each scavenge and was promoted under an open loop of
 * 800 pass reads per second (`--trace-gc-nvp`, prototypes already fixed by src/http/listener.ts
 * `serveApp`); with shared getters, ≈ 0.25 MB.
 *
 * @module http/requestLog
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.ts';
import { redactUrl } from './redact.ts';
import { requestIdOf } from './requestId.ts';

declare module 'http' {
  interface IncomingMessage {
    /** The request id (src/http/requestId.ts). */
    id: string;
    /** The request's logger: every line carries `req { id, method, url, remoteAddress }`. */
    log: Logger;
  }
}

/** Where `req.log` keeps the request's logger once it is made. */
const madeLogger = Symbol('requestLogger');

/** What every line of a request carries under `req`. */
function requestFields(req: IncomingMessage & { originalUrl?: string }) {
  return { id: req.id, method: req.method, url: redactUrl(req.originalUrl ?? req.url ?? ''), remoteAddress: req.socket?.remoteAddress };
}

/**
 * The request logging middleware (see the module).
 * @param logger The root logger.
 * @param options.ignore Requests whose completion is not logged (probes); `req.log` still works.
 * @param options.finished Called for every request whose response ended (logged or not), with
 *   the seconds since this middleware saw it: the one completion listener the request gets.
 */
export function requestLogging(
  logger: Logger,
  options: { ignore: (req: IncomingMessage) => boolean; finished: (req: Request, res: Response, seconds: number) => void },
): RequestHandler {
  // `req.log`: one getter for every request, the logger kept on the request once made.
  const log: PropertyDescriptor = {
    configurable: true,
    enumerable: false,
    get(this: Request & { [madeLogger]?: Logger }) {
      this[madeLogger] ??= logger.child({ req: requestFields(this) });
      return this[madeLogger];
    },
  };
  return (req: Request, res: Response, next: NextFunction) => {
    req.id = requestIdOf(req, res);
    Object.defineProperty(req, 'log', log);
    const logged = !options.ignore(req);
    const started = performance.now();
    const onEnd = (): void => {
      res.removeListener('finish', onEnd);
      res.removeListener('close', onEnd);
      const seconds = (performance.now() - started) / 1000;
      if (res.writableFinished) options.finished(req, res, seconds);
      if (logged) logCompletion(logger, req, res, Math.round(seconds * 1000));
    };
    res.on('finish', onEnd);
    res.on('close', onEnd);
    next();
  };
}

function logCompletion(logger: Logger, req: IncomingMessage, res: ServerResponse, responseTime: number): void {
  const failed = res.statusCode >= 500;
  const level = failed ? 'error' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  const message = failed ? 'request errored' : !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted';
  req.log[level]({ res: { statusCode: res.statusCode }, responseTime }, message);
}
