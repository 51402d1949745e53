/**
 * Serves the operator console (`console/`, built into `console/dist` by `npm install`'s `prepare`
 * script with Vite) at `/console`, like the API reference at `/docs`: static files outside the
 * contract, a client of the public API only.
 *
 * - `Content-Security-Policy`: this server only (`'self'`), no inline script or style; images
 *   also from `data:` (uploaded template images, QR codes) and `blob:` (previews fetched with the
 *   session's token); no framing (https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP).
 * - `Referrer-Policy: same-origin`: the console's requests to this server carry its address, by
 *   which their audit events are marked `console` (src/http/requestChannel.ts); other sites get
 *   no `Referer` from it.
 * - Files under `/console/assets/` carry a content hash in their names (Vite's default), so they
 *   are cached for a year as `immutable` (RFC 8246); `index.html` is `no-cache`, revalidated on
 *   every visit, so a new build is picked up at once.
 * - Scripts and style sheets are sent compressed when the browser accepts it: the build writes
 *   `<name>.br` and `<name>.gz` beside each (console/vite.config.ts); the encoding is chosen from
 *   `Accept-Encoding` (Brotli, then gzip, on equal quality), sent with `Content-Encoding` and
 *   `Vary: Accept-Encoding` (RFC 9110 §8.4 and RFC 9110 §12.5.3). A build without them is sent as it is.
 * - Nothing is served when the console was not built (dev dependencies omitted): `/console`
 *   answers 404 saying so.
 *
 * @module http/console
 */
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import Negotiator from 'negotiator';
import { packageRoot } from '../packageRoot.ts';

/** Where `npm install` builds the console. */
export const CONSOLE_DIST = resolve(packageRoot, 'console/dist');

/** The console's Content-Security-Policy. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; " +
  "manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The encodings the build writes beside a file, by the name's suffix, in the server's order of preference. */
const PRECOMPRESSED: readonly (readonly [encoding: string, suffix: string])[] = [
  ['br', '.br'],
  ['gzip', '.gz'],
];
/** An asset's file name that may have precompressed forms: one path segment, a script or a style sheet. */
const COMPRESSIBLE = /^[\w.-]+\.(?:js|css)$/;

/**
 * negotiator 1.1's `encoding(available, { preferred })`, where ties of quality go to the first of
 * `preferred` (https://github.com/jshttp/negotiator#negotiatorencodingavailableencodings-options);
 * @types/negotiator 0.6 does not declare the options.
 */
const negotiateEncoding = Negotiator.prototype.encoding as unknown as (
  this: Negotiator,
  available: readonly string[],
  options: { preferred: readonly string[] },
) => string | undefined;

/**
 * Sends `/console/assets/<file>` in its precompressed form the request accepts; calls `next`
 * (the plain file, `express.static`) when there is none or the browser prefers `identity`.
 */
function sendPrecompressed(assets: string) {
  return (req: Request<{ file: string }>, res: Response, next: () => void) => {
    const { file } = req.params;
    if (!COMPRESSIBLE.test(file)) return next();
    const forms = PRECOMPRESSED.filter(([, suffix]) => existsSync(resolve(assets, file + suffix)));
    if (forms.length === 0) return next();
    res.setHeader('Vary', 'Accept-Encoding');
    const available = [...forms.map(([encoding]) => encoding), 'identity'];
    const chosen = forms.find(([encoding]) => encoding === negotiateEncoding.call(new Negotiator(req), available, { preferred: available }));
    if (!chosen) return next();
    res.setHeader('Content-Encoding', chosen[0]);
    res.setHeader('Cache-Control', IMMUTABLE);
    res.type(extname(file));
    res.sendFile(file + chosen[1], { root: assets, cacheControl: false });
  };
}

/**
 * The router of `/console` (mount it at the app's root).
 * @param dist The built console (default {@link CONSOLE_DIST}).
 */
export function consoleRouter(dist = CONSOLE_DIST): Router {
  const router = express.Router({ strict: true });
  const index = resolve(dist, 'index.html');
  router.use('/console', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    // The console's API calls name it to this origin only (their audit channel, src/http/requestChannel.ts).
    res.setHeader('Referrer-Policy', 'same-origin');
    next();
  });
  router.get('/console', (_req, res) => res.redirect(301, '/console/'));
  router.get('/console/', (_req, res) => {
    if (!existsSync(index)) {
      res.status(404).type('text/plain').send('The console is not built: run npm install (with dev dependencies), or npm run build:console.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  router.get('/console/assets/:file', sendPrecompressed(resolve(dist, 'assets')));
  router.use(
    '/console/assets',
    express.static(resolve(dist, 'assets'), {
      index: false,
      fallthrough: true,
      redirect: false,
      setHeaders: (res) => res.setHeader('Cache-Control', IMMUTABLE),
    }),
  );
  router.use('/console', (_req, res) => {
    res.status(404).type('text/plain').send('Not found.');
  });
  return router;
}
