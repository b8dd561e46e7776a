import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { main } from '../../bin/plan/cli.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { LOCK_PARTITION } from '../../lambda/adapters/pg/statements/curation/lock-partition.js';
import { IsolationError, PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import type { Query, SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { environment } from '../../lambda/config/env.js';
import {
  CONTENDED_REMEMBER_BUDGET,
  NOTE_CEILING,
  openContentionBench,
  type ContentionBench,
  type RoundFigures,
  summarise,
} from './contention.js';
import { postgresForTests } from '../support/pg-server.js';
import { checkCurationModel } from '../model/curation-check.js';
import { DIMENSIONS } from '../support/vectors.js';
import { type CrossUserBench, type CrossUserFigures, openCrossUserBench } from './cross-users.js';
import { openUrl, redact } from '../store/url-harness.js';
import { HEAVY_STEP_MS, PATIENT_CONNECT_MS } from '../support/budgets.js';
import { liveMigrationHolds } from '../support/live-migration-run.js';
import { CI_LIVE_RUN } from './live-migration.js';

/**
 * A real multi-connection PostgreSQL in the test suite: a throwaway cluster started here (or the
 * server NAABA_CONTENTION_URL names, as `npm run test:pg -- --url` gives), the curation model,
 * then contention rounds through the memory service over 10 connections.
 * Without a server this file says why in one line; with NAABA_REQUIRE_POSTGRES=1 (CI,
 * `npm run test:pg`) that is a failure, not a skip.
 */
const env = environment();
const rounds = Number(env.NAABA_CONTENTION_ROUNDS ?? 3);
const modelRuns = Number(env.NAABA_MODEL_RUNS ?? 25);
// `npm test` proves 0 busy on 2,000 recalls; `npm run test:pg` runs the 10,000 of docs/benchmarks.md.
const recalls = Number(env.NAABA_CROSS_USER_RECALLS ?? 2_000);
const given = env.NAABA_CONTENTION_URL;

const server = given ? undefined : await postgresForTests('real PostgreSQL tests (store conformance, contention rounds)');
const url = given ?? server?.url;

if (url) {
  console.log(`real PostgreSQL-wire server: ${server ? `${server.version}, a throwaway cluster` : redact(url)}`);
  afterAll(async () => server?.stop());

  // The store conformance suite runs on a real PostgreSQL once, as the runtime login (runtime-role.test.ts).

  test(`curation rules: ${modelRuns} random sequences on the real server match the reference model`, async () => {
    const harness = await openUrl(url);
    try {
      await checkCurationModel({
        stores: harness.stores,
        sql: harness.sql,
        reset: harness.reset,
        region: 'eu-central-1',
        runs: modelRuns,
        embeddingDimensions: DIMENSIONS,
      });
    } finally {
      await harness.close();
    }
  }, 1_800_000);

  // On a database of its own, so that its seed meets no other test's rows. Only on a throwaway
  // cluster: on a given URL, `npm run verify:plan -- --url URL --seed` is the command.
  const planTest = server ? test : test.skip;
  if (!server) console.log('skipping the plan check on PostgreSQL: a given URL is not ours to add a database to');
  planTest(
    'npm run verify:plan -- --url --seed: every runtime plan holds on a real PostgreSQL, as on PGlite',
    async () => {
      const database = `plans_${randomUUID().replaceAll('-', '')}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${database}`);
      } finally {
        await admin.end();
      }
      const planUrl = new URL(url);
      planUrl.pathname = `/${database}`;
      const sql = await PgSqlClient.connect({ url: planUrl.toString(), maxConnections: 1, statementTimeoutMs: 60_000 });
      try {
        await migrate(sql, { embeddingDimensions: DIMENSIONS });
      } finally {
        await sql.close();
      }
      const out: string[] = [];
      const code = await main(['--url', planUrl.toString(), '--seed'], (line) => out.push(line));
      const report = out.join('\n');
      expect(report).not.toContain('FAIL');
      expect(report).toContain('every plan holds');
      expect(report).toMatch(/ok\s+passages walk: a memory written/);
      expect(code).toBe(0);
    },
    HEAVY_STEP_MS,
  );

  describe('different users never abort each other, on PostgreSQL with its default settings', () => {
    let bench: CrossUserBench;
    const report = (label: string, f: CrossUserFigures) =>
      console.log(
        `${label}: ${f.succeeded}/${f.calls} succeeded · busy ${f.busy} · other failures ${f.failed} · serialization retries ${f.retries}`,
      );

    beforeAll(async () => {
      const harness = await openUrl(url);
      await harness.reset();
      await harness.close();
      bench = await openCrossUserBench(url, 10);
    });
    afterAll(async () => {
      await bench?.close();
      const harness = await openUrl(url);
      await harness.reset();
      await harness.close();
    });

    test('20 users × 100 written by 4 writers (a young table), then 8 workers mixing recall and remember: 0 busy', async () => {
      const users = await bench.loadThroughService(20, 100, 4);
      const figures = await bench.play(users, 8, 2_000, 'mixed');
      report('20 users × 100, 8 workers mixing recall and remember', figures);
      expect(figures).toMatchObject({ busy: 0, failed: 0, succeeded: 2_000 });
    }, 900_000);

    test(`100 users × 500 (ANALYZE done), 8 workers, ${recalls.toLocaleString('en')} recalls: 0 busy`, async () => {
      const users = await bench.loadInBulk(100, 500);
      const figures = await bench.play(users, 8, recalls, 'recall');
      report(`100 users × 500, 8 workers, ${recalls} recalls`, figures);
      expect(figures).toMatchObject({ busy: 0, failed: 0, succeeded: recalls });
    }, 1_800_000);
  });

  describe(`contention through the memory service, 10 connections, ${rounds} rounds per scenario`, () => {
    let bench: ContentionBench;
    const figures: RoundFigures[] = [];

    beforeAll(async () => {
      // Migrated (and, on CockroachDB, its regions checked) exactly as the conformance suite does.
      await (await openUrl(url)).close();
      bench = await openContentionBench(url, 10);
    });
    afterAll(async () => {
      console.log(summarise(figures).join('\n'));
      await bench?.close();
    });

    const play = async (scenario: RoundFigures['scenario'], writers: number) => {
      const mine: RoundFigures[] = [];
      for (let i = 0; i < rounds; i += 1) mine.push(await bench.round(scenario, writers));
      figures.push(...mine);
      // Every guarantee in every round: a single broken round fails the test.
      expect(mine.flatMap((f) => f.violations)).toEqual([]);
      expect(mine.reduce((n, f) => n + f.failed, 0)).toBe(0);
      return mine.reduce((n, f) => n + f.succeeded, 0) / mine.reduce((n, f) => n + f.calls, 0);
    };

    test(`50 concurrent remembers on one (user, kind): at most ${NOTE_CEILING} kept, one journal line per eviction, ≥ 99 % succeed, each in ≤ ${CONTENDED_REMEMBER_BUDGET} round trips`, async () => {
      expect(await play('one-partition', 50)).toBeGreaterThanOrEqual(0.99);
      // Neighbours, the first attempt, the queued one (decision 0099); 6 when the queue took a transaction.
      const trips = figures.filter((f) => f.scenario === 'one-partition').flatMap((f) => f.statements);
      expect(Math.max(...trips)).toBeLessThanOrEqual(CONTENDED_REMEMBER_BUDGET);
    });

    test('50 writers on 50 users: every call succeeds', async () => {
      expect(await play('many-users', 50)).toBe(1);
    });

    test('30 identical remembers at once: one memory, every restatement counted and journaled', async () => {
      expect(await play('restatements', 30)).toBeGreaterThanOrEqual(0.99);
    });

    test('the queue: a writer that locks a partition waits for its holder; another partition does not', async () => {
      // Generous connect and statement bounds: the second writer's lock wait lasts as long as the
      // rest of the test, and a busy machine must not turn that wait into an error.
      const sql = await PgSqlClient.connect({
        url,
        maxConnections: 3,
        statementTimeoutMs: 60_000,
        connectionTimeoutMs: PATIENT_CONNECT_MS,
      });
      const order: string[] = [];
      const opened: (() => void)[] = [];
      const gate = new Promise<void>((resolve) => opened.push(resolve));
      const held: (() => void)[] = [];
      const holding = new Promise<void>((resolve) => held.push(resolve));
      const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
      const [one, two] = [randomUUID(), randomUUID()];
      const lock = (session: SqlClient, user: string) =>
        session.query(
          LOCK_PARTITION.query({ scope: { region: 'eu-central-1', userId: user }, kind: 'note', pins: false }, 'postgres'),
        );
      const first = sql.transaction(async (session) => {
        await lock(session, one);
        order.push('first holds');
        for (const hold of held) hold();
        await gate;
        order.push('first lets go');
      });
      // The second writer starts once the first holds the lock, however long its connection took.
      await holding;
      const second = sql.transaction(async (session) => {
        await lock(session, one);
        order.push('second holds');
      });
      await sql.transaction(async (session) => {
        await lock(session, two);
        order.push('another partition holds');
      });
      await pause();
      for (const open of opened) open();
      await Promise.all([first, second]);
      await sql.close();
      expect(order).toEqual(['first holds', 'another partition holds', 'first lets go', 'second holds']);
    });

    test('a URL whose options lower the isolation level is refused at start-up, not obeyed', async () => {
      const weakened = new URL(url);
      weakened.searchParams.set('options', '-c default_transaction_isolation=read\\ committed');
      const opening = PgSqlClient.connect({ url: weakened.toString(), maxConnections: 2, statementTimeoutMs: 5_000 });
      await expect(opening).rejects.toThrow(IsolationError);
      await expect(opening).rejects.toThrow(/READ COMMITTED isolation.*SERIALIZABLE/);
    });

    test('the rounds notice an overfilled kind: at READ COMMITTED, which start-up refuses, bursts keep more than the ceiling', async () => {
      const pool = new pg.Pool({ connectionString: url, max: 10, options: '-c default_transaction_isolation=read\\ committed' });
      const weak: SqlClient = {
        engine: 'postgres',
        query: async <R>(query: Query) => (await pool.query(query.text, [...query.values])).rows as R[],
        exec: async (script) => {
          await pool.query(script);
        },
        close: () => pool.end(),
      };
      const unguarded = await openContentionBench(url, 10, weak);
      const broken: string[] = [];
      // The race is a matter of interleaving: up to ten bursts, stopping at the first overfill.
      for (let i = 0; i < 10 && broken.length === 0; i += 1)
        broken.push(...(await unguarded.round('one-partition', 50)).violations);
      await unguarded.close();
      expect(broken.join('\n')).toMatch(new RegExp(`memories kept for a ceiling of ${NOTE_CEILING}`));
    });
  });

  // A database of its own: the run builds the schema from the release before 0010 (decision 0099).
  (server ? test : test.skip)(
    `migrations applied in batches while traffic runs lose nothing and fail no call (${CI_LIVE_RUN.rows} memories; a throwaway cluster only, not --url)`,
    async () => {
      const admin = new pg.Client({ connectionString: url.replace(/\/naaba$/, '/postgres') });
      await admin.connect();
      await admin.query('DROP DATABASE IF EXISTS naaba_live');
      await admin.query('CREATE DATABASE naaba_live');
      await admin.end();
      const liveUrl = url.replace(/\/naaba$/, '/naaba_live');
      // Patient connects: a pool opening a connection on a busy machine is not the migration failing a call.
      const connectionTimeoutMs = PATIENT_CONNECT_MS;
      const migrator = await PgSqlClient.connect({
        url: liveUrl,
        maxConnections: 2,
        statementTimeoutMs: 600_000,
        connectionTimeoutMs,
      });
      const traffic = await PgSqlClient.connect({
        url: liveUrl,
        maxConnections: 6,
        statementTimeoutMs: 60_000,
        connectionTimeoutMs,
      });
      try {
        await liveMigrationHolds(migrator, traffic);
      } finally {
        await migrator.close();
        await traffic.close();
      }
    },
    900_000,
  );
}
