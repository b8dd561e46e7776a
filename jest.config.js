// Handlers log JSON lines; tests that read logs raise the level themselves.
process.env.NAABA_LOG_LEVEL ??= 'SILENT';

/**
 * The suite in two lanes (decision 0150). `in-process`: everything that runs inside jest's own
 * workers — the policy, the stores on PGlite and the reference store, the handlers, the MCP tools
 * over real HTTP, the model test. `system`: what starts or drives other programs — a PostgreSQL
 * server (test/pg), Chromium (test/browser), the `naaba` command as a child process (test/cli), the
 * CDK synthesis with its esbuild bundles (test/infra) — and the in-process files that need most of
 * a minute alone (`LONG`, decision 0156): each proves what no faster test does, and would hold
 * `npm test` past 12 minutes beside another heavy job. `npm test` runs the first, `npm run
 * test:system` the second, and `.ci/run` both; a path given to `npm run test:jest` runs in
 * whichever lane holds it.
 */
const SYSTEM = ['browser', 'cli', 'infra', 'pg'];
const LONG = [
  'plan/verify-plan', // `npm run verify:plan`: every runtime statement's plan on the local engine
  'oauth/attacks', // each way of bending the OAuth flow, over real HTTP, issues nothing
  'store/live-migration', // 30,000 memories migrated on PGlite while traffic runs
  'eval/updates', // issue 47's development set ranked by both embedders and both stores
  'store/statistics', // the per-user index chosen before and after statistics, kept current as tables grow
  'handlers/request-limits', // the per-key queue and the byte and batch caps, reached for real
];

/** Jest runs the TypeScript sources as ES modules; type checking is `npm run typecheck`. */
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
};

export default {
  projects: [
    {
      ...common,
      displayName: 'in-process',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...SYSTEM.map((folder) => `<rootDir>/test/${folder}/`),
        ...LONG.map((file) => `<rootDir>/test/${file}\\.test\\.ts$`),
      ],
    },
    {
      ...common,
      displayName: 'system',
      testMatch: [
        ...SYSTEM.map((folder) => `<rootDir>/test/${folder}/**/*.test.ts`),
        ...LONG.map((file) => `<rootDir>/test/${file}.test.ts`),
      ],
    },
  ],
  // A test's own budget on a shared 2-core machine that other jobs keep busy (load 8 and more):
  // steps that take a second alone take tens of seconds there. A timeout must mean a hang, never
  // a busy machine; heavier steps name their own budget (test/support/budgets.ts). Jest reads it
  // from the top level only, not from a project.
  testTimeout: 120_000,
  // Two workers on the two cores: half the tests wait on a server, a browser or npm, not on the CPU.
  // A worker left holding more than 700 MB is replaced between files: without that, memory a test
  // file leaves behind piles up and garbage collection slows every later file (decision 0086 has
  // the measured runs).
  maxWorkers: 2,
  workerIdleMemoryLimit: '700MB',
};
