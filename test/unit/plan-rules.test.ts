import type { PlanExpectations } from '../../lambda/adapters/pg/sql/statement.js';
import type { Plan } from '../../bin/plan/explain.js';
import { lexicalProblems, planProblems, prefixProblems } from '../../bin/plan/rules.js';
import { forgetIdsText, NEIGHBOURS_TEXT, recallText } from '../plan/statement-texts.js';

/**
 * CockroachDB plans cannot be produced here (no cluster); these are shaped on the EXPLAIN output
 * documented for v25.4 (vector-indexes.md: "• vector search … table: items@…_idx … prefix spans")
 * and on the operator names in pkg/sql/opt/exec/explain/emit.go. They pin down what the rules
 * accept and refuse; `npm run verify:plan -- --url` checks real plans.
 */
const cockroach = (...lines: string[]): Plan => ({ engine: 'cockroach', lines, seqScans: [], indexes: [] });

const VECTOR_READ = cockroach(
  'distribution: local',
  '• top-k',
  '│ k: 1',
  '└── • render',
  '    └── • lookup join',
  '        │ table: memories@memories_pkey',
  '        └── • vector search',
  '              table: memories@memories_embedding',
  '              target count: 1',
  "              prefix spans: [/'eu-central-1'/'0b0e…'/'fact' - /'eu-central-1'/'0b0e…'/'fact']",
);
const FALLBACK_SCAN = cockroach(
  '• top-k',
  '└── • filter',
  '    └── • scan',
  '          table: memories@memories_pkey',
  '          spans: FULL SCAN',
);
const BTREE_INSTEAD = cockroach(
  '• top-k',
  '└── • index join',
  '    └── • scan',
  '          table: memories@memories_user_kind',
  "          spans: [/'eu-central-1'/'0b0e…'/'fact' - /'eu-central-1'/'0b0e…'/'fact']",
);
const VECTOR_WRITE = cockroach(
  '• root',
  '├── • insert',
  '│   └── • vector mutation search',
  '│         table: memories@memories_embedding',
  '└── • constraint-check',
);
const DELETE_WITHOUT_INDEX = cockroach(
  '• delete',
  '└── • scan',
  '      table: memories@memories_pkey',
  "      spans: [/'eu-central-1' - /'eu-central-1']",
);

/** A hybrid recall: the vector search, and the lexical arm's postings read by their primary key over the prefix. */
const HYBRID_READ = cockroach(
  ...VECTOR_READ.lines,
  '• group (hash)',
  '└── • lookup join',
  '    │ table: memory_terms@memory_terms_ranked',
  '    │ equality: (region, user_id, kind, term, best) = (…)',
  '    └── • scan',
  '          table: memory_partition_terms@memory_partition_terms_pkey',
  "          spans: [/'eu-central-1'/'0b0e…'/'fact'/'bread' - /'eu-central-1'/'0b0e…'/'fact'/'bread']",
);
/** What follows each hit, read from memories_origin_seq by the places after the hit's. */
const FOLLOWING_READ = [
  '• lookup join',
  '│ table: memories@memories_origin_seq',
  '│ equality: (region, user_id, origin, kind, origin_seq) = (…)',
];
/** The same read by (user, origin, kind) only: every memory of the origin, for each hit. */
const FOLLOWING_BY_ORIGIN = [
  '• lookup join',
  '│ table: memories@memories_origin_seq',
  '│ equality: (region, user_id, origin, kind) = (…)',
  '• window',
];
/** A range after the hit's place: still the rest of the origin. */
const FOLLOWING_BY_RANGE = [
  '• lookup join',
  '│ table: memories@memories_origin_seq (partial index)',
  '│ lookup condition: (((region = …) AND (user_id = …)) AND (origin = …)) AND (origin_seq > …)',
];
/** The same recall whose postings read became a scan of the memories instead. */
const LEXICAL_ON_BTREE = cockroach(...VECTOR_READ.lines, ...BTREE_INSTEAD.lines);

const read: PlanExpectations = { vectorSearch: true };
const hybrid: PlanExpectations = { vectorSearch: true, lexicalSearch: true };
const recalled: PlanExpectations = { ...hybrid, followingRead: true };
const write: PlanExpectations = { vectorMutation: true };

