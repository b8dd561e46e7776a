import { KeyState, InMemoryKeyStore, InMemoryOAuthStore } from '../../lambda/adapters/in-memory/key-stores.js';
import { inMemoryStores } from '../../lambda/adapters/in-memory/memory-stores.js';
import { CountingSqlClient, type SqlClient, type SqlEngine } from '../../lambda/adapters/pg/sql-client.js';
import { params, sql as sqlText, verbatim } from '../../lambda/adapters/pg/sql/template.js';
import { SqlKeyStore } from '../../lambda/adapters/pg/stores/sql-key-store.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { SqlOAuthStore } from '../../lambda/adapters/pg/stores/sql-oauth-store.js';
import type { JournalRule } from '../../lambda/memory/model.js';
import type { KeyStore } from '../../lambda/ports/key-store.js';
import type { MemoryStores } from '../../lambda/ports/memory-stores.js';
import type { OAuthStore } from '../../lambda/ports/oauth-store.js';
import { PATIENT_RETRY } from '../support/budgets.js';

/**
 * The store conformance suite's view of an engine: the ports' implementations, and a few reads
 * and one back door the suite needs to see what the ports do not show (the journal as stored, a
 * memory's place in its origin) or to age a memory without waiting. Every engine gives the same
 * answers: the in-memory reference store, PGlite, PostgreSQL, CockroachDB.
 */

export interface InspectedMemory {
  readonly id: string;
  readonly region: string;
  readonly userId: string;
  readonly kind: string;
  readonly content: string;
  readonly pinned: boolean;
  /** In the expiry index. */
  readonly expires: boolean;
  readonly recallCount: number;
  readonly lastUsefulAt: Date;
  readonly origin: string | null;
  readonly originSeq: number | null;
}

export interface InspectedLine {
  readonly region: string;
  readonly userId: string;
  readonly kind: string;
  readonly rule: JournalRule;
  readonly at: Date;
  readonly ageSeconds: number;
  readonly recallCount: number;
}

export type InspectedTable = 'memories' | 'journal' | 'oauth_clients' | 'oauth_codes' | 'oauth_tokens' | 'oauth_rate_limits';

export interface StoreInspector {
  /** Every stored memory, of every user and region, by id. */
  memories(): Promise<InspectedMemory[]>;
  /** Every journal line, of every user and region, by time then rule. */
  journal(): Promise<InspectedLine[]>;
  count(table: InspectedTable): Promise<number>;
  /** The back door: makes the memories of these contents last useful at `at`, as time passing would. */
  setLastUseful(contents: readonly string[], at: Date): Promise<void>;
}

export interface StoreHarness {
  readonly engine: SqlEngine | 'memory';
  readonly stores: MemoryStores;
  readonly keys: KeyStore;
  oauth(region: string): OAuthStore;
  readonly inspect: StoreInspector;
  /** Round trips since it was last set to 0: statements on SQL, store calls in memory (each one atomic call). */
  readonly roundTrips: { count: number };
  /** The SQL engines' client, for what only SQL has (cells, postings, plans); absent in memory. */
  readonly sql?: SqlClient;
  /** Empties every table, keeping the schema. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** The in-memory reference store: no database, no network. */
export async function openMemory(): Promise<StoreHarness> {
  const memory = inMemoryStores();
  const keyState = new KeyState();
  const calls = { count: 0 };
  // Each port call is one atomic call, as each SQL store call is one statement: count them alike.
  const counted = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.count += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const { state } = memory;
  return {
    engine: 'memory',
    stores: {
      curation: counted(memory.curation),
      page: counted(memory.page),
      transfer: counted(memory.transfer),
      maintenance: counted(memory.maintenance),
    },
    keys: new InMemoryKeyStore(keyState),
    oauth: (region) => new InMemoryOAuthStore(keyState, region),
    roundTrips: {
      get count() {
        return calls.count;
      },
      set count(n: number) {
        calls.count = n;
      },
    },
    inspect: {
      memories: async () =>
        [...state.memories.values()]
          .map((m) => ({
            id: m.id,
            region: m.region,
            userId: m.userId,
            kind: m.kind,
            content: m.content,
            pinned: m.pinned,
            expires: m.expires,
            recallCount: m.recallCount,
            lastUsefulAt: m.lastUsefulAt,
            origin: m.origin,
            originSeq: m.originSeq,
          }))
          .sort((a, b) => (a.id < b.id ? -1 : 1)),
      journal: async () =>
        state.journal
          .map(({ region, userId, kind, rule, at, ageSeconds, recallCount }) => ({
            region,
            userId,
            kind,
            rule,
            at,
            ageSeconds,
            recallCount,
          }))
          .sort((a, b) => a.at.getTime() - b.at.getTime() || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0)),
      count: async (table) => {
        const sizes: Record<InspectedTable, number> = {
          memories: state.memories.size,
          journal: state.journal.length,
          oauth_clients: keyState.clients.size,
          oauth_codes: keyState.codes.size,
          oauth_tokens: keyState.tokens.size,
          oauth_rate_limits: keyState.windows.size,
        };
        return sizes[table];
      },
      setLastUseful: async (contents, at) => {
        for (const m of state.memories.values()) if (contents.includes(m.content)) m.lastUsefulAt = at;
      },
    },
    reset: async () => {
      state.clear();
      keyState.clear();
    },
    close: async () => undefined,
  };
}

