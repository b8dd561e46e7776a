import pg from 'pg';
import { IsolationError, PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { environment } from '../../lambda/config/env.js';
import { NOTE_CEILING, openContentionBench, type ContentionBench, type RoundFigures, summarise } from './contention.js';
import { postgresForTests } from '../support/pg-server.js';
import { storeSuite } from '../store/suite.js';
import { checkCurationModel } from '../model/curation-check.js';
import { DIMENSIONS } from '../support/vectors.js';
import { openUrl, redact } from '../store/url-harness.js';

/**
 * A real multi-connection PostgreSQL in the test suite: a throwaway cluster started here (or the
 * server NAABA_CONTENTION_URL names, as `npm run test:pg -- --url` gives), the whole store
 * conformance suite, then contention rounds through the memory service over 10 connections.
 * Without a server this file says why in one line; with NAABA_REQUIRE_POSTGRES=1 (CI,
 * `npm run test:pg`) that is a failure, not a skip.
 */
const env = environment();
const rounds = Number(env.NAABA_CONTENTION_ROUNDS ?? 3);
const modelRuns = Number(env.NAABA_MODEL_RUNS ?? 100);
const given = env.NAABA_CONTENTION_URL;

const server = given ? undefined : await postgresForTests('real PostgreSQL tests (store conformance, contention rounds)');
const url = given ?? server?.url;

if (url) {
  console.log(`real PostgreSQL-wire server: ${server ? `${server.version}, a throwaway cluster` : redact(url)}`);
  afterAll(async () => server?.stop());

  storeSuite(`real server ${redact(url)}`, () => openUrl(url));

  test(`curation rules: ${modelRuns} random sequences on the real server match the reference model`, async () => {
    const harness = await openUrl(url);
    try {
      await checkCurationModel({
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

    test(`50 concurrent remembers on one (user, kind): at most ${NOTE_CEILING} kept, one journal line per eviction, ≥ 99 % succeed`, async () => {
      expect(await play('one-partition', 50)).toBeGreaterThanOrEqual(0.99);
    });

    test('50 writers on 50 users: every call succeeds', async () => {
      expect(await play('many-users', 50)).toBe(1);
    });

    test('30 identical remembers at once: one memory, every restatement counted and journaled', async () => {
      expect(await play('restatements', 30)).toBeGreaterThanOrEqual(0.99);
    });

    test('exclusive: a second holder of the same key waits for the first; another key does not', async () => {
      const sql = await PgSqlClient.connect({ url, maxConnections: 3, statementTimeoutMs: 5_000 });
      const order: string[] = [];
      const opened: (() => void)[] = [];
      const gate = new Promise<void>((resolve) => opened.push(resolve));
      const release = () => {
        for (const open of opened) open();
      };
      const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
      const first = sql.exclusive('naaba:test:one', async () => {
        order.push('first holds');
        await gate;
        order.push('first lets go');
      });
      await pause();
      const second = sql.exclusive('naaba:test:one', async () => {
        order.push('second holds');
      });
      await sql.exclusive('naaba:test:two', async () => {
        order.push('another key holds');
      });
      await pause();
      release();
      await Promise.all([first, second]);
      await sql.close();
      expect(order).toEqual(['first holds', 'another key holds', 'first lets go', 'second holds']);
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
        query: async <R>(text: string, params?: readonly unknown[]) =>
          (await pool.query(text, params ? [...params] : undefined)).rows as R[],
        exec: async (script) => {
          await pool.query(script);
        },
        close: () => pool.end(),
      };
      const unguarded = await openContentionBench(url, 10, weak);
      const broken: string[] = [];
      for (let i = 0; i < 3 && broken.length === 0; i += 1)
        broken.push(...(await unguarded.round('one-partition', 50)).violations);
      await unguarded.close();
      expect(broken.join('\n')).toMatch(new RegExp(`memories kept for a ceiling of ${NOTE_CEILING}`));
    });
  });
}
