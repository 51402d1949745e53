/**
 * Coverage of the contract by the test suite (issue 6): every response the app sends during a
 * test run is recorded as a hit (operationId, method, path template, status), and after the run
 * test/contractCoverage.test.ts compares the hits with the statuses each operation documents.
 *
 * Hits are JSON lines in test/artifacts/contract-coverage/hits-<pid>.jsonl, one file per Jest
 * worker process; test/support/globalSetup.ts empties the directory and writes `run.json` (when
 * and how the run was started) at the start of each run.
 *
 * Attribution: a request is matched against the bundled contract's paths by method and path with
 * src/http/routes.ts `pathMatcher`, as the app does (the literal path wins over a templated one:
 * `/api/v1/scans/log` before `/api/v1/scans/{id}`), not by what the validator set on the request,
 * so refusals that happen before validation (413 and malformed JSON from the body parser) and
 * during it (401 from the security handlers) count too.
 * A 405 answers a method the path does not document; the contract documents it on every operation
 * of the path ("this path does not take that method"), so it counts for all of them.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { ContractOperation } from './contractOperations.ts';
import { pathMatcher, type OpenApiDocument } from '../../src/http/routes.ts';

/** Where hits are written: test/artifacts/contract-coverage (git-ignored). */
export const CONTRACT_COVERAGE_DIR = resolve(fileURLToPath(import.meta.url), '../../artifacts/contract-coverage');
/** The file globalSetup writes at the start of a run (see {@link RunManifest}). */
export const RUN_MANIFEST = 'run.json';

/** Every operation must answer one of its documented success statuses in some test. */
export const OPERATION_THRESHOLD = 1;
/** Share of documented (operation, status) pairs that tests must provoke. */
export const STATUS_THRESHOLD = 0.9;

/** One response sent by the app in a test. */
export interface ContractHit {
  /** The operation of the method and path; null when the path does not document the method. */
  operationId: string | null;
  /** Upper case, as sent. */
  method: string;
  /** The contract's path template, e.g. `/api/v1/entities/{id}`. */
  path: string;
  status: number;
  /** The test file that sent it, relative to the repository. */
  file: string;
}

/** How the run that recorded the hits was started (written by globalSetup). */
export interface RunManifest {
  startedAt: string;
  /** Test path patterns, test name pattern or `--onlyChanged`-style filters; empty for a full run. */
  filters: string[];
}

/**
 * Wraps an app so that every response it finishes is appended to this worker's hit file.
 * Responses to paths the contract does not have (`/docs`, `/openapi.json`, unknown paths) are
 * not recorded. The returned app is an Express app (it can `listen`) with `app` mounted in it.
 * @param document The bundled contract the requests are attributed to.
 */
export function recordingContractHits(app: Express, document: OpenApiDocument): Express {
  const match = pathMatcher(document);
  const file = join(CONTRACT_COVERAGE_DIR, `hits-${process.pid}.jsonl`);
  let madeDir = false;
  const outer = express();
  outer.disable('x-powered-by');
  outer.use((req, res, next) => {
    const method = req.method;
    const urlPath = req.originalUrl.split('?')[0]!;
    const testPath = expect.getState().testPath;
    res.on('finish', () => {
      const matched = match(urlPath);
      if (!matched) return;
      const served = matched.operation(method);
      const hit: ContractHit = {
        path: served?.path ?? matched.path,
        operationId: served?.operation.operationId ?? null,
        method,
        status: res.statusCode,
        file: testPath ? relative(process.cwd(), testPath) : '',
      };
      if (!madeDir) mkdirSync(CONTRACT_COVERAGE_DIR, { recursive: true });
      madeDir = true;
      appendFileSync(file, `${JSON.stringify(hit)}\n`);
    });
    next();
  });
  outer.use(app);
  return outer;
}

/**
 * Reads every hit recorded under `dir`, and the run manifest.
 * @returns `manifest` is undefined when globalSetup has not run (or the directory is gone).
 * @throws SyntaxError when a hit file holds a line that is not JSON.
 */
export function readContractHits(dir = CONTRACT_COVERAGE_DIR): { hits: ContractHit[]; files: number; manifest: RunManifest | undefined } {
  if (!existsSync(dir)) return { hits: [], files: 0, manifest: undefined };
  const names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  const hits = names.flatMap((name) =>
    readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ContractHit),
  );
  const manifestPath = join(dir, RUN_MANIFEST);
  const manifest = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as RunManifest) : undefined;
  return { hits, files: names.length, manifest };
}

/** Coverage of one operation. */
export interface OperationCoverage {
  operation: ContractOperation;
  /** Documented statuses some test provoked. */
  covered: Set<number>;
  /** Whether a documented 2xx was answered (what "a test exercises the operation" means here). */
  exercised: boolean;
}

/** A status answered for an operation (or a path, for methods it does not document) that the contract does not list. */
export interface UndocumentedStatus {
  /** operationId, or `METHOD /path` when the path does not document the method. */
  target: string;
  status: number;
  count: number;
  /** Test files that provoked it. */
  files: string[];
}

/** What {@link contractCoverage} computes. */
export interface CoverageReport {
  rows: OperationCoverage[];
  operations: { exercised: number; total: number };
  statuses: { covered: number; total: number };
  undocumented: UndocumentedStatus[];
}

