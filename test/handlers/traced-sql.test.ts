import xray from 'aws-xray-sdk-core';
import { recallSql } from '../../lambda/adapters/pg/memory-sql.js';
import { SqlMemoryStore } from '../../lambda/adapters/pg/memory-store.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { ANY_MEMORY } from '../../lambda/adapters/pg/schema.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { type SqlTracer, statementLabel, TracedSqlClient, traceSql } from '../../lambda/adapters/pg/traced-client.js';
import { MemoryService } from '../../lambda/memory/service.js';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../../lambda/adapters/local/judge.js';
import { loadConfig } from '../../lambda/config/env.js';
import { tracingWith } from '../../lambda/observability.js';
import { ManualClock } from '../support/clock.js';
import { freshDatabase } from '../support/database.js';

/** A tracer port that records what each span would have carried. */
class RecordingTracer implements SqlTracer {
  readonly spans: { name: string; annotations: Readonly<Record<string, string>> }[] = [];

  span<T>(name: string, annotations: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T> {
    this.spans.push({ name, annotations });
    return work();
  }
}

const CONTENT = 'my locker combination is 31-07-44';
const USER = '6f1c2a9e-1111-4222-8333-944455556666';

let db: PgliteSqlClient;
beforeAll(async () => {
  db = await freshDatabase(256);
});
afterAll(async () => db.close());

test.each([
  ['a named statement of the store', ANY_MEMORY, 'ANY_MEMORY'],
  ['a generated statement (recall, two kinds)', recallSql(2, 1, true), 'WITH UPDATE memories'],
  ['a read', 'SELECT key_id FROM api_keys WHERE token_sha256 = $1', 'SELECT api_keys'],
  ['a function call', 'SELECT pg_advisory_lock(hashtextextended($1, 0))', 'SELECT pg_advisory_lock'],
  ['literals are never read', "SELECT 'DELETE FROM secrets' AS x FROM notes WHERE a = 'INSERT INTO y'", 'SELECT notes'],
  ['comments are never read', '/* UPDATE secrets */ DELETE FROM journal -- INSERT INTO z\n WHERE id = $1', 'DELETE journal'],
  ['no table at all', 'SELECT 1', 'SELECT'],
])('a statement label from keywords and identifiers only: %s', (_case, text, label) => {
  expect(statementLabel(text)).toBe(label);
});

test('through the memory service, one span per statement, named by its label; no parameter, content or id reaches one', async () => {
  const tracer = new RecordingTracer();
  const traced = new TracedSqlClient(db, tracer);
  const config = loadConfig({});
  const memory = new MemoryService({
    store: new SqlMemoryStore(traced),
    embedder: new LocalEmbedder(256),
    judge: new ExactOnlyJudge(),
    clock: new ManualClock(),
    rules: config.rules,
  });
  const principal = { userId: USER, region: 'eu-central-1', agent: 'a', keyId: 'k' };

  await memory.remember(principal, { name: 'c', version: '1' }, { content: CONTENT, kind: 'fact' });
  await memory.recall(principal, { query: 'locker combination' });

  expect(tracer.spans.map((s) => s.name)).toEqual(['SQL NEIGHBOURS', 'SQL INSERT', 'SQL WITH UPDATE memories']);
  expect(tracer.spans[0]?.annotations).toEqual({ statement: 'NEIGHBOURS', engine: 'postgres' });
  const recorded = JSON.stringify(tracer.spans);
  for (const secret of [CONTENT, '31-07-44', 'locker', USER, 'eu-central-1']) expect(recorded).not.toContain(secret);
});

test('transaction is forwarded only where the inner client has it, and the statements inside are traced too', async () => {
  let transactions = 0;
  const transactional: SqlClient = {
    engine: 'postgres',
    query: (text, params) => db.query(text, params),
    exec: (script) => db.exec(script),
    close: async () => undefined,
    transaction: (work) => {
      transactions += 1;
      return work(db);
    },
  };
  const tracer = new RecordingTracer();

  const traced = new TracedSqlClient(transactional, tracer);
  await traced.transaction?.((session) => session.query('SELECT 1 AS one'));

  expect(new TracedSqlClient(db, tracer).transaction).toBeUndefined();
  expect(transactions).toBe(1);
  expect(tracer.spans.map((s) => s.name)).toEqual(['SQL transaction', 'SQL SELECT']);
});

test('without a tracer the client is returned as it is', () => {
  expect(traceSql(db, undefined)).toBe(db);
});

test('on a real X-Ray segment: a closed subsegment per statement, annotated, flagged on error, no parameter or message in it', async () => {
  const segment = new xray.Segment('naaba-test');
  const tracing = tracingWith({ getSegment: () => segment, captureAWSv3Client: <T>(client: T) => client });
  const traced = new TracedSqlClient(db, tracing);

  await traced.query('SELECT count(*) FROM memories WHERE user_id = $1::uuid', [USER]);
  await expect(traced.query('SELECT $1::uuid AS id', [CONTENT])).rejects.toThrow();

  const [ok, failed] = (segment.subsegments ?? []).map((s) => JSON.parse(JSON.stringify(s)) as Record<string, unknown>);
  expect(ok).toMatchObject({ name: 'SQL SELECT memories', namespace: 'remote', annotations: { statement: 'SELECT memories' } });
  expect(ok?.end_time).toEqual(expect.any(Number));
  expect(failed).toMatchObject({ name: 'SQL SELECT', error: true, annotations: { error_code: '22P02' } });
  const recorded = segment.format();
  for (const secret of [CONTENT, USER, 'invalid input syntax']) expect(recorded).not.toContain(secret);
});