describe('CockroachDB plan rules', () => {
  test.each<[string, string, PlanExpectations, Plan, string[]]>([
    ['a vector read with vector search on the vector index', NEIGHBOURS_TEXT, read, VECTOR_READ, []],
    ['a vector read that fell back to a full scan', NEIGHBOURS_TEXT, read, FALLBACK_SCAN, ['no "vector search"', 'a FULL SCAN']],
    ['a vector read served by the btree', NEIGHBOURS_TEXT, read, BTREE_INSTEAD, ['no "vector search"']],
    ['a vector write with vector mutation search', forgetIdsText(1), write, VECTOR_WRITE, []],
    [
      'a vector write without vector mutation search',
      forgetIdsText(1),
      write,
      DELETE_WITHOUT_INDEX,
      ['no "vector mutation search"'],
    ],
    ['an admin listing may scan everything', 'SELECT 1', { fullScanAllowed: true }, FALLBACK_SCAN, []],
    ['a hybrid recall: vector search and the postings by their key', recallText(1, 0, true), hybrid, HYBRID_READ, []],
    [
      'a hybrid recall whose lexical read went to the memories instead',
      recallText(1, 0, true),
      hybrid,
      LEXICAL_ON_BTREE,
      ['no read of memory_terms@memory_terms_ranked'],
    ],
    [
      'a hybrid recall whose lexical read became a full scan',
      recallText(1, 0, true),
      hybrid,
      cockroach(...VECTOR_READ.lines, ...FALLBACK_SCAN.lines),
      ['no read of memory_terms@memory_terms_ranked', 'a FULL SCAN'],
    ],
    [
      'a recall reading what follows each hit from memories_origin_seq, by place',
      recallText(1, 0, true),
      recalled,
      cockroach(...HYBRID_READ.lines, ...FOLLOWING_READ),
      [],
    ],
    [
      "a recall reading each hit's whole origin",
      recallText(1, 0, true),
      recalled,
      cockroach(...HYBRID_READ.lines, ...FOLLOWING_BY_ORIGIN),
      ['memories@memories_origin_seq is not read by place'],
    ],
    [
      "a recall reading the rest of each hit's origin as a range",
      recallText(1, 0, true),
      recalled,
      cockroach(...HYBRID_READ.lines, ...FOLLOWING_BY_RANGE),
      ['memories@memories_origin_seq is not read by place'],
    ],
    [
      'a recall reading by place once and by origin once',
      recallText(1, 0, true),
      recalled,
      cockroach(...HYBRID_READ.lines, ...FOLLOWING_READ, ...FOLLOWING_BY_ORIGIN),
      ['memories@memories_origin_seq is not read by place'],
    ],
    [
      'a recall reading what follows each hit from the whole user instead',
      recallText(1, 0, true),
      recalled,
      cockroach(...HYBRID_READ.lines, ...BTREE_INSTEAD.lines),
      ['no read of memories@memories_origin_seq'],
    ],
    [
      'a region batch reading the index it names (decision 0098)',
      'SELECT 1',
      { cockroachIndex: 'memories@memories_id' },
      cockroach(
        '• update',
        '└── • scan',
        '      table: memories@memories_id',
        "      spans: [/'eu-central-1'/'0b0e…' - /'eu-central-1']",
        '      limit: 20',
      ),
      [],
    ],
    [
      'a region batch walking the primary key instead',
      'SELECT 1',
      { cockroachIndex: 'memories@memories_id' },
      DELETE_WITHOUT_INDEX,
      ['no read of memories@memories_id'],
    ],
    [
      'a remember whose partition is read whole from one span',
      forgetIdsText(1),
      { ...write, noIndexJoin: true },
      VECTOR_WRITE,
      [],
    ],
    [
      'a remember whose partition read joins back to the primary key',
      forgetIdsText(1),
      { ...write, noIndexJoin: true },
      cockroach(...VECTOR_WRITE.lines, ...BTREE_INSTEAD.lines),
      ['an index join'],
    ],
  ])('%s', (_label, sql, expectations, plan, problems) => {
    const found = planProblems(sql, expectations, plan);
    expect(found.length).toBe(problems.length);
    for (const [i, p] of problems.entries()) expect(found[i]).toContain(p);
  });
});

