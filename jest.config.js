// Handlers log JSON lines; tests that read logs raise the level themselves.
process.env.NAABA_LOG_LEVEL ??= 'SILENT';

/** Jest runs the TypeScript sources as ES modules; type checking is `npm run typecheck`. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
};
