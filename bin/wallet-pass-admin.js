#!/usr/bin/env node
// `wallet-pass-admin <command>`: the admin CLI (src/admin/cli.ts, its usage and exit codes there)
// as the package's bin. It runs the TypeScript source with tsx's loader, as `npm run admin` does.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/admin/cli.ts');
await runCli();