describe('PostgreSQL plan rules', () => {
  const postgres = (...indexes: string[]): Plan => ({ engine: 'postgres', lines: [], seqScans: [], indexes });
  const following: PlanExpectations = { followingRead: true, postgresIndex: 'memories_user_kind' };
  const byPlace =
    'Index Scan using memories_origin_seq on memories by ((region = $1) AND (origin = p.origin) AND (origin_seq = p.place))';
  const byOrigin =
    'Index Scan using memories_origin_seq on memories by ((region = $1) AND (origin = h.origin) AND (kind = h.kind))';
  test('recall must read what follows its hits through memories_origin_seq, by place', () => {
    const read = (line: string): Plan => ({ ...postgres('memories_user_kind', 'memories_origin_seq'), lines: [line] });
    expect(planProblems(recallText(1, 0, false), following, read(byPlace))).toEqual([]);
    expect(planProblems(recallText(1, 0, false), following, read(byOrigin))).toEqual([
      'memories_origin_seq is not read by place (no origin_seq = … in its index condition)',
    ]);
    expect(planProblems(recallText(1, 0, false), following, postgres('memories_user_kind'))).toEqual([
      'does not use memories_origin_seq (uses memories_user_kind)',
    ]);
  });

  const cells: PlanExpectations = { cellsRead: true, postgresIndex: ['memories_cell', 'memories_uncelled', 'memory_cells_pkey'] };
  const cellsSql = recallText(1, 0, false, true, 'postgres');
  const byCell =
    'Index Scan using memories_cell on memories by ((region = $1) AND (user_id = $2) AND (kind = n.kind) AND (cell = n.cell))';
  const byUser = 'Index Scan using memories_cell on memories by ((region = $1) AND (user_id = $2))';
  const cellsPlan = (...lines: string[]): Plan => ({
    ...postgres('memory_cells_pkey', 'memories_uncelled', 'memories_cell'),
    lines,
  });
  test('recall must read a partition with cells a cell at a time, and never the whole partition (decision 0083)', () => {
    expect(planProblems(cellsSql, cells, cellsPlan(byCell))).toEqual([]);
    // Merged over all the user's cells: what PostgreSQL chose before the per-cell LATERAL.
    expect(planProblems(cellsSql, cells, cellsPlan(byUser))).toEqual([
      'memories_cell is not read by cell (no cell = … in its index condition)',
    ]);
    expect(
      planProblems(cellsSql, cells, {
        ...cellsPlan(byCell),
        indexes: ['memory_cells_pkey', 'memories_cell', 'memories_user_kind'],
      }),
    ).toEqual([
      'does not use memories_uncelled (uses memory_cells_pkey, memories_cell, memories_user_kind)',
      'the vector arm reads memories_user_kind: the whole partition',
    ]);
    // The SQL text carries no ANN read to hold to CockroachDB's prefix rule: on these engines it has none.
    expect(prefixProblems(cellsSql)).toEqual([
      'no ANN read of memories (FROM memories WHERE … ORDER BY embedding <=> $n::vector LIMIT …)',
    ]);
  });
});

describe('PostgreSQL: a region-wide batch reads about its batch (decision 0098)', () => {
  const batch: PlanExpectations = { regionBatch: true, postgresIndex: 'memories_pkey' };
  const plan = (seqScans: string[], ...lines: string[]): Plan => ({
    engine: 'postgres',
    lines,
    seqScans,
    indexes: ['memories_pkey'],
  });
  const walk = "Index Scan using memories_pkey on memories by ((region = 'r'::text) AND (id > '0…'::uuid))";

  test('holds for a LIMIT fed by an index scan in its order', () => {
    expect(planProblems('', batch, plan([], 'ModifyTable on memories', '  Limit', `    ${walk}`))).toEqual([]);
    // A sort or hash above the LIMIT handles the batch only.
    expect(planProblems('', batch, plan([], 'Hash Join', '  Hash', '    Limit', `      ${walk}`))).toEqual([]);
  });

  test.each<[string, Plan, string]>([
    [
      'a sort between the LIMIT and the scan (every row of the kind read, then the batch kept)',
      plan([], 'Limit', '  Sort', `    ${walk}`),
      "a Sort under a LIMIT: the batch's scan reads past it",
    ],
    [
      "the region's rows read by a sequential scan, the batch probed against them",
      plan(
        ['memories'],
        'ModifyTable on memories',
        '  Hash Join',
        '    Seq Scan on memories',
        '    Hash',
        '      Limit',
        `        ${walk}`,
      ),
      'a sequential scan of memories',
    ],
    ['no LIMIT at all', plan([], 'ModifyTable on memories', `  ${walk}`), 'no LIMIT over a table scan: the batch is not bounded'],
  ])('refuses %s', (_label, read, problem) => {
    expect(planProblems('', batch, read)).toContain(problem);
  });

  test('a statement that reads the region on purpose says so, and is not held to it', () => {
    expect(planProblems('', { ...batch, fullScanAllowed: true }, plan(['memories'], 'Seq Scan on memories'))).toEqual([]);
  });
});

