#!/usr/bin/env node
// `wallet-pass-mcp --key-file <path>`: the MCP stdio relay to a running service
// (src/mcp/stdioRelay.ts, its options there) as the package's bin, and what `npm run -s mcp`
// runs. It runs the compiled relay (dist/src/mcp/stdioRelay.js) with source maps, and the
// TypeScript source through tsx's loader when dist/ does not have it.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/src/mcp/stdioRelay.js', import.meta.url);
let runStdioRelay;
if (existsSync(compiled)) {
  process.setSourceMapsEnabled(true);
  ({ runStdioRelay } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runStdioRelay } = await import('../src/mcp/stdioRelay.ts'));
}
await runStdioRelay();
