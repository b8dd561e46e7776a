import type { Query, SqlClient, SqlEngine } from '../../lambda/adapters/pg/sql-client.js';
import type { PlanExpectations, StatementQuery } from '../../lambda/adapters/pg/sql/statement.js';
import { appliedMigrations, connectedRole } from '../../lambda/adapters/pg/schema/version.js';
import { recordIndexedWith, requireIndexedWith, schemaFacts } from '../../lambda/adapters/pg/schema/facts.js';
import { STATEMENTS, type AnyStatement } from '../../lambda/adapters/pg/statements/index.js';
import { REEMBED_CLEAR_CELLS } from '../../lambda/adapters/pg/statements/maintenance/reembed-clear-cells.js';
import { REEMBED_DONE } from '../../lambda/adapters/pg/statements/maintenance/reembed-done.js';
import { REEMBED_FIRST } from '../../lambda/adapters/pg/statements/maintenance/reembed-first.js';
import { REEMBED_NEXT } from '../../lambda/adapters/pg/statements/maintenance/reembed-next.js';
import { RANK_POSTINGS } from '../../lambda/adapters/pg/statements/maintenance/rank-postings.js';
import { REEMBED_REWRITE } from '../../lambda/adapters/pg/statements/maintenance/reembed-rewrite.js';
import { REEMBED_TOTAL } from '../../lambda/adapters/pg/statements/maintenance/reembed-total.js';
import { LOCK_PARTITION } from '../../lambda/adapters/pg/statements/curation/lock-partition.js';
import { READ_SETTING } from '../../lambda/adapters/pg/statements/schema/read-setting.js';
import { DELETE_SETTING } from '../../lambda/adapters/pg/statements/schema/delete-setting.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { SqlKeyStore } from '../../lambda/adapters/pg/stores/sql-key-store.js';
import { SqlOAuthStore } from '../../lambda/adapters/pg/stores/sql-oauth-store.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { Scope } from '../../lambda/memory/model.js';
import { FUSION, LEXICAL, POSTING_CUT } from '../../lambda/memory/policy/ranking.js';
import type { PinChange } from '../../lambda/memory/policy/pins.js';
import type { RecallQuery } from '../../lambda/ports/curation-store.js';

export type { PlanExpectations } from '../../lambda/adapters/pg/sql/statement.js';

/**
 * The statements `npm run verify:plan` checks: every runtime statement of `lambda/adapters/pg/
 * statements/`, captured by driving the real stores against a recorder, each with the plan its own
 * file declares. The catalogue holds only the representative calls; what a plan must show lives
 * with the statement.
 */

/** One runtime statement exactly as a store sends it, and what its plan must show. */
export interface RuntimeQuery {
  /** The call it was captured from, and the statement's name. */
  readonly name: string;
  readonly statement: string;
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
  sent: Query[] = [];

  constructor(
    readonly engine: SqlEngine,
    /** What each statement answers: nothing, unless a call needs a row to go on. */
    private readonly answers: (query: Query) => unknown[] = () => [],
  ) {}

  async query<R>(query: Query): Promise<R[]> {
    this.sent.push(query);
    return this.answers(query) as R[];
  }

  async exec(): Promise<void> {}

  async close(): Promise<void> {}
}

/** A deterministic unit-ish vector of the schema's dimension. */
export function representativeVector(dimensions: number, seed = 1): number[] {
  return Array.from({ length: dimensions }, (_, i) => Math.sin(seed * 7.3 + i * 1.7) / Math.sqrt(dimensions));
}

/** A recall query whose terms the seed's memories hold (bin/plan/seed.ts). */
const REPRESENTATIVE_QUERY = 'which market sells bread near the river?';

/** The batch of the representative region-wide calls: a fifth of a percent of the seed's memories (bin/plan/seed.ts). */
const REGION_BATCH = 20;

const SOME_ID = '7b1e4a52-9c3d-4f60-8a1b-2c3d4e5f6a7b';
const OTHER_ID = '0d9c8b7a-6f5e-4d3c-9b2a-1f0e9d8c7b6a';

