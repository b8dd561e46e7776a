import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import xray from 'aws-xray-sdk-core';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { ANY_MEMORY } from '../../lambda/adapters/pg/statements/schema/any-memory.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { type SqlTracer, statementLabel, TracedSqlClient, traceSql } from '../../lambda/adapters/pg/traced-client.js';
import { memoryServices } from '../../lambda/memory/services.js';
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

const v = param('value', 'x');
test.each([
  ['a named statement of the store', ANY_MEMORY.query({}, 'postgres'), 'schema/any-memory'],
  ['a read', sql`SELECT key_id FROM api_keys WHERE token_sha256 = ${v}`, 'SELECT api_keys'],
  ['a function call', sql`SELECT pg_advisory_lock(hashtextextended(${v}, 0))`, 'SELECT pg_advisory_lock'],
  ['literals are never read', sql`SELECT 'DELETE FROM secrets' AS x FROM notes WHERE a = 'INSERT INTO y'`, 'SELECT notes'],
  ['comments are never read', sql`/* UPDATE secrets */ DELETE FROM journal -- INSERT INTO z\n WHERE id = ${v}`, 'DELETE journal'],
  ['no table at all', sql`SELECT 1`, 'SELECT'],
])('a statement label from keywords and identifiers only: %s', (_case, query, label) => {
  expect(statementLabel(query)).toBe(label);
});

test('through the memory service, one span per statement, named by its label; no parameter, content or id reaches one', async () => {
  const tracer = new RecordingTracer();
  const traced = new TracedSqlClient(db, tracer);
  const config = loadConfig({});
  const memory = memoryServices({
    stores: sqlMemoryStores(traced),
    embedder: new LocalEmbedder(256),
    judge: new ExactOnlyJudge(),
    clock: new ManualClock(),
    rules: config.rules,
  }).curation;
  const principal = { userId: USER, region: 'eu-central-1', agent: 'a', keyId: 'k' };

  await memory.remember(principal, { name: 'c', version: '1' }, { content: CONTENT, kind: 'fact' });
  await memory.recall(principal, { query: 'locker combination' });

  expect(tracer.spans.map((s) => s.name)).toEqual(['SQL curation/neighbours', 'SQL curation/insert-memory', 'SQL recall/recall']);
  expect(tracer.spans[0]?.annotations).toEqual({ statement: 'curation/neighbours', engine: 'postgres' });
  const recorded = JSON.stringify(tracer.spans);
  for (const secret of [CONTENT, '31-07-44', 'locker', USER, 'eu-central-1']) expect(recorded).not.toContain(secret);
});

test('transaction is forwarded only where the inner client has it, and the statements inside are traced too', async () => {
  let transactions = 0;
  const transactional: SqlClient = {
    engine: 'postgres',
    query: (query) => db.query(query),
    exec: (script) => db.exec(script),
    close: async () => undefined,
    transaction: (work) => {
      transactions += 1;
      return work(db);
    },
  };
  const tracer = new RecordingTracer();

  const traced = new TracedSqlClient(transactional, tracer);
  await traced.transaction?.((session) => session.query(sql`SELECT 1 AS one`));

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

  await traced.query(sql`SELECT count(*) FROM memories WHERE user_id = ${param('USER', USER)}::uuid`);
  await expect(traced.query(sql`SELECT ${param('CONTENT', CONTENT)}::uuid AS id`)).rejects.toThrow();

  const [ok, failed] = (segment.subsegments ?? []).map((s) => JSON.parse(JSON.stringify(s)) as Record<string, unknown>);
  expect(ok).toMatchObject({ name: 'SQL SELECT memories', namespace: 'remote', annotations: { statement: 'SELECT memories' } });
  expect(ok?.end_time).toEqual(expect.any(Number));
  expect(failed).toMatchObject({ name: 'SQL SELECT', error: true, annotations: { error_code: '22P02' } });
  const recorded = segment.format();
  for (const secret of [CONTENT, USER, 'invalid input syntax']) expect(recorded).not.toContain(secret);
});
