/**
 * Jest configuration of the field suite (`npm run test:field`, test/field/run.ts, which runs it
 * inside the simulated internet's namespace). The main configuration (jest.config.js) leaves
 * test/field/ out, so `npm test` does not run these files.
 */
/** @type {import('jest').Config} */
export default {
  rootDir: '../..',
  displayName: 'field',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/test/field/**/*.test.ts'],
  // One merchant's day, step after step: minutes, not the main suite's per-test budget.
  testTimeout: 180_000,
  maxWorkers: 1,
};
