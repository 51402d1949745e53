/**
 * Contract coverage of the test suite (issue 6): every operation of generated/openapi.json is
 * exercised by some test (one of its documented 2xx answered), at least 90% of the documented
 * (operation, status) pairs are provoked, and no status the contract does not list for an
 * operation is answered. Prints the table of operations × statuses.
 *
 * It reads the responses the suite recorded (test/support/contractCoverage.ts), so it runs after
 * it, in a second Jest phase: `npm test` runs the suite, then `CONTRACT_COVERAGE=check jest`.
 */
import {
  contractCoverage,
  formatCoverageReport,
  OPERATION_THRESHOLD,
  readContractHits,
  STATUS_THRESHOLD,
  CONTRACT_COVERAGE_DIR,
  type CoverageReport,
} from './support/contractCoverage.ts';
import { contractOperations } from './support/contractOperations.ts';

const { hits, files, manifest } = readContractHits();
const runNote = manifest
  ? `Hits: ${hits.length} responses in ${files} files, recorded by the run started at ${manifest.startedAt}` +
    (manifest.filters.length ? `, filtered by ${manifest.filters.join('; ')} — a filtered run does not cover the contract.` : '.')
  : `No run manifest in ${CONTRACT_COVERAGE_DIR}.`;
const rerun = 'Run the whole suite with `npm test`: it records the responses, then runs this check.';
let report: CoverageReport | undefined;

beforeAll(() => {
  if (hits.length === 0) return;
  report = contractCoverage(contractOperations(), hits);
  process.stdout.write(`\nContract coverage of the test suite\n${runNote}\n\n${formatCoverageReport(report)}\n`);
});

it('has the responses of a test run to read', () => {
  if (hits.length === 0) throw new Error(`No recorded responses in ${CONTRACT_COVERAGE_DIR}. ${runNote} ${rerun}`);
});

it('exercises every operation (a documented success status answered)', () => {
  if (!report) throw new Error(`Nothing to check. ${rerun}`);
  const missing = report.rows.filter((row) => !row.exercised).map((row) => row.operation.operationId);
  if (report.operations.exercised / report.operations.total < OPERATION_THRESHOLD) {
    throw new Error(`No test got a documented success status from: ${missing.join(', ')}. ${runNote} ${rerun}`);
  }
});

it(`provokes at least ${STATUS_THRESHOLD * 100}% of the documented statuses`, () => {
  if (!report) throw new Error(`Nothing to check. ${rerun}`);
  const { covered, total } = report.statuses;
  if (covered / total < STATUS_THRESHOLD) {
    const missing = report.rows.flatMap((row) => row.operation.statuses.filter((s) => !row.covered.has(s)).map((s) => `${row.operation.operationId} ${s}`));
    const shown = missing.length > 30 ? `${missing.slice(0, 30).join(', ')} and ${missing.length - 30} more (see the table)` : missing.join(', ');
    throw new Error(
      `Tests provoke ${covered} of ${total} documented statuses (${((100 * covered) / total).toFixed(1)}%, needs ${STATUS_THRESHOLD * 100}%). ` +
        `Never provoked: ${shown}. ${runNote} ${rerun}`,
    );
  }
});

it('answers no status the contract does not document for the operation', () => {
  if (!report) throw new Error(`Nothing to check. ${rerun}`);
  const found = report.undocumented.map((u) => `${u.target} ${u.status} ×${u.count} (${u.files.join(', ')})`);
  if (found.length) throw new Error(`Answered but not documented: ${found.join('; ')}. Document them or do not answer them. ${runNote}`);
});
