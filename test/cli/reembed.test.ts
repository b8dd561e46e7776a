import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { SentenceEmbedder } from '../../lambda/adapters/local/sentence-embedder.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { reembed } from '../../lambda/adapters/pg/schema/reembed.js';
import { requireIndexedWith, SchemaError, schemaFacts } from '../../lambda/adapters/pg/schema/facts.js';
import { toVectorLiteral } from '../../lambda/adapters/pg/vector.js';
import { pgliteDir } from '../../lambda/composition.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { Embedder } from '../../lambda/ports/embedder.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { runCli, startServe } from '../support/cli.js';
import { axis } from '../support/vectors.js';

const dir = mkdtempSync(join(tmpdir(), 'naaba-reembed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONTENTS = [
  'Awa runs the bakery in Koudougou.',
  'The bus leaves at 7:40.',
  'Le siège est à Ouagadougou.',
  'Tea, no sugar.',
  'Invoice ZX-4471 is paid.',
];
const current = new LocalEmbedder(256);
const analyzer = new LexicalAnalyzer();

/** Writes memories as an earlier naaba did: other vectors, no lexical terms, nothing recorded about either. */
async function seedEarlierData(db: PgliteSqlClient): Promise<void> {
  const userId = randomUUID();
  for (const [i, content] of CONTENTS.entries()) {
    await insertAsEarlier(db, { userId, id: randomUUID(), content, fingerprint: `f${i}`, axisAt: i });
  }
}

/** One memory as an earlier naaba wrote it: a unit vector along `axisAt`, no terms. */
async function insertAsEarlier(
  db: PgliteSqlClient,
  row: { userId: string; id: string; content: string; fingerprint: string; axisAt: number },
): Promise<void> {
  const at = new Date('2026-06-01T00:00:00Z');
  await sqlMemoryStores(db).curation.insert(
    {
      scope: { region: 'local', userId: row.userId },
      id: row.id,
      kind: 'fact',
      content: row.content,
      fingerprint: row.fingerprint,
      embedding: axis(row.axisAt),
      terms: [],
      pinned: false,
      source: { agent: 'old', client: 'old/0', origin: null, at },
      conflictsWith: undefined,
      ceiling: 100,
      pinLimit: 10,
      sourcesKept: 3,
      expiredBefore: null,
    },
    at,
  );
}

/**
 * Rows whose vector, terms, length or postings differ from what the current embedder and analyzer
 * make of their content; and whether the partition's kept statistics match its postings.
 */
async function staleRows(db: PgliteSqlClient, embedder: Embedder = current): Promise<number> {
  let stale = 0;
  for (const content of CONTENTS) {
    const counts = analyzer.frequencies(content);
    const [row] = await db.query<{
      ok: boolean;
    }>(sql`SELECT (m.embedding <=> ${param('value', toVectorLiteral(await embedder.embed(content)))}::vector) < 1e-6 AND m.terms @> ${param('value', [...counts.keys()])}::text[] AND m.terms <@ ${param('value', [...counts.keys()])}::text[] AND m.term_count = ${param(
      'value',
      [...counts.values()].reduce((a, b) => a + b, 0),
    )}
              AND (SELECT count(*) FROM memory_terms AS p WHERE p.memory_id = m.id) = cardinality(${param('value', [...counts.keys()])}::text[]) AS ok
         FROM memories AS m WHERE m.content = ${param('content', content)}`);
    if (!row?.ok) stale += 1;
  }
  const [kept] = await db.query<{
    ok: boolean;
  }>(sql`SELECT (SELECT COALESCE(sum(df), 0) FROM memory_partition_terms) = (SELECT count(*) FROM memory_terms)
        AND (SELECT COALESCE(sum(term_total), 0) FROM memory_partitions) = (SELECT COALESCE(sum(term_count), 0) FROM memories) AS ok`);
  return kept?.ok ? stale : stale + 1_000;
}

/** A data folder at 256 dimensions holding the earlier naaba's memories, closed: what the CLI is then run on. */
async function earlierDataFolder(name: string): Promise<string> {
  const data = join(dir, name);
  mkdirSync(data, { recursive: true });
  const db = await PgliteSqlClient.open(pgliteDir(data));
  await migrate(db, { embeddingDimensions: 256 });
  await seedEarlierData(db);
  await db.close();
  return data;
}

// CLI processes that compile TypeScript at start and rewrite every memory: sized to the work on a busy machine.
jest.setTimeout(HEAVY_STEP_MS);

test('a data folder embedded by another version is refused at start-up; naaba reembed rewrites it with progress; then it serves', async () => {
  const data = await earlierDataFolder('upgrade');

  const refused = await runCli(['serve', '--data', data, '--port', '0']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('embedded by an earlier naaba that did not record it, not by local-lexical-v2/256');
  expect(refused.stderr).toContain('Run `naaba reembed`');

  const run = await runCli(['reembed', '--data', data, '--batch', '2']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout.split('\n').filter((l) => /memories \(\d+ %\)/.test(l))).toEqual([
    '  2 of 5 memories (40 %)',
    '  4 of 5 memories (80 %)',
    '  5 of 5 memories (100 %)',
  ]);
  expect(run.stdout).toContain('done: 5 memories rewritten');

  const after = await PgliteSqlClient.open(pgliteDir(data));
  expect(await staleRows(after)).toBe(0);
  expect(await schemaFacts(after)).toEqual({ dimensions: 256, embedder: current.name, lexical: analyzer.name });
  await after.close();

  const server = await startServe(['--data', data, '--port', '0']);
  expect(await server.stop()).toBe(0);
});

test('naaba reembed moves a data folder to the sentence encoder (512 dimensions); serve then runs with it', async () => {
  const data = await earlierDataFolder('to-sentence');
  const sentence = { NAABA_EMBEDDER: 'sentence' };

  const refused = await runCli(['serve', '--data', data, '--port', '0'], sentence);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('the schema stores 256 dimensions, the embedder makes 512. Run `naaba reembed`');

  const run = await runCli(['reembed', '--data', data], sentence);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('re-embedding with use-lite-en/512');
  expect(run.stdout).toContain('  5 of 5 memories (100 %)');

  const after = await PgliteSqlClient.open(pgliteDir(data));
  expect(await embeddingColumns(after)).toEqual({ embedding: 'vector(512)' });
  expect(await schemaFacts(after)).toEqual({ dimensions: 512, embedder: 'use-lite-en/512', lexical: analyzer.name });
  expect(await staleRows(after, new SentenceEmbedder())).toBe(0);
  await after.close();

  const server = await startServe(['--data', data, '--port', '0'], sentence);
  expect(await server.stop()).toBe(0);
  // And the lexical embedder is now the one refused.
  expect((await runCli(['serve', '--data', data, '--port', '0'])).stderr).toContain('the schema stores 512 dimensions');
});

/** The current embedder, failing after `allowed` calls: an interruption in the middle of a run. */
class Interrupted implements Embedder {
  readonly name = current.name;
  readonly dimensions = current.dimensions;
  calls = 0;
  constructor(private readonly allowed: number) {}
  async embed(text: string): Promise<number[]> {
    this.calls += 1;
    if (this.calls > this.allowed) throw new Error('interrupted');
    return current.embed(text);
  }
}

test('an interrupted reembed continues where it stopped; the database is refused until it completes', async () => {
  const db = await PgliteSqlClient.open();
  await migrate(db, { embeddingDimensions: 256 });
  await seedEarlierData(db);
  const wanted = { embedder: current.name, lexical: analyzer.name };

  await expect(reembed(db, new Interrupted(3), analyzer, { batch: 2 })).rejects.toThrow('interrupted');
  expect(await staleRows(db)).toBe(3);
  await expect(requireIndexedWith(db, await schemaFacts(db), wanted)).rejects.toThrow(SchemaError);

  const resumed = new Interrupted(Number.POSITIVE_INFINITY);
  const progress: number[] = [];
  expect(await reembed(db, resumed, analyzer, { batch: 2, onBatch: (p) => progress.push(p.done) })).toEqual({
    done: 5,
    total: 5,
  });
  expect(resumed.calls).toBe(3);
  expect(progress).toEqual([4, 5]);
  expect(await staleRows(db)).toBe(0);
  await expect(requireIndexedWith(db, await schemaFacts(db), wanted)).resolves.toBeUndefined();
  expect(await db.query(sql`SELECT * FROM naaba_settings WHERE name = 'reembed_cursor'`)).toEqual([]);

  // Run again: nothing is left to continue, so it simply rewrites everything once more.
  expect(await reembed(db, current, analyzer, { batch: 10 })).toEqual({ done: 5, total: 5 });
  await db.close();
});

/** The type the embedding columns have now, e.g. {embedding: 'vector(256)'}: what the schema really holds. */
async function embeddingColumns(db: PgliteSqlClient): Promise<Record<string, string>> {
  const rows = await db.query<{
    name: string;
    type: string;
    nullable: boolean;
  }>(sql`SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
       FROM pg_attribute AS a WHERE a.attrelid = 'memories'::regclass AND a.attname LIKE 'embedding%' AND NOT a.attisdropped`);
  return Object.fromEntries(rows.map((r) => [r.name, `${r.type}${r.nullable ? ' null' : ''}`]));
}

/** The lexical embedder at 128 dimensions, failing after `allowed` calls. */
class InterruptedAt128 implements Embedder {
  private readonly inner = new LocalEmbedder(128);
  readonly name = this.inner.name;
  readonly dimensions = 128;
  calls = 0;
  constructor(private readonly allowed: number) {}
  async embed(text: string): Promise<number[]> {
    this.calls += 1;
    if (this.calls > this.allowed) throw new Error('interrupted');
    return this.inner.embed(text);
  }
}

test('reembed moves a database to another dimension: vectors, schema and recorded dimension change together', async () => {
  const db = await PgliteSqlClient.open();
  await migrate(db, { embeddingDimensions: 256 });
  await seedEarlierData(db);
  const smaller = new LocalEmbedder(128);
  expect(await reembed(db, smaller, analyzer, { batch: 2 })).toEqual({ done: 5, total: 5 });
  expect(await embeddingColumns(db)).toEqual({ embedding: 'vector(128)' });
  expect(await schemaFacts(db)).toEqual({ dimensions: 128, embedder: smaller.name, lexical: analyzer.name });
  expect(await staleRows(db, smaller)).toBe(0);
  // The moved rows are recalled by the new embedder's vectors.
  const [nearest] = await db.query<{ content: string }>(
    sql`SELECT content FROM memories ORDER BY embedding <=> ${param('value', toVectorLiteral(await smaller.embed('the bakery in Koudougou')))}::vector LIMIT 1`,
  );
  expect(nearest?.content).toBe(CONTENTS[0]);
  await db.close();
});

test('an interrupted change of dimension leaves the old schema usable, catches up rows written meanwhile, and completes', async () => {
  const db = await PgliteSqlClient.open();
  await migrate(db, { embeddingDimensions: 256 });
  await seedEarlierData(db);

  // A first attempt toward 64 dimensions stops early; the next run is toward 128 and replaces its column.
  const toward64 = new LocalEmbedder(64);
  let calls = 0;
  const stopsEarly: Embedder = {
    name: toward64.name,
    dimensions: 64,
    embed: async (text) => {
      calls += 1;
      if (calls > 1) throw new Error('interrupted');
      return toward64.embed(text);
    },
  };
  await expect(reembed(db, stopsEarly, analyzer, { batch: 2 })).rejects.toThrow('interrupted');
  expect(await embeddingColumns(db)).toEqual({ embedding: 'vector(256)', embedding_next: 'vector(64) null' });

  await expect(reembed(db, new InterruptedAt128(3), analyzer, { batch: 2 })).rejects.toThrow('interrupted');
  expect(await embeddingColumns(db)).toEqual({ embedding: 'vector(256)', embedding_next: 'vector(128) null' });
  expect((await schemaFacts(db)).dimensions).toBe(256);
  expect(await db.query(sql`SELECT count(*)::int4 AS n FROM memories WHERE embedding_next IS NOT NULL`)).toEqual([{ n: 2 }]);

  // A writer the operator forgot to stop adds a row at the old dimension, before the cursor or after it.
  const late = 'Written while the reembed was stopped.';
  await insertAsEarlier(db, {
    userId: randomUUID(),
    id: '00000000-0000-4000-8000-000000000000',
    content: late,
    fingerprint: 'late',
    axisAt: 7,
  });

  const resumed = new InterruptedAt128(Number.POSITIVE_INFINITY);
  expect(await reembed(db, resumed, analyzer, { batch: 2 })).toEqual({ done: 6, total: 6 });
  // Three rows left after the interruption, and the late one behind the cursor caught up at the end.
  expect(resumed.calls).toBe(4);
  expect(await embeddingColumns(db)).toEqual({ embedding: 'vector(128)' });
  expect((await schemaFacts(db)).dimensions).toBe(128);
  expect(await staleRows(db, new LocalEmbedder(128))).toBe(0);
  const [moved] = await db.query<{ ok: boolean }>(
    sql`SELECT (embedding <=> ${param('value', toVectorLiteral(await new LocalEmbedder(128).embed(late)))}::vector) < 1e-6 AS ok FROM memories WHERE content = ${param('late', late)}`,
  );
  expect(moved?.ok).toBe(true);
  expect(await db.query(sql`SELECT * FROM naaba_settings WHERE name = 'reembed_cursor'`)).toEqual([]);
  await db.close();
});

test('an empty database adopts the embedder and analyzer in force at start-up', async () => {
  const db = await PgliteSqlClient.open();
  await migrate(db, { embeddingDimensions: 256 });
  expect(await schemaFacts(db)).toEqual({ dimensions: 256, embedder: 'unrecorded', lexical: 'unrecorded' });
  await requireIndexedWith(db, await schemaFacts(db), { embedder: current.name, lexical: analyzer.name });
  expect(await schemaFacts(db)).toEqual({ dimensions: 256, embedder: current.name, lexical: analyzer.name });
  const english = new LexicalAnalyzer('english');
  await requireIndexedWith(db, await schemaFacts(db), { embedder: current.name, lexical: english.name });
  expect((await schemaFacts(db)).lexical).toBe(english.name);
  await db.close();
});