/** The tables a reset empties, children first. */
const TABLES = [
  'memory_links',
  'journal',
  'memories',
  'memory_terms',
  'memory_partition_terms',
  'memory_partitions',
  'api_keys',
  'oauth_clients',
  'oauth_codes',
  'oauth_tokens',
  'oauth_rate_limits',
];

/**
 * The size from which the suite's stores mark a partition for cells (decision 0118): the cells
 * tests sweep with the same, so that a test's partition of a few dozen memories is "large".
 */
export const SUITE_CELLS = { from: 40 } as const;

/** A SQL engine: the stores over a client that counts statements, inspected by SQL. */
export function sqlHarness(db: SqlClient, over: { reset?: () => Promise<void>; close: () => Promise<void> }): StoreHarness {
  const counted = new CountingSqlClient(db);
  // Calls here must succeed: a busy machine must not exhaust the retries' 3 s budget.
  const stores = sqlMemoryStores(counted, PATIENT_RETRY, SUITE_CELLS);
  const emptyAll = async () => {
    // DELETE, not TRUNCATE: on CockroachDB a TRUNCATE is a schema change per table.
    for (const table of [...TABLES, ...(db.engine === 'cockroach' ? [] : ['memory_cells'])]) {
      await db.exec(`DELETE FROM ${table}`);
    }
  };
  return {
    engine: db.engine,
    stores,
    sql: db,
    keys: new SqlKeyStore(db, PATIENT_RETRY),
    oauth: (region) => new SqlOAuthStore(db, region, PATIENT_RETRY),
    roundTrips: {
      get count() {
        return counted.roundTrips;
      },
      set count(n: number) {
        counted.roundTrips = n;
      },
    },
    inspect: {
      memories: async () =>
        (
          await db.query<{
            id: string;
            region: string;
            user_id: string;
            kind: string;
            content: string;
            pinned: boolean;
            expires: boolean;
            recall_count: number;
            last_useful_at: Date;
            origin: string | null;
            origin_seq: string | number | null;
          }>(
            sqlText`SELECT id::text AS id, region::text AS region, user_id::text AS user_id, kind, content, pinned, expires,
                           recall_count, last_useful_at, origin, origin_seq FROM memories ORDER BY id`,
          )
        ).map((r) => ({
          id: r.id,
          region: r.region,
          userId: r.user_id,
          kind: r.kind,
          content: r.content,
          pinned: r.pinned,
          expires: r.expires,
          recallCount: r.recall_count,
          lastUsefulAt: new Date(r.last_useful_at),
          origin: r.origin,
          originSeq: r.origin_seq === null ? null : Number(r.origin_seq),
        })),
      journal: async () =>
        (
          await db.query<{
            region: string;
            user_id: string;
            kind: string;
            rule: JournalRule;
            at: Date;
            age_s: string | number;
            recall_count: number;
          }>(
            sqlText`SELECT region::text AS region, user_id::text AS user_id, kind, rule, at, age_s, recall_count
                      FROM journal ORDER BY at, rule`,
          )
        ).map((r) => ({
          region: r.region,
          userId: r.user_id,
          kind: r.kind,
          rule: r.rule,
          at: new Date(r.at),
          ageSeconds: Number(r.age_s),
          recallCount: r.recall_count,
        })),
      count: async (table) =>
        (await db.query<{ n: number }>(sqlText`SELECT count(*)::int4 AS n FROM ${verbatim(table)}`))[0]?.n ?? -1,
      setLastUseful: async (contents, at) => {
        const p = params({ contents: [...contents], at });
        await db.query(
          sqlText`UPDATE memories SET last_useful_at = ${p.at}::timestamptz WHERE content = ANY(${p.contents}::text[])`,
        );
      },
    },
    reset: async () => {
      await (over.reset ?? emptyAll)();
      // The sweeper's walks of a region start afresh with its memories (decisions 0098, 0119).
      await db.exec(`UPDATE sweeper_state SET value = NULL WHERE name <> 'expiring_kinds'`);
    },
    close: over.close,
  };
}
