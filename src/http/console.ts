/**
 * Serves the operator console (`console/`, built into `console/dist` by `npm install`'s `prepare`
 * script with Vite) at `/console`, like the API reference at `/docs`: static files outside the
 * contract, a client of the public API only.
 *
 * - `Content-Security-Policy`: this server only (`'self'`), no inline script or style; images
 *   also from `data:` (uploaded template images, QR codes) and `blob:` (previews fetched with the
 *   session's token); no framing (https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP).
 * - Files under `/console/assets/` carry a content hash in their names (Vite's default), so they
 *   are cached for a year as `immutable` (RFC 8246); `index.html` is `no-cache`, revalidated on
 *   every visit, so a new build is picked up at once.
 * - Nothing is served when the console was not built (dev dependencies omitted): `/console`
 *   answers 404 saying so.
 *
 * @module http/console
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import express, { type Router } from 'express';
import { packageRoot } from '../packageRoot.ts';

/** Where `npm install` builds the console. */
export const CONSOLE_DIST = resolve(packageRoot, 'console/dist');

/** The console's Content-Security-Policy. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; " +
  "manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The router of `/console` (mount it at the app's root).
 * @param dist The built console (default {@link CONSOLE_DIST}).
 */
export function consoleRouter(dist = CONSOLE_DIST): Router {
  const router = express.Router({ strict: true });
  const index = resolve(dist, 'index.html');
  router.use('/console', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('Referrer-Policy', 'no-referrer');
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
