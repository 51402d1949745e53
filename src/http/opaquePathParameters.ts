/**
 * Path parameters of protocols that have no `404` for what their paths name — the operations
 * with `x-unstorable-path-status` in the contract (openapi/README.md), the Apple Wallet web
 * service — may arrive holding a `/`: a segment value with an encoded slash that a proxy
 * decoded (`…/devices/<id>%2F..%2F/registrations/…` → `…/devices/<id>/../registrations/…`), or
 * a client that did not encode one. Such a path matches no template as it is, and would be
 * answered `404`, a status Apple's web service does not define for these endpoints
 * (https://developer.apple.com/documentation/walletpasses/register-a-pass-for-update-notifications
 * lists 200, 201 and 401; "Get the list of updatable passes" 200 and 204; "Send an updated pass"
 * 200, 304 and 401).
 *
 * {@link opaquePathParameters} matches such a path against those templates with parameters that
 * may span segments, and re-encodes the `/` inside each parameter (`%2F`), so that the request
 * reaches its operation with the whole text as one opaque value — which names no device or pass,
 * so the operation answers as for any unknown one (`401` where the request cannot be
 * authenticated, `204` for a device without updates). Nothing is resolved as a path: a `..`
 * inside a value stays text, never a step up. Paths that match a template already are untouched,
 * and so are all other operations (a `/` in an API path stays a `404`).
 *
 * The validator must then match `req.url`, not `req.originalUrl` (its `useRequestUrl`).
 *
 * @module http/opaquePathParameters
 */
import type { RequestHandler } from 'express';
import type { OpenApiDocument, PathMatch } from './routes.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** A template whose parameters may hold `/`, as a pattern (every parameter but the last is the shortest match), and its methods. */
interface SpanningTemplate {
  pattern: RegExp;
  methods: string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The path templates with a parameter and an operation that has `x-unstorable-path-status`. */
function spanningTemplates(document: OpenApiDocument): SpanningTemplate[] {
  return Object.entries(document.paths)
    .filter(
      ([path, item]) => path.includes('{') && METHODS.some((m) => (item[m] as Record<string, unknown> | undefined)?.['x-unstorable-path-status'] !== undefined),
    )
    .map(([path, item]) => {
      const literals = path.split(/\{[^}]+\}/);
      const captures = literals.length - 1;
      const body = literals.map((literal, i) => escapeRegExp(literal) + (i < captures ? (i === captures - 1 ? '(.+)' : '(.+?)') : '')).join('');
      return { pattern: new RegExp(`^${body}$`, 'd'), methods: METHODS.filter((m) => item[m]).map((m) => m.toUpperCase()) };
    });
}

/**
 * Middleware: re-encodes `/` inside the parameters of a request path that matches no template as
 * it is but matches a template of an `x-unstorable-path-status` operation once its parameters may
 * span segments (rewrites `req.url`; `req.originalUrl` keeps what was sent, for the log).
 * @param document The contract.
 * @param match The contract's path matcher (src/http/routes.ts `pathMatcher`).
 */
export function opaquePathParameters(document: OpenApiDocument, match: (path: string) => PathMatch | undefined): RequestHandler {
  const templates = spanningTemplates(document);
  return (req, _res, next) => {
    if (templates.length === 0 || match(req.path)) return next();
    // Where a path could split either way, the template that has the request's method wins.
    const candidates = templates.flatMap((template) => {
      const found = template.pattern.exec(req.path);
      return found ? [{ found, serves: template.methods.includes(req.method) }] : [];
    });
    const chosen = candidates.find((candidate) => candidate.serves) ?? candidates[0];
    if (chosen) {
      const { found } = chosen;
      // Each parameter's own span (the `d` flag), its slashes encoded; the literals between as sent.
      let rebuilt = '';
      let at = 0;
      for (const [start, end] of found.indices!.slice(1) as [number, number][]) {
        rebuilt += req.path.slice(at, start) + req.path.slice(start, end).replaceAll('/', '%2F');
        at = end;
      }
      rebuilt += req.path.slice(at);
      const query = req.url.indexOf('?');
      req.url = rebuilt + (query === -1 ? '' : req.url.slice(query));
    }
    next();
  };
}
