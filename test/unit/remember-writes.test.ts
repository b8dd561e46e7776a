import { readFileSync } from 'node:fs';
import { FILES, schemaAfter, type Table } from '../support/cockroach-schema.js';

/**
 * The KV writes of one remember on CockroachDB, derived from the DDL of sql/cockroach/ (no cluster
 * here) and held to the counts decisions 0098 and 0160 document: a migration that adds, drops or
 * narrows an index of a table the remember writes changes the count, and this test fails until a
 * decision record says so.
 *
 * CockroachDB writes one KV per row in the primary index (one column family: the DDL declares
 * none) and one per secondary index entry, a partial index only when its predicate holds
 * (docs: "Indexes", "Partial indexes"; a vector index holds one entry per row, in its partition).
 */

/** What a written row is, for the partial indexes' predicates. */
type Row = Readonly<Record<string, boolean>>;

/** Whether a partial index's predicate holds for a row; an unknown predicate stops the test. */
function holds(where: string, row: Row): boolean {
  const known: Record<string, (r: Row) => boolean> = {
    expires: (r) => r.expires ?? false,
    pinned: (r) => r.pinned ?? false,
    'origin IS NOT NULL': (r) => r.origin ?? false,
    'df <= 0': (r) => r.emptied ?? false,
    // A posting among its term's flagged best, and a term whose flagged postings need ranking (decision 0101).
    best: (r) => r.best ?? false,
    stale: (r) => r.stale ?? false,
    // A memory a newer one superseded (decision 0107): a typical remember writes none; a superseding one updates the older row into it.
    'superseded_at IS NOT NULL': (r) => r.superseded ?? false,
  };
  const rule = known[where];
  if (!rule) throw new Error(`a partial index on "${where}": say when a remember writes it`);
  return rule(row);
}

/** The KVs one row of a table costs to insert or delete: its primary index entry, then each index entry it has. */
function entries(tables: Map<string, Table>, name: string, row: Row): string[] {
  const t = tables.get(name);
  if (!t) throw new Error(`no table ${name}`);
  const secondary = [...t.indexes.entries()].filter(([, i]) => i.where === undefined || holds(i.where, row)).map(([n]) => n);
  return [`${name} (${t.primaryKey})`, ...secondary.sort()];
}

/**
 * A typical memory (decision 0098): unpinned, of a kind without a TTL, with an origin (an agent's
 * conversation), T distinct terms, each posting flagged among its term's best and no term left to
 * rank (at the default ceilings every posting fits under the flagged bound, decision 0101); at the
 * ceiling one victim alike, with terms of its own.
 */
const MEMORY: Row = { pinned: false, expires: false, origin: true };
const TERMS = 15;

function remember(files: readonly string[], atCeiling: boolean) {
  const tables = schemaAfter(files);
  const memory = entries(tables, 'memories', MEMORY).length;
  const posting = entries(tables, 'memory_terms', { best: true }).length;
  const frequency = entries(tables, 'memory_partition_terms', { emptied: false, stale: false }).length;
  const partition = entries(tables, 'memory_partitions', {}).length;
  const journal = entries(tables, 'journal', {}).length;
  const written = memory + TERMS * (posting + frequency) + partition;
  // The victim's row and postings deleted (a delete writes a tombstone per entry), its terms' frequencies down, a journal line.
  const evicted = memory + TERMS * (posting + frequency) + journal;
  return { memory, posting, frequency, partition, journal, total: written + (atCeiling ? evicted : 0) };
}

/**
 * Before issue 32 (0001–0010); after it, up to issue 51's postings index (0001–0022, decision 0098's
 * "after"); now: every migration of the repository, so that a later one is counted too (decision 0160).
 */
const BEFORE = FILES.filter((f) => f < '0011');
const ISSUE_32 = FILES.filter((f) => f < '0023');
const decision = (file: string) => readFileSync(new URL(`../../docs/decisions/${file}`, import.meta.url), 'utf8');
const D0098 = decision('0098-a-users-memories-stored-together.md');
const D0160 = decision('0160-postings-counted-and-trimmed.md');
/** The documented count of a row of a decision's table: `| label | before | after |`. */
const documented = (text: string, label: string): [number, number] => {
  const row = text.split('\n').find((l) => l.startsWith(`| ${label} |`));
  const [, , before, after] = row?.split('|').map((c) => c.trim()) ?? [];
  return [Number(before?.split(' ')[0]), Number(after?.split(' ')[0])];
};

describe('KV writes of a remember on CockroachDB, from sql/cockroach/ (decision 0098)', () => {
  test('memories: the key, then the index entries a typical memory has', () => {
    expect(entries(schemaAfter(BEFORE), 'memories', MEMORY)).toEqual([
      'memories (region, id)',
      'memories_embedding',
      'memories_fingerprint',
      'memories_origin',
      'memories_origin_seq',
      'memories_user_kind',
    ]);
    expect(entries(schemaAfter(FILES), 'memories', MEMORY)).toEqual([
      'memories (region, user_id, kind, id)',
      'memories_embedding',
      'memories_fingerprint',
      'memories_id',
      'memories_origin_seq',
      'memories_partition',
    ]);
    // A pinned memory or one of a kind with a TTL has one more entry each.
    expect(entries(schemaAfter(FILES), 'memories', { ...MEMORY, pinned: true })).toContain('memories_pinned');
    expect(entries(schemaAfter(FILES), 'memories', { ...MEMORY, expires: true })).toContain('memories_expiring');
  });

  test.each<[string, keyof ReturnType<typeof remember>]>([
    ['memories entries per memory', 'memory'],
    ['memory_terms entries per term', 'posting'],
    ['memory_partition_terms entries per term', 'frequency'],
    ['memory_partitions entries', 'partition'],
    ['journal entries per line', 'journal'],
  ])('%s are as 0098 and 0160 document', (label, part) => {
    expect(documented(D0098, label)).toEqual([remember(BEFORE, false)[part], remember(ISSUE_32, false)[part]]);
    expect(documented(D0160, label)).toEqual([remember(ISSUE_32, false)[part], remember(FILES, false)[part]]);
  });

  test.each<[string, boolean]>([
    ['KV writes per remember below the ceiling', false],
    ['KV writes per remember at the ceiling', true],
  ])('%s are as 0098 and 0160 document', (label, atCeiling) => {
    expect(documented(D0098, label)).toEqual([remember(BEFORE, atCeiling).total, remember(ISSUE_32, atCeiling).total]);
    expect(documented(D0160, label)).toEqual([remember(ISSUE_32, atCeiling).total, remember(FILES, atCeiling).total]);
  });

  test('a flagged posting is one secondary entry: its span of memory_terms_ranked (decision 0160)', () => {
    expect(entries(schemaAfter(ISSUE_32), 'memory_terms', { best: true })).toEqual([
      'memory_terms (region, user_id, kind, term, memory_id)',
      'memory_terms_best',
      'memory_terms_impact',
    ]);
    expect(entries(schemaAfter(FILES), 'memory_terms', { best: true })).toEqual([
      'memory_terms (region, user_id, kind, term, memory_id)',
      'memory_terms_ranked',
    ]);
  });
});
