/**
 * Jest runs every test file once per database: the embedded PGlite always, and PostgreSQL when
 * TEST_DATABASE_URL points at a server where throw-away databases may be created (CI does).
 */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
};

/** @type {import('jest').Config} */
export default {
  // Global option: Jest ignores testTimeout inside `projects`, so hooks fell back to 5 s.
  testTimeout: 30_000,
  projects: [
    { ...base, displayName: 'pglite', setupFiles: ['<rootDir>/test/support/useDatabase.pglite.ts'] },
    ...(process.env.TEST_DATABASE_URL
      ? [{ ...base, displayName: 'postgresql', setupFiles: ['<rootDir>/test/support/useDatabase.postgresql.ts'] }]
      : []),
  ],
};
