import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { params, sql as sqlText } from '../../lambda/adapters/pg/sql/template.js';
import { LexicalAnalyzer, PASSAGE_TERMS } from '../../lambda/memory/lexical.js';
import { type SweepOptions, Sweeper } from '../../lambda/memory/maintenance/sweeper.js';
import type { Scope } from '../../lambda/memory/model.js';
import { NO_FLOOR } from '../../lambda/memory/policy/floor.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { FUSION, LEXICAL } from '../../lambda/memory/policy/ranking.js';
import type { InsertPlan } from '../../lambda/ports/curation-store.js';
import { ManualClock } from '../support/clock.js';
import { axis } from '../support/vectors.js';
import type { StoreHarness } from './harness.js';
import { insertPlan } from './insert-plan.js';

/**
 * The sweeper's walk that gives postings stored without a passage mask theirs (decision 0119), on
 * the SQL engines (the reference store writes a mask with every posting): postings written before
 * migration 0021, or by older code, are read as one passage until the walk reaches their memory.
 */
export interface PassagesSuiteContext {
  readonly harness: StoreHarness;
  readonly alice: Scope;
}

const T0 = new Date('2026-03-01T00:00:00Z');
const REGION = 'eu-central-1';
const analyzer = new LexicalAnalyzer();
const filler = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`).join(' ');
/** Ids in the order the walk takes them, so that a bounded sweep stops at a known memory. */
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export function passagesStoreTests(context: () => PassagesSuiteContext): void {
  const sql = (): SqlClient => {
    const client = context().harness.sql;
    if (!client) throw new Error('the passages walk runs on SQL engines only');
    return client;
  };
  const sweep = (options: SweepOptions) =>
    new Sweeper(context().harness.stores.maintenance, DEFAULT_RULES, new ManualClock(T0.getTime()), analyzer).run(
      REGION,
      options,
    );

  /** A memory written as remember writes it, with its passage masks. */
  const plan = (content: string, memoryId: string): InsertPlan =>
    insertPlan(
      context().alice,
      { agent: 'agent-a', client: 'tests/1', origin: null, at: T0 },
      {
        id: memoryId,
        content,
        embedding: axis(0),
        frequencies: [...analyzer.frequencies(content).values()],
        passages: [...analyzer.passages(content).values()],
      },
    );

  /** Alice's postings as stored: memory id, term and mask (null: none). */
  const postings = async () =>
    (
      await sql().query<{ memory_id: string; term: string; passages: number | null }>(
        sqlText`SELECT memory_id::text AS memory_id, term, passages FROM memory_terms
                 WHERE user_id = ${params({ user: context().alice.userId }).user}::uuid ORDER BY memory_id, term`,
      )
    ).map((p) => ({ ...p, passages: p.passages === null ? null : Number(p.passages) }));

  /** What older code, or a database from before migration 0021, leaves: postings without a mask. */
  const dropMasks = () => sql().query(sqlText`UPDATE memory_terms SET passages = NULL`);

  /** The lexical arm's order of alice's memories for "zebra quokka", as ids' last digit. */
  const lexicalOrder = async () => {
    const found = await context().harness.stores.curation.recall({
      scope: context().alice,
      embedding: axis(1),
      terms: analyzer.queryTerms('zebra quokka'),
      kinds: [{ kind: 'fact', expiredBefore: null }],
      limit: 10,
      candidates: 50,
      now: T0,
      fusion: { ...FUSION, vectorWeight: 0, following: 0 },
      lexical: LEXICAL,
      farthest: NO_FLOOR,
    });
    return found.map((m) => m.id.slice(-1));
  };

  /** Three long memories with the query's two words, in the first passage together in the second only. */
  const writeLong = async () => {
    for (let i = 0; i < 4; i += 1) await context().harness.stores.curation.insert(plan(filler(400), id(10 + i)), T0);
    await context().harness.stores.curation.insert(plan(`zebra ${filler(398)} quokka`, id(1)), T0);
    await context().harness.stores.curation.insert(plan(`zebra quokka ${filler(398)}`, id(2)), T0);
    await context().harness.stores.curation.insert(plan(`zebra ${filler(397)} quokka b0`, id(3)), T0);
  };

  test('postings stored without masks get the ones remember writes, page by page, and recall ranks as before (decision 0119)', async () => {
    await writeLong();
    const written = await postings();
    const ranked = await lexicalOrder();
    expect(ranked).toEqual(['2', '1', '3']);

    await dropMasks();
    // As one passage each, the three score alike: the order is no longer the passages'.
    expect(await lexicalOrder()).not.toEqual(ranked);

    // Two memories per page, one page per sweep: the walk stops and says so.
    const first = await sweep({ batchSize: 2, maxBatches: 1 });
    expect(first.incomplete).toBe(true);
    // Memories 1 and 2 walked: their postings have masks, memory 3's not yet.
    const half = await postings();
    expect(half.filter((p) => p.memory_id === id(1)).every((p) => p.passages !== null)).toBe(true);
    expect(half.filter((p) => p.memory_id === id(3)).every((p) => p.passages === null)).toBe(true);
    expect(first.passages).toBe(half.filter((p) => p.passages !== null).length);

    // The next sweep goes on from there and reaches the end.
    const rest = await sweep({ batchSize: 2, maxBatches: 20 });
    expect(rest.incomplete).toBe(false);
    expect(await postings()).toEqual(written);
    expect(first.passages + rest.passages).toBe(written.length);
    expect(await lexicalOrder()).toEqual(ranked);

    // A walk that reached the end writes nothing more.
    await dropMasks();
    const after = await sweep({ batchSize: 2, maxBatches: 20 });
    expect(after.passages).toBe(0);
    expect((await postings()).every((p) => p.passages === null)).toBe(true);
  });

  test('the walk writes no mask a posting already has, none of another length, and none for a memory of one passage', async () => {
    await writeLong();
    const short = 'zebra and quokka, side by side';
    await context().harness.stores.curation.insert(plan(short, id(4)), T0);
    await dropMasks();
    // Memory 1's "quokka" was written again by newer code (its own mask stands); memory 2's
    // "quokka" was written from other content (a length the walk's cut does not match).
    const p = params({ one: id(1), two: id(2) });
    await sql().query(sqlText`UPDATE memory_terms SET passages = 6 WHERE memory_id = ${p.one}::uuid AND term = 'quokka'`);
    await sql().query(sqlText`UPDATE memory_terms SET dl = dl + 1 WHERE memory_id = ${p.two}::uuid AND term = 'quokka'`);

    const report = await sweep({ batchSize: 50, maxBatches: 20 });
    expect(report.incomplete).toBe(false);
    const stored = await postings();
    const of = (memory: string, term: string) => stored.find((s) => s.memory_id === memory && s.term === term)?.passages;
    expect(of(id(1), 'quokka')).toBe(6);
    expect(of(id(1), 'zebra')).toBe(1);
    expect(of(id(2), 'quokka')).toBeNull();
    expect(of(id(2), 'zebra')).toBe(1);
    expect(of(id(3), 'quokka')).toBe(analyzer.passages(`zebra ${filler(397)} quokka b0`).get('quokka'));
    // At most PASSAGE_TERMS terms: one passage, which no mask reads the same as.
    expect(analyzer.frequencies(short).size).toBeLessThanOrEqual(PASSAGE_TERMS);
    expect(stored.filter((s) => s.memory_id === id(4)).every((s) => s.passages === null)).toBe(true);
    // Every other posting of the long memories, less the one left as it was written (6).
    expect(report.passages).toBe(stored.filter((s) => s.memory_id !== id(4) && s.passages !== null).length - 1);
  });

  test('a memory whose first posting has its mask was written with masks: the walk reads that posting and writes none', async () => {
    await writeLong();
    await dropMasks();
    const first = analyzer.terms(`zebra ${filler(397)} quokka b0`)[0] ?? '';
    const p = params({ three: id(3), first });
    await sql().query(sqlText`UPDATE memory_terms SET passages = 1 WHERE memory_id = ${p.three}::uuid AND term = ${p.first}`);
    const report = await sweep({ batchSize: 50, maxBatches: 20 });
    const stored = await postings();
    expect(stored.filter((s) => s.memory_id === id(3) && s.term !== first).every((s) => s.passages === null)).toBe(true);
    expect(stored.filter((s) => s.memory_id !== id(3)).every((s) => s.passages !== null)).toBe(true);
    expect(report.passages).toBe(stored.filter((s) => s.memory_id !== id(3)).length);
  });
}