/** A call of the stores and how many statements it sends (one, for every call of the four tools). */
type Call = readonly [label: string, run: () => Promise<unknown>, statements?: number];

/**
 * Statements no representative call sends, each with why: the plan verifier cannot EXPLAIN DDL, and
 * some statements run on one engine only. `catalogueGaps` holds the catalogue to this list.
 */
const NOT_EXPLAINED: Readonly<Record<string, string>> = {
  'maintenance/reembed-add-column': 'DDL of a change of dimension: nothing to plan',
  'maintenance/reembed-drop-next-column': 'DDL of a change of dimension: nothing to plan',
  'maintenance/reembed-drop-old-column': 'DDL of a change of dimension: nothing to plan',
  'maintenance/reembed-rename-column': 'DDL of a change of dimension: nothing to plan',
  'maintenance/reembed-require-vectors': 'DDL of a change of dimension: nothing to plan',
  'maintenance/reembed-next-column': 'a catalog read of a change of dimension (PostgreSQL and PGlite), once per run',
  'maintenance/reembed-missing': 'reads the column a change of dimension adds, which a migrated schema does not have',
  'schema/regions-of-database': 'CockroachDB only: SHOW REGIONS, at migration time',
  'schema/isolation-level': 'a session setting read once per connection pool: no table',
  'schema/server-version': 'version(), at migration time: no table',
  'schema/current-database': 'current_database(), at migration time: no table',
  'schema/role-exists': 'a catalog read at migration time',
  'schema/invalid-index': 'a catalog read at migration time',
  'schema/table-has-rows': 'one row read at migration time, before a migration that rewrites a table (decision 0152)',
  'schema/schema-usage': 'has_schema_privilege(), only when the migration record cannot be read: no table',
  'schema/stale-statistics': 'PGlite only: a catalog read of the local engine',
  'schema/table-visibility': 'PGlite only: a catalog read of the local engine',
  'schema/sampled-columns': 'PGlite only: a catalog read of the local engine',
};

/** What is left out on one engine only, and why. */
const NOT_ON: Readonly<Record<SqlEngine, (name: string) => string | undefined>> = {
  postgres: (name) => (name === 'keys/database-regions' ? 'CockroachDB only: SHOW REGIONS' : undefined),
  cockroach: (name) =>
    name.startsWith('maintenance/cells-') || name === 'maintenance/reembed-clear-cells'
      ? 'PostgreSQL and PGlite only: CockroachDB has no vector cells (decision 0083)'
      : undefined,
};

/** Why a statement is not in the catalogue on an engine, or undefined when it must be. */
export const notExplained = (name: string, engine: SqlEngine): string | undefined => NOT_EXPLAINED[name] ?? NOT_ON[engine](name);

/**
 * Every runtime statement, captured by driving the real stores, the schema checks and the
 * re-embedding's statements against a recorder, with parameters shaped exactly as the stores shape
 * them and each statement's declared plan.
 */
