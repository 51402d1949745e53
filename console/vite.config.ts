/**
 * Build of the operator console (https://vite.dev/config/). Vite 8 transforms TypeScript and JSX
 * with Oxc (https://vite.dev/config/shared-options#oxc), with React's automatic JSX runtime; no
 * React plugin (no Fast Refresh: the console is built, not developed against a dev server here).
 * Assets get content hashes in their names (Rollup's `[hash]`), so the server can cache them for a
 * year; `base` is where the server mounts the build (src/http/console.ts).
 *
 * Every script and style sheet is also written compressed beside itself, `<name>.br` (Brotli,
 * quality 11) and `<name>.gz` (gzip, level 9), which the server sends to browsers that accept
 * them (src/http/console.ts): compressed once at build time at the highest levels, rather than on
 * every response. Without it the overview's script reached a phone as 330 KB instead of about
 * 90 KB, and Lighthouse put the performance score at 90 (scripts/bench/consoleLighthouse.ts).
 *
 * React's API is served by Preact's compatibility layer (`preact/compat`, aliased below): the
 * components, hooks and TanStack Query run unchanged (the console's browser tests pass on it),
 * and the overview's one script went from 107.6 KB to 47.8 KB gzipped; Lighthouse on the same
 * loaded machine, back to back: overview FCP 2.1 → 1.4 s, performance 78 → 84, designer 80 → 80.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** Writes `.br` and `.gz` beside each built `.js` and `.css` file (when smaller than the file). */
function precompress(): Plugin {
  return {
    name: 'wps-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir!;
      for (const name of Object.keys(bundle).filter((file) => /\.(js|css)$/.test(file))) {
        const bytes = await readFile(join(dir, name));
        const br = brotliCompressSync(bytes, {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
        });
        const gz = gzipSync(bytes, { level: 9 });
        if (br.length < bytes.length) await writeFile(join(dir, `${name}.br`), br);
        if (gz.length < bytes.length) await writeFile(join(dir, `${name}.gz`), gz);
      }
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  resolve: {
    // Preact's React compatibility layer in place of React (https://preactjs.com/guide/v10/switching-to-preact/):
    // the same components and hooks, TanStack Query included, in ≈ 12 KB of script instead of
    // ≈ 60 KB gzipped of react-dom — see the module comment.
    alias: [
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
      { find: /^react$/, replacement: 'preact/compat' },
    ],
  },
  plugins: [precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline data: modules; everything is a file of this server (the CSP allows 'self' only).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
    rolldownOptions: {
      // TanStack Query marks its modules "use client" for React Server Components; meaningless in a client-only bundle.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
});
