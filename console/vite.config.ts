/**
 * Build of the operator console (https://vite.dev/config/). Vite 8 transforms TypeScript and JSX
 * with Oxc (https://vite.dev/config/shared-options#oxc), with React's automatic JSX runtime; no
 * React plugin (no Fast Refresh: the console is built, not developed against a dev server here).
 * Assets get content hashes in their names (Rollup's `[hash]`), so the server can cache them for a
 * year; `base` is where the server mounts the build (src/http/console.ts).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
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
