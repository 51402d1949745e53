/**
 * `npm run bench`: runs every benchmark in scripts/bench/ (each a `*.ts` file directly in it that
 * prints its own results and exits non-zero when it misses its target), one after the other, in
 * name order. Shared helpers live in scripts/bench/support/ (e.g. `startBenchServer`), which is
 * not run.
 * `npm run bench -- <text>` runs only those whose file name contains the text.
 *
 * Exit code: 0 when every benchmark run exits 0, 1 otherwise.
 *
 * @module scripts/runBenchmarks
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = resolve(fileURLToPath(import.meta.url), '../bench');
const filter = process.argv[2] ?? '';
const scripts = readdirSync(dir)
  .filter((name) => name.endsWith('.ts') && name.includes(filter))
  .sort();
if (scripts.length === 0) {
  console.error(`No benchmark in ${dir} matches "${filter}".`);
  process.exit(1);
}
const failed: string[] = [];
for (const script of scripts) {
  console.log(`\n▶ ${script}`);
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', join(dir, script)], { stdio: 'inherit' });
  if (status !== 0) failed.push(script);
}
console.log(failed.length ? `\n${failed.length} of ${scripts.length} benchmarks failed: ${failed.join(', ')}` : `\nAll ${scripts.length} benchmarks passed.`);
process.exit(failed.length ? 1 : 0);