export async function runtimeQueries(rep: Representative, engine: SqlEngine = 'postgres'): Promise<RuntimeQuery[]> {
  // The import statement answers a row in production; the recorder gives the store one to read.
  // So do the import statement and the listing of a partition's cells (one cell, for a build to step through).
  const recorder = new RecordingSqlClient(engine, (q) =>
    q.statement?.name === 'transfer/import-memories'
      ? [{ ok: true, written: 0, present: 0, linked: 0, journaled: 0, room: [] }]
      : q.statement?.name === 'maintenance/cells-list'
        ? [{ cell: 0, members: 30 }]
        : [],
  );
  const stores = sqlMemoryStores(recorder);
  const keys = new SqlKeyStore(recorder);
  const oauth = new SqlOAuthStore(recorder, rep.region);
  const scope: Scope = { region: rep.region, userId: rep.userId };
  const vector = representativeVector(rep.dimensions);
  const hour = (h: number) => new Date(rep.now.getTime() - h * 3_600_000);
  const later = new Date(rep.now.getTime() + 3_600_000);
  const source = { agent: 'verify-plan', client: 'naaba/verify-plan', origin: 'representative', at: rep.now };
  const analyzer = new LexicalAnalyzer();
  const recallQuery = (over: Partial<RecallQuery> = {}): RecallQuery => ({
    scope,
    embedding: vector,
    terms: analyzer.queryTerms(REPRESENTATIVE_QUERY),
    fusion: FUSION,
    lexical: LEXICAL,
    farthest: 2,
    kinds: [{ kind: 'fact', expiredBefore: null }],
    limit: 10,
    candidates: FUSION.depth,
    now: rep.now,
    ...over,
  });
  const insert = (conflictsWith: string | undefined, pinned = false) =>
    stores.curation.insert(
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
  const merge = (pin: PinChange) =>
    stores.curation.merge(
      { scope, targetId: OTHER_ID, kind: 'fact', pin, source, pinLimit: 50, sourcesKept: 5, expiredBefore: null },
      rep.now,
    );
  const pageKinds = [
    { kind: 'fact', expiredBefore: null },
    { kind: 'session', expiredBefore: hour(24) },
  ];
  const expiring = [{ kind: 'session', expiredBefore: hour(24) }];
  const cursor = (text: string) => Buffer.from(text).toString('base64url');
  const partition = { scope, kind: 'fact' };
  const send = <I>(statement: { query(inputs: I, engine: SqlEngine): Query }, inputs: I) =>
    recorder.query(statement.query(inputs, engine));
  const calls: Call[] = [
    [
      'neighbours',
      () =>
        stores.curation.neighbours({
          ...partition,
          embedding: vector,
          fingerprint: 'f'.repeat(64),
          expiredBefore: null,
          candidates: 1,
        }),
    ],
    [
      'neighbours: a kind with expiry',
      () =>
        stores.curation.neighbours({
          scope,
          kind: 'session',
          embedding: vector,
          fingerprint: 'f'.repeat(64),
          expiredBefore: hour(24),
          candidates: 101,
        }),
    ],
    ['expire one partition', () => stores.curation.expirePartition(scope, 'session', hour(24), rep.now)],
    ['recall: one kind, vector alone', () => stores.curation.recall(recallQuery({ terms: [] }))],
    ['recall: one kind', () => stores.curation.recall(recallQuery())],
    [
      'recall: kinds with and without expiry',
      () => stores.curation.recall(recallQuery({ kinds: pageKinds, candidates: FUSION.depth + 100 })),
    ],
    // The memory page's search: recall's ranking, read only (no UPDATE of usefulness).
    ['search: one kind, read only', () => stores.page.search(recallQuery())],
    ['browse', () => stores.page.browse({ scope, kinds: pageKinds, pageSize: 50, cursor: undefined })],
    [
      'browse next page',
      () =>
        stores.page.browse({
          scope,
          kinds: pageKinds,
          pageSize: 50,
          cursor: cursor(`created|${hour(48).toISOString()}|${SOME_ID}`),
        }),
    ],
    [
      'browse: most recently useful first, filtered',
      () =>
        stores.page.browse({
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
      () =>
        stores.page.browse({ scope, kinds: pageKinds, pageSize: 50, cursor: cursor(`recalls|3|${SOME_ID}`), order: 'recalls' }),
    ],
    ['journal by day', () => stores.page.journalByDay(scope, hour(24 * 30))],
    ['journal by hour', () => stores.page.journalByHour(scope, hour(24))],
    ['one memory by id', () => stores.page.memory(scope, SOME_ID, expiring)],
    ['who wrote the memories', () => stores.page.writers(scope, pageKinds, 100)],
    ['pin a memory', () => stores.page.setPinned({ scope, id: SOME_ID, pinned: true, pinLimit: 50, expiry: expiring })],
    ['unpin a memory', () => stores.page.setPinned({ scope, id: SOME_ID, pinned: false, pinLimit: 50, expiry: expiring })],
    [
      'pin several',
      () => stores.page.setPinnedMany({ scope, ids: [SOME_ID, OTHER_ID], pinned: true, pinLimit: 50, expiry: expiring }),
    ],
    [
      'unpin several',
      () => stores.page.setPinnedMany({ scope, ids: [SOME_ID, OTHER_ID], pinned: false, pinLimit: 50, expiry: expiring }),
    ],
    ['next to go', () => stores.page.nextToGo(scope, pageKinds, 5)],
    [
      'import memories',
      () =>
        stores.transfer.importMemories({
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
        }),
    ],
    [
      'load memories of a partition',
      () =>
        stores.transfer.load({
          ...partition,
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
    ['remember', () => insert(undefined)],
    ['remember: conflict link', () => insert(OTHER_ID)],
    ['remember: a pinned memory', () => insert(undefined, true)],
    ['merge, pinning', () => merge('pin')],
    ['merge, unpinning', () => merge('unpin')],
    ['merge', () => merge('keep')],
    ['forget ids', () => stores.curation.forgetIds(scope, [SOME_ID, OTHER_ID], expiring)],
    ['forget all', () => stores.curation.forgetAll(scope, undefined, expiring)],
    ['forget all of a kind', () => stores.curation.forgetAll(scope, 'fact', expiring)],
    ['counts', () => stores.curation.counts(scope, expiring)],
    ['journal page', () => stores.curation.journal(scope, 20, undefined)],
    ['journal next page', () => stores.curation.journal(scope, 20, cursor(`journal|${hour(48).toISOString()}|${SOME_ID}`))],
    // A region's batches at the share of the region a production batch is (500 of millions, here
    // REGION_BATCH of the seed's thousands): planned as they would be there, by index probes
    // under a LIMIT rather than one scan of the region (decision 0098).
    ['sweep expired', () => stores.maintenance.sweepExpired(rep.region, 'session', hour(24), REGION_BATCH, rep.now)],
    ['sweep superseded', () => stores.maintenance.sweepSuperseded(rep.region, 'fact', hour(24 * 7), REGION_BATCH, rep.now)],
    ['trim journal', () => stores.maintenance.trimJournal(rep.region, hour(24 * 30), REGION_BATCH)],
    // Where the walk stopped, then one step of it that records where it stops next.
    ['mark a kind that gained a TTL', () => stores.maintenance.markExpiring(rep.region, 'session', REGION_BATCH), 2],
    // Where the passages walk stopped, then its next page; a memory's masks written (decision 0119).
    ['passages walk: a page', () => stores.maintenance.passagesPage(rep.region, REGION_BATCH), 2],
    [
      'passages walk: a memory written',
      () =>
        stores.maintenance.writePassages(
          rep.region,
          { walked: REGION_BATCH, last: SOME_ID, end: false, finished: false, long: [] },
          [
            {
              userId: rep.userId,
              kind: 'fact',
              id: SOME_ID,
              length: 200,
              masks: new Map([
                ['bread', 3],
                ['market', 1],
              ]),
            },
          ],
        ),
    ],
    ['clear empty term statistics', () => stores.maintenance.clearEmptyTerms(rep.region, REGION_BATCH)],
    ['terms to rank', () => stores.maintenance.rankPostings(rep.region, REGION_BATCH)],
    ['rank a term', () => send(RANK_POSTINGS, { scope, kind: 'fact', term: 'build', ranked: POSTING_CUT.ranked })],
    ['expiring kinds recorded', () => stores.maintenance.expiringKinds(rep.region)],
    ['record expiring kinds', () => stores.maintenance.recordExpiringKinds(rep.region, ['session'])],
    ['key by token hash', () => keys.findByHash('a'.repeat(64))],
    ['grant by access token hash', () => keys.findByAccessToken('a'.repeat(64), rep.now)],
    [
      'key insert',
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
          grantedBy: null,
        }),
    ],
    ['key revoke', () => keys.revoke(SOME_ID, rep.now)],
    ['key list', () => keys.list()],
    ['live key hashes', () => keys.liveKeyHashes()],
    ['user exists', () => keys.userExists(rep.userId, rep.region)],
    // A multi-region database's regions, where a key may live: CockroachDB only.
    ['database regions', () => keys.regions(), engine === 'cockroach' ? 1 : 0],
    // OAuth sign-in (decisions 0054, 0064, 0067): point reads by primary key, per-address windows by their key.
    [
      'oauth: register a client',
      () =>
        oauth.registerClient({ clientId: SOME_ID, clientName: 'client', redirectUris: [], createdAt: rep.now, expiresAt: later }),
    ],
    ['oauth: find a client', () => oauth.findClient(SOME_ID, rep.now)],
    ['oauth: lapse unused clients', () => oauth.lapseUnusedClients([SOME_ID], rep.now)],
    [
      'oauth: save a code',
      () =>
        oauth.saveCode(
          {
            region: rep.region,
            codeSha256: 'c'.repeat(64),
            clientId: SOME_ID,
            userId: rep.userId,
            agent: 'agent',
            redirectUri: 'https://a/cb',
            codeChallenge: 'x'.repeat(43),
            resource: 'https://r/mcp',
            expiresAt: later,
            grantedBy: SOME_ID,
          },
          'f'.repeat(64),
          `nb_${'k'.repeat(43)}`,
        ),
    ],
    // Consuming an unknown code reads whether it was used before: two statements.
    ['oauth: consume a code', () => oauth.consumeCode(rep.region, 'c'.repeat(64), rep.now), 2],
    [
      'oauth: create a grant',
      () =>
        oauth.createGrant(
          {
            keyId: SOME_ID,
            name: 'agent',
            userId: rep.userId,
            region: rep.region,
            createdAt: rep.now,
            revokedAt: null,
            clientId: 'client',
            grantedBy: SOME_ID,
          },
          'c'.repeat(64),
          { access: { sha256: 'a'.repeat(64), expiresAt: later }, refresh: { sha256: 'b'.repeat(64), expiresAt: later } },
        ),
    ],
    // A refused rotation reads whether the token was replaced before: two statements.
    [
      'oauth: rotate a refresh token',
      () =>
        oauth.rotate('b'.repeat(64), 'client', rep.now, rep.now, {
          access: { sha256: 'd'.repeat(64), expiresAt: later },
          refresh: { sha256: 'e'.repeat(64), expiresAt: later },
        }),
      2,
    ],
    ['oauth: the grant of a token', () => oauth.grantOf('b'.repeat(64), 'client')],
    ['oauth: count a request', () => oauth.countRequest('token', '203.0.113.7', rep.now, rep.now)],
    ['oauth: expired codes, tokens, registrations and windows', () => oauth.deleteExpired(rep.now, REGION_BATCH), 4],
    // The start-up checks: the schema's facts, the applied migrations, the connected role.
    ['schema facts', () => schemaFacts(recorder).catch(() => undefined)],
    ['applied migrations', () => appliedMigrations(recorder)],
    ['connected role', () => connectedRole(recorder)],
    // When the recorded embedder or analyzer differs: any row at all, then the new names.
    [
      'embedder changed',
      () => requireIndexedWith(recorder, { embedder: 'old', lexical: 'old' }, { embedder: 'new', lexical: 'new' }),
      3,
    ],
    ['record what made the rows', () => recordIndexedWith(recorder, { embedder: 'e', lexical: 'l' }), 2],
    // A queued write's first statement, sent only after a serialization failure (decision 0056).
    ['queue on a partition', () => send(LOCK_PARTITION, { scope, kind: 'fact', pins: true })],
    // naaba reembed walks every row in primary-key order, one batch at a time.
    ['reembed: rows in all', () => send(REEMBED_TOTAL, {})],
    ['reembed: first batch', () => send(REEMBED_FIRST, { batch: 100 })],
    ['reembed: next batch', () => send(REEMBED_NEXT, { region: rep.region, id: SOME_ID, batch: 100 })],
    ['reembed: rows done before', () => send(REEMBED_DONE, { region: rep.region, id: SOME_ID })],
    ['reembed: where a run stopped', () => send(READ_SETTING, { name: 'reembed_cursor' })],
    ['reembed: done', () => send(DELETE_SETTING, { name: 'reembed_cursor' })],
    [
      'reembed: rewrite a batch',
      () =>
        send(REEMBED_REWRITE, {
          region: rep.region,
          column: 'embedding',
          ids: [SOME_ID],
          embeddings: [`[${vector.join(',')}]`],
          postingIds: [SOME_ID],
          postingTerms: ['build'],
          postingFrequencies: [1],
          postingPassages: [1],
          lengths: [1],
          cursor: '{"target":"t","region":"r","id":"i"}',
        }),
    ],
    ...(engine === 'cockroach' ? [] : cellCalls(stores.maintenance, recorder, rep, partition)),
  ];
  const queries: RuntimeQuery[] = [];
  for (const [label, run, statements = 1] of calls) {
    recorder.sent = [];
    await run();
    if (recorder.sent.length !== statements) {
      throw new Error(`${label}: expected ${statements} statement(s), the stores sent ${recorder.sent.length}`);
    }
    for (const sent of recorder.sent) queries.push(runtimeQuery(label, sent, statements > 1));
  }
  return queries;
}

/**
 * The sweeper's statements that keep the vector arm's cells on PostgreSQL and PGlite (decision
 * 0083), several per build; and `naaba reembed`'s clearing of them all.
 */
function cellCalls(
  maintenance: ReturnType<typeof sqlMemoryStores>['maintenance'],
  recorder: SqlClient,
  rep: Representative,
  partition: { scope: Scope; kind: string },
): Call[] {
  const { scope, kind } = partition;
  return [
    // The partitions marked for cells only (decision 0118), a page at a time.
    ['cells: partitions to keep', () => maintenance.cellPartitions(rep.region, 500)],
    ['cells: unmark a small partition', () => maintenance.unmarkCells(scope, kind, 2000)],
    // A build (decision 0100): seed and place batch by batch, seed the rest, then a round of
    // refresh, seed and moves in steps, and record.
    [
      'cells: build',
      () => maintenance.buildCells(scope, kind, { cells: 30, rounds: 1, rowsPerStep: 1000, memories: 30, cellsFor: null }),
      12,
    ],
    ['cells: drop', () => maintenance.dropCells(scope, kind, 30)],
    ['cells: place new memories', () => maintenance.assignCells(scope, kind, 500)],
    ['cells: refresh the centroids', () => maintenance.refreshCells(scope, kind, { rowsPerStep: 1000, memories: 30 }), 2],
    ['reembed: clear every cell', () => recorder.query(REEMBED_CLEAR_CELLS.query({}, recorder.engine))],
  ];
}

function runtimeQuery(label: string, sent: Query, several: boolean): RuntimeQuery {
  const statement = (sent as Partial<StatementQuery>).statement;
  if (!statement?.expects) throw new Error(`${label}: a statement without a declared plan reached the database`);
  return {
    name: several ? `${label}: ${statement.name}` : label,
    statement: statement.name,
    text: sent.text,
    params: sent.values,
    expect: statement.expects(),
  };
}

/**
 * The statements of `statements/` that no representative call sends on an engine and that
 * {@link NOT_EXPLAINED} does not account for, and the accounted ones that are sent after all:
 * what keeps the catalogue whole as statements are added.
 */
export async function catalogueGaps(engine: SqlEngine): Promise<{ unsent: string[]; listedButSent: string[] }> {
  const rep: Representative = { region: 'gaps', userId: SOME_ID, dimensions: 8, now: new Date('2026-01-01T00:00:00.000Z') };
  const sent = new Set((await runtimeQueries(rep, engine)).map((q) => q.statement));
  const all = STATEMENTS.map((s: AnyStatement) => s.name);
  const unsent = all.filter((name) => !sent.has(name) && notExplained(name, engine) === undefined);
  const listedButSent = all.filter((name) => sent.has(name) && notExplained(name, engine) !== undefined);
  return { unsent, listedButSent };
}
