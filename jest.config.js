/**
 * Jest runs every test file once per database: the embedded PGlite always, and PostgreSQL when
 * TEST_DATABASE_URL points at a server where throw-away databases may be created (CI does).
 *
 * `npm test` then runs Jest a second time with CONTRACT_COVERAGE=check: only the
 * `contract-coverage` project, whose test reads the responses the first run recorded
 * (test/support/contractCoverage.ts) and fails when the suite does not cover the contract.
 */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};

const coverageCheck = '<rootDir>/test/contractCoverage.test.ts';
// test/field/ is the field suite (`npm run test:field`, its own configuration, on a simulated internet).
const suite = { ...base, testPathIgnorePatterns: ['/node_modules/', coverageCheck, '<rootDir>/test/field/'] };

/** @type {import('jest').Config} */
export default process.env.CONTRACT_COVERAGE === 'check'
  ? { projects: [{ ...base, displayName: 'contract-coverage', testMatch: [coverageCheck] }] }
  : {
      // Two workers on CI's two cores (Jest's default is cores − 1 = one): most of a test's time
      // is spent waiting on a database, a child server or a timer, so two in parallel nearly
      // halve the run (measured: 1,049 s → 565 s for both databases).
      maxWorkers: 2,
      // A worker keeps what each test file's modules leave behind (ESM in vm contexts, WebAssembly
      // memories of PGlite and resvg); after ≈ 60 files one ran out of heap and crashed. A worker
      // whose heap is above this after a file is replaced by a fresh one before the next
      // (https://jestjs.io/docs/configuration#workeridlememorylimit-numberstring).
      workerIdleMemoryLimit: '1GB',
      // Global option: Jest ignores testTimeout inside `projects`, so hooks fell back to 5 s.
      // 60 s: on a loaded machine a fresh PGlite database with every migration took over 30 s.
      testTimeout: 60_000,
      // Empties test/artifacts/contract-coverage, where this run's responses are recorded.
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      projects: [
        { ...suite, displayName: 'pglite', setupFiles: ['<rootDir>/test/support/useDatabase.pglite.ts'] },
        ...(process.env.TEST_DATABASE_URL ? [{ ...suite, displayName: 'postgresql', setupFiles: ['<rootDir>/test/support/useDatabase.postgresql.ts'] }] : []),
      ],
    };
