import { SqlKeyStore } from '../../lambda/adapters/pg/key-store.js';
import { SqlMemoryStore } from '../../lambda/adapters/pg/memory-store.js';
import * as memorySql from '../../lambda/adapters/pg/memory-sql.js';
import { oauthSql } from '../../lambda/adapters/pg/oauth-store.js';
import * as reembedSql from '../../lambda/adapters/pg/reembed.js';
import { ANY_MEMORY, RECORD_SETTING, schemaFacts } from '../../lambda/adapters/pg/schema.js';
import { APPLIED_MIGRATIONS } from '../../lambda/adapters/pg/schema-version.js';
import type { SqlClient, SqlEngine } from '../../lambda/adapters/pg/sql-client.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { FUSION, LEXICAL } from '../../lambda/memory/ranking.js';
import type { RecallQuery, Scope } from '../../lambda/ports/memory-store.js';

/** What a query's plan must show, on top of "no full scan" (which every query gets unless waived). */
export interface PlanExpectations {
  /** An ANN read: CockroachDB must plan `vector search` on the vector index; SQL must carry only prefix equality. */
  readonly vectorSearch?: boolean;
  /** Inserts or deletes memories: CockroachDB must plan `vector mutation search`. */
  readonly vectorMutation?: boolean;
  /** A lexical read: CockroachDB must scan the inverted index; SQL must carry only prefix equality and `@@ $n::tsquery`. */
  readonly lexicalSearch?: boolean;
  /** Recall's read of what follows each hit in its origin: both engines must use `memories_origin_seq` (decisions 0081, 0082). */
  readonly followingRead?: boolean;
  /**
   * PostgreSQL: the vector arm reads partitions by their cells (decision 0083): `memory_cells` by
   * its key, and `memories_cell` with the cell (or its absence) in every index condition.
   */
  readonly cellsRead?: boolean;
  /** PostgreSQL: the index (or every index) the per-user part of the plan must go through. */
  readonly postgresIndex?: string | readonly string[];
  /** Admin listing of every key (`naaba list-keys`): a full scan is the point. */
  readonly fullScanAllowed?: boolean;
  /** PostgreSQL: a region-wide batch (sweeper); only its batch index is required. */
  readonly regionBatch?: boolean;
}

/**
 * What the sweeper sends to keep the vector arm's cells on PostgreSQL and PGlite (decision 0083),
 * several statements per build, so listed here rather than recorded; and `naaba reembed`'s clearing
 * of them all.
 */
function cellStatements(rep: Representative): [string, PlanExpectations, string, readonly unknown[]][] {
  const partition = [rep.region, rep.userId, 'fact'];
  const build = { postgresIndex: ['memories_user_kind', 'memory_cells_pkey'] };
  return [
    [
      // Which partitions have grown or shrunk is in their rows only: each sweep reads the region's.
      'cells: partitions to keep',
      { regionBatch: true, fullScanAllowed: true },
      memorySql.CELL_PARTITIONS,
      [rep.region, 2000, '00000000-0000-0000-0000-000000000000', '', 500],
    ],
    ['cells: seed a build', build, memorySql.SEED_CELLS, [...partition, 30]],
    ['cells: refine a build', build, memorySql.REFINE_CELLS, partition],
    ['cells: swap a build in', build, memorySql.SWAP_CELLS, [...partition, 30, null]],
    ['cells: drop', { postgresIndex: ['memories_cell', 'memory_cells_pkey'] }, memorySql.DROP_CELLS, [...partition, 30]],
    [
      'cells: place new memories',
      { postgresIndex: ['memories_uncelled', 'memory_cells_pkey'] },
      memorySql.ASSIGN_CELLS,
      [...partition, 500],
    ],
    [
      'cells: refresh the centroids',
      { postgresIndex: ['memories_cell', 'memory_cells_pkey'] },
      memorySql.REFRESH_CELLS,
      partition,
    ],
    ['reembed: clear every cell', { fullScanAllowed: true }, reembedSql.CLEAR_ALL_CELLS, []],
  ];
}

