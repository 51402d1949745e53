/**
 * The Node.js versions package.json's `engines` claims are ones every package the service runs
 * with accepts (their own `engines`, as recorded in package-lock.json), and the README says the
 * same. npm only warns about a mismatch (EBADENGINE) unless engine-strict is on, so without this
 * check the claim drifts from the dependencies silently. Runs once (it does not depend on the
 * database).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { testDatabaseKind } from './support/testDatabase.ts';

/** npm's version-range semantics (https://github.com/npm/node-semver), the copy npm's tooling installs. */
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

const runOnce = testDatabaseKind() === 'pglite' ? describe : describe.skip;
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; engines?: { node?: string } | string[]; os?: string[]; cpu?: string[] }>;
};

/** Whether npm installs a package of the lock on this machine: platform-specific builds (`os`, `cpu`) only on their platform. */
const installedHere = (entry: { os?: string[]; cpu?: string[] }) =>
  (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch));

runOnce('engines', () => {
  const claimed = manifest.engines.node;
  const lowest = semver.minVersion(claimed)!.version;

  it('claims no Node.js version that a package the service runs with refuses', () => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !entry.dev && installedHere(entry) && !Array.isArray(entry.engines) && entry.engines?.node)
      .filter(([, entry]) => !semver.satisfies(lowest, (entry.engines as { node: string }).node))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, '')}@${entry.version} needs ${(entry.engines as { node: string }).node}`);
    expect({ claimed, refusing }).toEqual({ claimed, refusing: [] });
  });

  it('is what the README tells a newcomer', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain(`with Node.js ${lowest.replace(/\.0$/, '')} or newer`);
  });
});