/** Whether `status` is a success of `operation`: a 2xx, or a redirect when it documents no 2xx. */
function isSuccess(operation: ContractOperation, status: number): boolean {
  if (status >= 200 && status < 300) return true;
  return (status === 302 || status === 303) && !operation.statuses.some((s) => s >= 200 && s < 300);
}

/**
 * Compares hits with the documented statuses of every operation.
 * An operation counts as exercised when some hit answered it with one of its documented 2xx
 * statuses (or, for an operation that documents none — the redirects of a single sign-on —
 * its documented 302 or 303): errors alone do not count, since the generic-error walk of
 * test/errors.test.ts reaches every operation without ever making one succeed.
 */
export function contractCoverage(operations: ContractOperation[], hits: ContractHit[]): CoverageReport {
  const rows = operations.map((operation) => ({ operation, covered: new Set<number>(), exercised: false }));
  const byId = new Map(rows.map((row) => [row.operation.operationId, row]));
  const undocumented = new Map<string, UndocumentedStatus>();
  const noteUndocumented = (target: string, hit: ContractHit) => {
    const key = `${target} ${hit.status}`;
    const entry = undocumented.get(key) ?? { target, status: hit.status, count: 0, files: [] };
    entry.count += 1;
    if (!entry.files.includes(hit.file)) entry.files.push(hit.file);
    undocumented.set(key, entry);
  };
  for (const hit of hits) {
    const targets = hit.operationId !== null ? [byId.get(hit.operationId)] : hit.status === 405 ? rows.filter((row) => row.operation.path === hit.path) : [];
    if (targets.length === 0 || targets.some((row) => row === undefined)) {
      noteUndocumented(hit.operationId ?? `${hit.method} ${hit.path}`, hit);
      continue;
    }
    for (const row of targets as OperationCoverage[]) {
      if (!row.operation.statuses.includes(hit.status)) {
        noteUndocumented(row.operation.operationId, hit);
        continue;
      }
      row.covered.add(hit.status);
      if (isSuccess(row.operation, hit.status)) row.exercised = true;
    }
  }
  return {
    rows,
    operations: { exercised: rows.filter((row) => row.exercised).length, total: rows.length },
    statuses: {
      covered: rows.reduce((sum, row) => sum + row.covered.size, 0),
      total: rows.reduce((sum, row) => sum + row.operation.statuses.length, 0),
    },
    undocumented: [...undocumented.values()].sort((a, b) => a.target.localeCompare(b.target) || a.status - b.status),
  };
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '100.0%' : `${((100 * part) / whole).toFixed(1)}%`;
}

/**
 * Renders a report as a plain-text table: one row per operation, one column per status any
 * operation documents (`✓` provoked, `✗` documented but never provoked, blank not documented),
 * then per-status and overall totals and the statuses the contract does not document.
 */
export function formatCoverageReport(report: CoverageReport): string {
  const statuses = [...new Set(report.rows.flatMap((row) => row.operation.statuses))].sort((a, b) => a - b);
  const nameWidth = Math.max(...report.rows.map((row) => row.operation.operationId.length), 'operation'.length) + 2;
  const cell = (text: string) => text.padStart(4);
  const lines = [`${'operation'.padEnd(nameWidth)}${statuses.map((s) => cell(String(s))).join('')}  covered  exercised (2xx, or 302 without one)`];
  for (const { operation, covered, exercised } of report.rows) {
    const marks = statuses.map((s) => cell(!operation.statuses.includes(s) ? '' : covered.has(s) ? '✓' : '✗'));
    lines.push(
      `${operation.operationId.padEnd(nameWidth)}${marks.join('')}  ${`${covered.size}/${operation.statuses.length}`.padEnd(7)}  ${exercised ? 'yes' : 'NO'}`,
    );
  }
  lines.push('');
  lines.push(
    `Per status: ${statuses
      .map((s) => {
        const documenting = report.rows.filter((row) => row.operation.statuses.includes(s));
        return `${s} ${documenting.filter((row) => row.covered.has(s)).length}/${documenting.length}`;
      })
      .join(', ')}`,
  );
  lines.push(
    `Operations exercised (a documented 2xx, or the 302 of an operation without one, answered in some test): ${report.operations.exercised}/${report.operations.total} ` +
      `(${percent(report.operations.exercised, report.operations.total)}; needs ${percent(OPERATION_THRESHOLD, 1)})`,
  );
  lines.push(
    `Documented statuses provoked: ${report.statuses.covered}/${report.statuses.total} ` +
      `(${percent(report.statuses.covered, report.statuses.total)}; needs ${percent(STATUS_THRESHOLD, 1)})`,
  );
  lines.push('A 405 (a method the path does not document) counts for every operation of that path.');
  lines.push(
    report.undocumented.length === 0
      ? 'Statuses answered that the contract does not document: none.'
      : `Statuses answered that the contract does not document:\n${report.undocumented
          .map((u) => `  ${u.target} ${u.status} ×${u.count} (${u.files.join(', ')})`)
          .join('\n')}`,
  );
  return `${lines.join('\n')}\n`;
}