/** One runtime statement exactly as the store sends it: its text and representative parameters. */
export interface RuntimeQuery {
  readonly name: string;
  readonly text: string;
  readonly params: readonly unknown[];
  readonly expect: PlanExpectations;
}

/** The values the representative calls are made with. */
export interface Representative {
  readonly region: string;
  readonly userId: string;
  readonly dimensions: number;
  readonly now: Date;
}

/** A SqlClient that runs nothing: it records what the real stores would send to an engine. */
class RecordingSqlClient implements SqlClient {
  sent: { text: string; params: readonly unknown[] }[] = [];

  constructor(readonly engine: SqlEngine) {}

  async query<R>(text: string, params: readonly unknown[] = []): Promise<R[]> {
    this.sent.push({ text, params });
    return [];
  }

  async exec(script: string): Promise<void> {
    this.sent.push({ text: script, params: [] });
  }

  async close(): Promise<void> {}
}

/** A deterministic unit-ish vector of the schema's dimension. */
export function representativeVector(dimensions: number, seed = 1): number[] {
  return Array.from({ length: dimensions }, (_, i) => Math.sin(seed * 7.3 + i * 1.7) / Math.sqrt(dimensions));
}

/** A recall query whose terms the seed's memories hold (bin/plan/seed.ts). */
const REPRESENTATIVE_QUERY = 'which market sells bread near the river?';
/**
 * PostgreSQL: the vector arm reads the caller's partitions by their cells, and those without a
 * cell through the (region, user_id, kind, cell) btree (decision 0083); the lexical arm the
 * postings of the query's terms by their key (decision 0056).
 */
const CELLS_PLAN_PG = ['memories_cell', 'memories_uncelled', 'memory_cells_pkey'];
const LEXICAL_PLAN_PG = [...CELLS_PLAN_PG, 'memory_terms_impact'];

const SOME_ID = '7b1e4a52-9c3d-4f60-8a1b-2c3d4e5f6a7b';
const OTHER_ID = '0d9c8b7a-6f5e-4d3c-9b2a-1f0e9d8c7b6a';

/**
 * Every runtime statement, captured by driving the real stores (SqlMemoryStore, SqlKeyStore,
 * the schema check) against a recorder: the texts come from memory-sql.ts, key-store.ts and
 * schema.ts, never from a copy, with parameters shaped exactly as the stores shape them.
 */
