import { type Constraint, type IndexColumn, schemaProblems } from '../../bin/plan/schema.js';

/**
 * `verify:plan -- --url` on CockroachDB reads `SHOW INDEXES FROM memories` and `SHOW CONSTRAINTS
 * FROM memory_links` (decision 0098's VERIFY items 1 and 4). No cluster runs here: these rows are
 * shaped on those listings' columns and pin down what the check accepts and refuses.
 */
const key = (index: string, columns: string[], extra: Partial<IndexColumn> = {}): IndexColumn[] =>
  columns.map((column_name, i) => ({
    index_name: index,
    column_name,
    seq_in_index: i + 1,
    storing: false,
    implicit: false,
    ...extra,
  }));
const MIGRATED: IndexColumn[] = [
  ...key('memories_pkey', ['region', 'user_id', 'kind', 'id']),
  ...key('memories_pkey', ['content', 'embedding'], { storing: true }),
  ...key('memories_id', ['region', 'id']),
  ...key('memories_partition', ['region', 'user_id', 'kind']),
  ...key('memories_partition', ['pinned', 'last_useful_at', 'fingerprint'], { storing: true }),
];
const fk = (name: string, column: string, target = 'memories(region, id)'): Constraint => ({
  constraint_name: name,
  constraint_type: 'FOREIGN KEY',
  details: `FOREIGN KEY (region, ${column}) REFERENCES ${target} ON DELETE CASCADE`,
});
const LINKS: Constraint[] = [
  {
    constraint_name: 'memory_links_pkey',
    constraint_type: 'PRIMARY KEY',
    details: 'PRIMARY KEY (region ASC, memory_id ASC, linked_id ASC)',
  },
  fk('memory_links_memory', 'memory_id'),
  fk('memory_links_linked_memory', 'linked_id'),
];

test.each<[string, IndexColumn[], Constraint[], string[]]>([
  ['after 0011: keyed by partition, the old key kept as memories_id', MIGRATED, LINKS, []],
  [
    'before 0011: keyed by (region, id)',
    [...key('memories_pkey', ['region', 'id']), ...key('memories_user_kind', ['region', 'user_id', 'kind'])],
    LINKS,
    ['memories_pkey is (region, id)', 'no memories_id'],
  ],
  [
    'the key change added its own index on the old key',
    [...MIGRATED, ...key('memories_region_id_key', ['region', 'id'])],
    LINKS,
    ['memories_region_id_key is a second index on (region, id)'],
  ],
  [
    'a link references something else',
    MIGRATED,
    [
      LINKS[0] as Constraint,
      fk('memory_links_memory', 'memory_id'),
      fk('memory_links_linked_memory', 'linked_id', 'memories(id)'),
    ],
    ['memory_links_linked_memory does not reference memories (region, id)'],
  ],
])('%s', (_label, indexes, links, problems) => {
  const found = schemaProblems(indexes, links);
  expect(found.length).toBe(problems.length);
  for (const [i, p] of problems.entries()) expect(found[i]).toContain(p);
});
