// Handlers log JSON lines; tests that read logs raise the level themselves.
process.env.NAABA_LOG_LEVEL ??= 'SILENT';

/** Jest runs the TypeScript sources as ES modules; type checking is `npm run typecheck`. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // A test's own budget on a shared 2-core machine that other jobs keep busy (load 8 and more):
  // steps that take a second alone take tens of seconds there. A timeout must mean a hang, never
  // a busy machine; heavier steps name their own budget (test/support/budgets.ts).
  testTimeout: 120_000,
  // Two workers on the two cores: half the tests wait on a server, a browser or npm, not on the CPU.
  // A worker left holding more than 700 MB is replaced between files: without that, memory a test
  // file leaves behind piles up and garbage collection slows every later file (decision 0086 has
  // the measured runs).
  maxWorkers: 2,
  workerIdleMemoryLimit: '700MB',
};