describe('the lexical bound on PostgreSQL (decision 0101)', () => {
  const lexical: PlanExpectations = { lexicalSearch: true };
  const sqlText = recallText(1, 0, true, true, 'postgres');
  const plan = (...lines: string[]): Plan => ({ engine: 'postgres', lines, seqScans: [], indexes: [] });
  const whole = [
    '  Result if ((d.kind = $3) AND (d.df <= 150))',
    '    Index Scan using memory_terms_pkey on memory_terms by ((region = $1) AND (term = d.term))',
  ];
  const flagged = [
    '  Limit',
    '    Result if ((d.kind = $3) AND (d.df > 150))',
    '      Index Scan using memory_terms_ranked on memory_terms by ((region = $1) AND (term = d.term) AND (best = true))',
  ];
  test('a term read whole under a gate on its kept frequency, past it from its flagged postings: bounded', () => {
    expect(planProblems(sqlText, lexical, plan('Append', ...whole, ...flagged))).toEqual([]);
  });
  test('postings read with no gate, or never from the flagged ones, are refused', () => {
    const ungated = '  Index Scan using memory_terms_pkey on memory_terms by ((region = $1) AND (term = d.term))';
    expect(planProblems(sqlText, lexical, plan('Append', ungated, ...flagged))).toEqual([
      `memory_terms read past the flagged postings with no gate on the kept frequency: ${ungated.trim()}`,
    ]);
    expect(planProblems(sqlText, lexical, plan('Append', ...whole))).toEqual([
      'no read of the flagged postings (memory_terms_ranked, best = true)',
    ]);
    // The same index read past the flagged span (every posting of the term) is no bound.
    const unflagged = '  Index Scan using memory_terms_ranked on memory_terms by ((region = $1) AND (term = d.term))';
    expect(planProblems(sqlText, lexical, plan('Append', ...whole, unflagged))).toEqual([
      'no read of the flagged postings (memory_terms_ranked, best = true)',
    ]);
  });
});

