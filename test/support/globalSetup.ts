/**
 * Jest globalSetup of the test run (not of the coverage check): empties
 * test/artifacts/contract-coverage so that the check after the run reads only this run's hits,
 * and writes `run.json` saying when the run started and whether it was filtered (a filtered run
 * cannot cover the contract; the check prints this).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_COVERAGE_DIR, RUN_MANIFEST, type RunManifest } from './contractCoverage.ts';

/** The members of Jest's global configuration read here (jest 30). */
interface RunOptions {
  testPathPatterns?: { patterns?: string[] };
  testNamePattern?: string;
  onlyChanged?: boolean;
  onlyFailures?: boolean;
  findRelatedTests?: boolean;
  shard?: { shardIndex: number; shardCount: number };
}

/** Clears the hit directory and writes the run manifest. */
export default function globalSetup(options: RunOptions): void {
  rmSync(CONTRACT_COVERAGE_DIR, { recursive: true, force: true });
  mkdirSync(CONTRACT_COVERAGE_DIR, { recursive: true });
  const filters = [
    ...(options.testPathPatterns?.patterns ?? []).map((p) => `path ${p}`),
    ...(options.testNamePattern ? [`name ${options.testNamePattern}`] : []),
    ...(options.onlyChanged ? ['--onlyChanged'] : []),
    ...(options.onlyFailures ? ['--onlyFailures'] : []),
    ...(options.findRelatedTests ? ['--findRelatedTests'] : []),
    ...(options.shard ? [`--shard ${options.shard.shardIndex}/${options.shard.shardCount}`] : []),
  ];
  const manifest: RunManifest = { startedAt: new Date().toISOString(), filters };
  writeFileSync(join(CONTRACT_COVERAGE_DIR, RUN_MANIFEST), `${JSON.stringify(manifest)}\n`);
}
