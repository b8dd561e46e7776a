import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { SqlMemoryStore } from '../../lambda/adapters/pg/memory-store.js';
import { migrate } from '../../lambda/adapters/pg/migrate.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { reembed } from '../../lambda/adapters/pg/reembed.js';
import { requireIndexedWith, SchemaError, schemaFacts } from '../../lambda/adapters/pg/schema.js';
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
  const store = new SqlMemoryStore(db);
  const scope = { region: 'local', userId: randomUUID() };
  const at = new Date('2026-06-01T00:00:00Z');
  for (const [i, content] of CONTENTS.entries()) {
    await store.insert(
      {
        scope,
        id: randomUUID(),
        kind: 'fact',
        content,
        fingerprint: `f${i}`,
        embedding: axis(i),
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
}

/**
 * Rows whose vector, terms, length or postings differ from what the current embedder and analyzer
 * make of their content; and whether the partition's kept statistics match its postings.
 */
async function staleRows(db: PgliteSqlClient): Promise<number> {
  let stale = 0;
  for (const content of CONTENTS) {
    const counts = analyzer.frequencies(content);
    const [row] = await db.query<{ ok: boolean }>(
      `SELECT (m.embedding <=> $2::vector) < 1e-6 AND m.terms @> $3::text[] AND m.terms <@ $3::text[] AND m.term_count = $4
              AND (SELECT count(*) FROM memory_terms AS p WHERE p.memory_id = m.id) = cardinality($3::text[]) AS ok
         FROM memories AS m WHERE m.content = $1`,
      [
        content,
        toVectorLiteral(await current.embed(content)),
        [...counts.keys()],
        [...counts.values()].reduce((a, b) => a + b, 0),
      ],
    );
    if (!row?.ok) stale += 1;
  }
  const [kept] = await db.query<{ ok: boolean }>(
    `SELECT (SELECT COALESCE(sum(df), 0) FROM memory_partition_terms) = (SELECT count(*) FROM memory_terms)
        AND (SELECT COALESCE(sum(term_total), 0) FROM memory_partitions) = (SELECT COALESCE(sum(term_count), 0) FROM memories) AS ok`,
  );
  return kept?.ok ? stale : stale + 1_000;
}

// CLI processes that compile TypeScript at start and rewrite every memory: sized to the work on a busy machine.
jest.setTimeout(HEAVY_STEP_MS);

test('a data folder embedded by another version is refused at start-up; naaba reembed rewrites it with progress; then it serves', async () => {
  const data = join(dir, 'upgrade');
  mkdirSync(data, { recursive: true });
  const db = await PgliteSqlClient.open(pgliteDir(data));
  await migrate(db, { embeddingDimensions: 256 });
  await seedEarlierData(db);
  await db.close();

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
  expect(await db.query("SELECT * FROM naaba_settings WHERE name = 'reembed_cursor'")).toEqual([]);

  // Run again: nothing is left to continue, so it simply rewrites everything once more.
  expect(await reembed(db, current, analyzer, { batch: 10 })).toEqual({ done: 5, total: 5 });
  await db.close();
});

test('reembed keeps the dimension: another one is refused before anything is written', async () => {
  const db = await PgliteSqlClient.open();
  await migrate(db, { embeddingDimensions: 256 });
  await seedEarlierData(db);
  await expect(reembed(db, new LocalEmbedder(128), analyzer, { batch: 2 })).rejects.toThrow('re-embedding keeps the dimension');
  expect(await staleRows(db)).toBe(5);
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