describe('the prefix rule on the SQL text', () => {
  test.each([
    ['NEIGHBOURS', NEIGHBOURS_TEXT],
    ['recall over one kind, vector alone', recallText(1, 0, false)],
    ['recall over one kind', recallText(1, 0, true)],
    ['recall over three kinds, two with expiry', recallText(3, 2, true)],
  ])('%s carries only prefix equality', (_label, sql) => {
    expect(prefixProblems(sql)).toEqual([]);
  });

  test.each([
    ['recall over one kind', recallText(1, 0, true)],
    ['recall over three kinds, two with expiry', recallText(3, 2, true)],
    ['recall over two kinds, one with expiry', recallText(2, 1, true)],
  ])('%s: each lexical read pins only the (region, user, kind) prefix', (_label, sql) => {
    expect(lexicalProblems(sql)).toEqual([]);
  });

  const lexicalReads = (postings: string) => `
    SELECT 1 FROM memory_partitions AS p WHERE (p.region, p.user_id, p.kind) IN (($1, $2::uuid, $9)) GROUP BY p.kind;
    SELECT 1 FROM memory_partition_terms AS d WHERE (d.region, d.user_id, d.kind) IN (($1, $2::uuid, $9)) AND d.term = ANY($10::text[]) GROUP BY d.term;
    ${postings}`;
  test.each([
    [
      'postings read by user alone',
      lexicalReads(
        'SELECT 1 FROM memory_terms AS p WHERE p.region = $1 AND p.user_id = $2::uuid AND p.term = $3 GROUP BY p.term',
      ),
    ],
    [
      'postings read across the region',
      lexicalReads('SELECT 1 FROM memory_terms AS p WHERE (p.region) IN (($1)) GROUP BY p.term'),
    ],
    ['no postings read at all', lexicalReads('')],
    ['no lexical read at all', recallText(1, 0, false)],
  ])('refuses %s', (_label, sql) => {
    expect(lexicalProblems(sql).length).toBeGreaterThan(0);
  });

  test.each([
    [
      'a filter on a non-prefix column',
      'SELECT id FROM memories WHERE region = $1 AND user_id = $2::uuid AND kind = $3 AND NOT pinned ORDER BY embedding <=> $4::vector LIMIT 5',
    ],
    [
      'embedding IS NOT NULL',
      'SELECT id FROM memories WHERE region = $1 AND user_id = $2::uuid AND kind = $3 AND embedding IS NOT NULL ORDER BY embedding <=> $4::vector LIMIT 5',
    ],
    ['no user', 'SELECT id FROM memories WHERE region = $1 AND kind = $3 ORDER BY embedding <=> $4::vector LIMIT 5'],
    [
      'a kind list that is not a tuple over the whole prefix',
      'SELECT id FROM memories WHERE region = $1 AND user_id = $2::uuid AND kind IN ($3, $4) ORDER BY embedding <=> $5::vector LIMIT 5',
    ],
    ['no ANN read at all', 'SELECT id FROM memories WHERE region = $1 ORDER BY last_useful_at LIMIT 5'],
  ])('refuses %s', (_label, sql) => {
    expect(prefixProblems(sql).length).toBeGreaterThan(0);
  });
});

describe('PostgreSQL: no scan run per outer row carries a list of constants (decision 0158)', () => {
  const plan = (...lines: string[]): Plan => ({
    engine: 'postgres',
    lines,
    seqScans: [],
    indexes: ['memory_partition_terms_pkey'],
  });
  const key = "(region = 'r'::text) AND (user_id = 'u'::uuid) AND (kind = 'fact'::text)";

  test('refuses a rescanned index scan whose condition also holds the list', () => {
    const rescanned = `    Index Scan using memory_partition_terms_pkey on memory_partition_terms by (${key} AND (term = p_4.term) AND (term = ANY ('{a,b,c}'::text[])))`;
    expect(planProblems('', {}, plan('Nested Loop Left Join', '  CTE Scan', rescanned))).toEqual([
      `a scan run per outer row with a list in its condition, sorted again each time: ${rescanned.trim().slice(0, 160)}`,
    ]);
  });

  test('holds for a lookup by key per row, and for a list read once', () => {
    const byKey = `Index Scan using memory_partition_terms_pkey on memory_partition_terms by (${key} AND (term = s.term))`;
    const once = `Index Scan using memory_partition_terms_pkey on memory_partition_terms by (${key} AND (term = ANY ('{a,b,c}'::text[])))`;
    expect(planProblems('', {}, plan('Nested Loop Left Join', '  CTE Scan', `  ${byKey}`))).toEqual([]);
    expect(planProblems('', {}, plan('Hash Join', '  CTE Scan', '  Hash', `    ${once}`))).toEqual([]);
  });

  test('holds for a posting found per row with its flag both ways, and still refuses a list beside that flag', () => {
    const flag = "(best = ANY ('{f,t}'::boolean[]))";
    const posting = `Index Scan using memory_terms_ranked on memory_terms by (${key} AND (term = g.term) AND ${flag} AND (tf = g.tf))`;
    const both = `Index Scan using memory_terms_ranked on memory_terms by (${key} AND (term = ANY ('{a,b,c}'::text[])) AND ${flag} AND (tf = g.tf))`;
    expect(planProblems('', {}, plan('Nested Loop', '  CTE Scan', `  ${posting}`))).toEqual([]);
    expect(planProblems('', {}, plan('Nested Loop', '  CTE Scan', `  ${both}`))).toEqual([
      `a scan run per outer row with a list in its condition, sorted again each time: ${both.trim().slice(0, 160)}`,
    ]);
  });
});