export async function runtimeQueries(rep: Representative, engine: SqlEngine = 'postgres'): Promise<RuntimeQuery[]> {
  const recorder = new RecordingSqlClient(engine);
  // The vector arm: CockroachDB's vector index, or the cells of PostgreSQL and PGlite (decision 0083).
  const vectorArm: PlanExpectations = engine === 'cockroach' ? { vectorSearch: true } : { cellsRead: true };
  const memories = new SqlMemoryStore(recorder);
  const keys = new SqlKeyStore(recorder);
  const scope: Scope = { region: rep.region, userId: rep.userId };
  const vector = representativeVector(rep.dimensions);
  const vectorLiteral = `[${vector.join(',')}]`;
  const hour = (h: number) => new Date(rep.now.getTime() - h * 3_600_000);
  const source = { agent: 'verify-plan', client: 'naaba/verify-plan', origin: 'representative', at: rep.now };
  const analyzer = new LexicalAnalyzer();
  const recallQuery = (over: Partial<RecallQuery> = {}): RecallQuery => ({
    scope,
    embedding: vector,
    terms: analyzer.queryTerms(REPRESENTATIVE_QUERY),
    fusion: FUSION,
    lexical: LEXICAL,
    kinds: [{ kind: 'fact', expiredBefore: null }],
    limit: 10,
    candidates: FUSION.depth,
    now: rep.now,
    ...over,
  });
  const recall = (over: Partial<RecallQuery>) => memories.recall(recallQuery(over));
  const insert = (conflictsWith: string | undefined, pinned = false) =>
    memories.insert(
      {
        scope,
        id: SOME_ID,
        kind: 'fact',
        content: 'The build runs on Node 24.',
        fingerprint: 'f'.repeat(64),
        embedding: vector,
        terms: analyzer.terms('The build runs on Node 24.'),
        pinned,
        source,
        conflictsWith,
        ceiling: 500,
        pinLimit: 50,
        sourcesKept: 5,
        expiredBefore: null,
      },
      rep.now,
    );
  const pageKinds = [
    { kind: 'fact', expiredBefore: null },
    { kind: 'session', expiredBefore: hour(24) },
  ];
  const expiring = [{ kind: 'session', expiredBefore: hour(24) }];
  const cases: [string, PlanExpectations, () => Promise<unknown>][] = [
    [
      'neighbours',
      { vectorSearch: true, postgresIndex: 'memories_user_kind' },
      () => memories.neighbours(scope, 'fact', vector, 'f'.repeat(64), { expiredBefore: null, candidates: 1 }),
    ],
    [
      'neighbours: a kind with expiry',
      { vectorSearch: true, postgresIndex: 'memories_user_kind' },
      () => memories.neighbours(scope, 'session', vector, 'f'.repeat(64), { expiredBefore: hour(24), candidates: 101 }),
    ],
    [
      'expire one partition',
      { vectorMutation: true, postgresIndex: 'memories_user_kind' },
      () => memories.expirePartition(scope, 'session', hour(24), rep.now),
    ],
    [
      'recall: one kind, vector alone',
      { ...vectorArm, followingRead: true, postgresIndex: CELLS_PLAN_PG },
      () => recall({ terms: [] }),
    ],
    [
      'recall: one kind',
      { ...vectorArm, lexicalSearch: true, followingRead: true, postgresIndex: LEXICAL_PLAN_PG },
      () => recall({}),
    ],
    [
      'recall: kinds with and without expiry',
      { ...vectorArm, lexicalSearch: true, followingRead: true, postgresIndex: LEXICAL_PLAN_PG },
      () =>
        recall({
          kinds: [
            { kind: 'fact', expiredBefore: null },
            { kind: 'session', expiredBefore: hour(24) },
          ],
          candidates: FUSION.depth + 100,
        }),
    ],
    // The memory page's search: recall's ranking, read only (no UPDATE of usefulness).
    [
      'search: one kind, read only',
      { ...vectorArm, lexicalSearch: true, followingRead: true, postgresIndex: LEXICAL_PLAN_PG },
      () => memories.search(recallQuery()),
    ],
    [
      'browse',
      { postgresIndex: 'memories_user_kind' },
      () => memories.browse({ scope, kinds: pageKinds, pageSize: 50, cursor: undefined }),
    ],
    [
      'browse next page',
      { postgresIndex: 'memories_user_kind' },
      () =>
        memories.browse({
          scope,
          kinds: pageKinds,
          pageSize: 50,
          cursor: Buffer.from(`${hour(48).toISOString()}|${SOME_ID}`).toString('base64url'),
        }),
    ],
    ['journal by day', { postgresIndex: 'journal_user_at' }, () => memories.journalByDay(scope, hour(24 * 30))],
    [
      'browse: most recently useful first, filtered',
      { postgresIndex: 'memories_user_kind' },
      () =>
        memories.browse({
          scope,
          kinds: pageKinds,
          pageSize: 50,
          cursor: undefined,
          order: 'last_useful',
          filters: { agent: 'verify-plan', client: 'naaba/verify-plan', origin: 'represent', pinned: false, conflicting: true },
        }),
    ],
    [
      'browse: most recalled first, next page',
      { postgresIndex: 'memories_user_kind' },
      () =>
        memories.browse({
          scope,
          kinds: pageKinds,
          pageSize: 50,
          cursor: Buffer.from(`recalls|3|${SOME_ID}`).toString('base64url'),
          order: 'recalls',
        }),
    ],
    ['one memory by id', { postgresIndex: 'memories_pkey' }, () => memories.memory(scope, SOME_ID, expiring)],
    ['who wrote the memories', { postgresIndex: 'memories_user_kind' }, () => memories.writers(scope, pageKinds, 100)],
    ['journal by hour', { postgresIndex: 'journal_user_at' }, () => memories.journalByHour(scope, hour(24))],
    [
      'pin a memory',
      { postgresIndex: ['memories_pkey', 'memories_pinned'] },
      () => memories.setPinned({ scope, id: SOME_ID, pinned: true, pinLimit: 50, expiry: expiring }),
    ],
    [
      'unpin a memory',
      { postgresIndex: 'memories_pkey' },
      () => memories.setPinned({ scope, id: SOME_ID, pinned: false, pinLimit: 50, expiry: expiring }),
    ],
    [
      'import memories',
      { vectorMutation: true, postgresIndex: ['memories_user_kind', 'memories_pinned', 'journal_user_at'] },
      () =>
        memories
          .importMemories({
            scope,
            kinds: [
              { kind: 'fact', ceiling: 500, expiredBefore: null },
              { kind: 'session', ceiling: 100, expiredBefore: hour(24) },
            ],
            pinLimit: 50,
            memories: [SOME_ID, OTHER_ID].map((id, i) => ({
              id,
              kind: 'fact',
              content: `The build runs on Node 2${i}.`,
              fingerprint: `${i}`.repeat(64),
              embedding: vector,
              frequencies: analyzer.frequencies(`The build runs on Node 2${i}.`),
              pinned: i === 0,
              expires: false,
              createdAt: hour(48),
              lastUsefulAt: hour(2),
              recallCount: 3,
              restatements: 2,
              source: { agent: 'verify-plan', client: 'naaba/verify-plan', origin: 'representative' },
              restatedBy: [source],
            })),
            links: [
              [SOME_ID, OTHER_ID],
              [OTHER_ID, SOME_ID],
            ],
            journal: [{ at: hour(30), kind: 'session', rule: 'expiry', ageSeconds: 90_000, recallCount: 1 }],
          })
          // The recorder answers no row, which a real import never does.
          .catch(() => undefined),
    ],

    ['next to go', { postgresIndex: 'memories_user_kind' }, () => memories.nextToGo(scope, pageKinds, 5)],
    ['remember', { vectorMutation: true, postgresIndex: 'memories_user_kind' }, () => insert(undefined)],
    ['remember: conflict link', { vectorMutation: true, postgresIndex: 'memories_user_kind' }, () => insert(OTHER_ID)],
    [
      'remember: a pinned memory',
      { vectorMutation: true, postgresIndex: ['memories_user_kind', 'memories_pinned'] },
      () => insert(undefined, true),
    ],
    [
      'merge, pinning',
      { postgresIndex: ['memories_pkey', 'memories_pinned'] },
      () =>
        memories.merge(
          { scope, targetId: OTHER_ID, kind: 'fact', pin: true, source, pinLimit: 50, sourcesKept: 5, expiredBefore: null },
          rep.now,
        ),
    ],
    [
      'merge',
      { postgresIndex: 'memories_pkey' },
      () =>
        memories.merge(
          { scope, targetId: OTHER_ID, kind: 'fact', pin: false, source, pinLimit: 50, sourcesKept: 5, expiredBefore: null },
          rep.now,
        ),
    ],
    [
      'forget ids',
      { vectorMutation: true, postgresIndex: 'memories_pkey' },
      () => memories.forgetIds(scope, [SOME_ID, OTHER_ID], expiring),
    ],
    [
      'forget all',
      { vectorMutation: true, postgresIndex: 'memories_user_kind' },
      () => memories.forgetAll(scope, undefined, expiring),
    ],
    [
      'forget all of a kind',
      { vectorMutation: true, postgresIndex: 'memories_user_kind' },
      () => memories.forgetAll(scope, 'fact', expiring),
    ],
    [
      'counts',
      { postgresIndex: 'memories_user_kind' },
      () => memories.counts(scope, [{ kind: 'session', expiredBefore: hour(24) }]),
    ],
    ['journal page', { postgresIndex: 'journal_user_at' }, () => memories.journal(scope, 20, undefined)],
    [
      'journal next page',
      { postgresIndex: 'journal_user_at' },
      () => memories.journal(scope, 20, Buffer.from(`${hour(48).toISOString()}|${SOME_ID}`).toString('base64url')),
    ],
    [
      'sweep expired',
      { vectorMutation: true, regionBatch: true, postgresIndex: 'memories_expiring' },
      () => memories.sweepExpired(rep.region, 'session', hour(24), 500, rep.now),
    ],
    [
      'trim journal',
      { regionBatch: true, postgresIndex: 'journal_region_at' },
      () => memories.trimJournal(rep.region, hour(24 * 30), 500),
    ],
    [
      'mark a kind that gained a TTL',
      { regionBatch: true, fullScanAllowed: true },
      () => memories.markExpiring(rep.region, 'session', 500),
    ],
    [
      'clear empty term statistics',
      { regionBatch: true, postgresIndex: 'memory_partition_terms_empty' },
      () => memories.clearEmptyTerms(rep.region, 500),
    ],
    ['expiring kinds recorded', {}, () => memories.expiringKinds(rep.region)],
    ['record expiring kinds', {}, () => memories.recordExpiringKinds(rep.region, ['session'])],
    [
      'load memories of a partition',
      { vectorMutation: true },
      () =>
        memories.load({
          scope,
          kind: 'fact',
          expires: false,
          at: rep.now,
          agent: 'verify-plan',
          client: 'naaba/verify-plan',
          memories: [
            {
              id: SOME_ID,
              content: 'The build runs on Node 24.',
              fingerprint: 'f'.repeat(64),
              embedding: vector,
              frequencies: analyzer.frequencies('The build runs on Node 24.'),
            },
          ],
        }),
    ],
    ['key by token hash', {}, () => keys.findByHash('a'.repeat(64))],
    ['grant by access token hash', {}, () => keys.findByAccessToken('a'.repeat(64), rep.now)],
    [
      'key insert',
      {},
      () =>
        keys.insert({
          keyId: SOME_ID,
          tokenSha256: 'b'.repeat(64),
          name: 'agent',
          userId: rep.userId,
          region: rep.region,
          createdAt: rep.now,
          revokedAt: null,
          clientId: null,
        }),
    ],
    ['key revoke', {}, () => keys.revoke(SOME_ID, rep.now)],
    ['key list', { fullScanAllowed: true }, () => keys.list()],
    ['user exists', {}, () => keys.userExists(rep.userId, rep.region)],
    ['schema facts', {}, () => schemaFacts(recorder).catch(() => undefined)],
  ];
  const later = new Date(rep.now.getTime() + 3_600_000);
  const direct: [string, PlanExpectations, string, readonly unknown[]][] = [
    // OAuth sign-in (decisions 0054, 0064, 0067): point reads by primary key, per-address windows by their key.
    ['oauth: register a client', {}, oauthSql.REGISTER, [SOME_ID, 'client', '[]', rep.now, later]],
    ['oauth: find a client', {}, oauthSql.FIND_CLIENT, [SOME_ID, rep.now]],
    [
      'oauth: save a code',
      {},
      oauthSql.SAVE_CODE,
      [
        rep.region,
        'c'.repeat(64),
        SOME_ID,
        rep.userId,
        'agent',
        'https://a/cb',
        'x'.repeat(43),
        'https://r/mcp',
        later,
        SOME_ID,
        'f'.repeat(64),
      ],
    ],
    ['oauth: consume a code', {}, oauthSql.CONSUME_CODE, [rep.region, 'c'.repeat(64), rep.now]],
    ['oauth: a used code', {}, oauthSql.USED_CODE, [rep.region, 'c'.repeat(64)]],
    [
      'oauth: create a grant',
      {},
      oauthSql.CREATE_GRANT,
      [
        SOME_ID,
        'agent',
        rep.userId,
        rep.region,
        rep.now,
        'client',
        'a'.repeat(64),
        later,
        'b'.repeat(64),
        later,
        rep.region,
        'c'.repeat(64),
        SOME_ID,
      ],
    ],
    [
      'oauth: rotate a refresh token',
      {},
      oauthSql.ROTATE,
      ['b'.repeat(64), rep.now, 'client', 'd'.repeat(64), later, 'e'.repeat(64), later, rep.now],
    ],
    ['oauth: a replaced refresh token', {}, oauthSql.REPLACED_REFRESH, ['b'.repeat(64)]],
    ['oauth: the grant of a token', {}, oauthSql.GRANT_OF, ['b'.repeat(64), 'client']],
    ['oauth: expired codes', { regionBatch: true }, oauthSql.DELETE_EXPIRED_CODES, [rep.region, rep.now, 500]],
    ['oauth: expired tokens', { regionBatch: true }, oauthSql.DELETE_EXPIRED_TOKENS, [rep.now, 500]],
    ['oauth: lapsed registrations', { regionBatch: true }, oauthSql.DELETE_LAPSED_CLIENTS, [rep.now, 500]],
    ['oauth: count a request', {}, oauthSql.COUNT_REQUEST, [rep.region, '203.0.113.7', 'token', rep.now, rep.now]],
    ['oauth: old request windows', { regionBatch: true }, oauthSql.DELETE_OLD_WINDOWS, [rep.region, rep.now, 500]],
    // The start-up check when the recorded embedder or analyzer differs: any row at all, then the new names.
    ['any memory stored', { fullScanAllowed: true }, ANY_MEMORY, []],
    ['record embedder', {}, RECORD_SETTING, ['embedder', 'local-lexical-v2/256']],
    // The start-up check of the schema version (decision 0071): the whole migrations table, a few rows.
    ['applied migrations', { fullScanAllowed: true }, APPLIED_MIGRATIONS, []],
    // naaba reembed walks every row in primary-key order: a full scan is the point, one batch at a time.
    ['reembed: first batch', { fullScanAllowed: true }, reembedSql.FIRST, [100]],
    ['reembed: next batch', { fullScanAllowed: true }, reembedSql.NEXT, [rep.region, SOME_ID, 100]],
    ['reembed: rows done before', { fullScanAllowed: true }, reembedSql.DONE_SO_FAR, [rep.region, SOME_ID]],
    [
      'reembed: rewrite a batch',
      { vectorMutation: true, regionBatch: true, postgresIndex: 'memories_pkey' },
      reembedSql.REWRITE,
      [rep.region, [SOME_ID], [vectorLiteral], [SOME_ID], ['build'], [1], [1], '{"target":"t","region":"r","id":"i"}'],
    ],
    // A queued write's first statement, sent only after a serialization failure (decision 0056).
    ['queue on a partition', {}, memorySql.LOCK_PARTITION, [rep.region, rep.userId, 'fact', true]],
    ...(engine === 'cockroach' ? [] : cellStatements(rep)),
  ];
  const queries: RuntimeQuery[] = direct.map(([name, expect, text, params]) => ({ name, expect, text, params }));
  for (const [name, expect, call] of cases) {
    recorder.sent = [];
    await call();
    if (recorder.sent.length !== 1) throw new Error(`${name}: expected one statement, the store sent ${recorder.sent.length}`);
    const [sent] = recorder.sent;
    if (sent) queries.push({ name, expect, ...sent });
  }
  return queries;
}
