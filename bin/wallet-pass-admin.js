#!/usr/bin/env node
// `wallet-pass-admin <command>`: the admin CLI (src/admin/cli.ts, its usage and exit codes there)
// as the package's bin, and what `npm run -s admin` runs. It runs the compiled CLI
// (dist/src/admin/cli.js, which `npm install` and `npm run build` make) with source maps, and the
// TypeScript source through tsx's loader when dist/ has not been built.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/src/admin/cli.js', import.meta.url);
let runCli;
if (existsSync(compiled)) {
  process.setSourceMapsEnabled(true);
  ({ runCli } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('../src/admin/cli.ts'));
}
await runCli();
