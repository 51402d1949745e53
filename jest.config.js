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
const suite = { ...base, testPathIgnorePatterns: ['/node_modules/', coverageCheck] };

/** @type {import('jest').Config} */
export default process.env.CONTRACT_COVERAGE === 'check'
  ? { projects: [{ ...base, displayName: 'contract-coverage', testMatch: [coverageCheck] }] }
  : {
      // Global option: Jest ignores testTimeout inside `projects`, so hooks fell back to 5 s.
      testTimeout: 30_000,
      // Empties test/artifacts/contract-coverage, where this run's responses are recorded.
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      projects: [
        { ...suite, displayName: 'pglite', setupFiles: ['<rootDir>/test/support/useDatabase.pglite.ts'] },
        ...(process.env.TEST_DATABASE_URL
          ? [{ ...suite, displayName: 'postgresql', setupFiles: ['<rootDir>/test/support/useDatabase.postgresql.ts'] }]
          : []),
      ],
    };
