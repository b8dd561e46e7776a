import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../../lambda/adapters/local/judge.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { requireIndexedWith, schemaFacts } from '../../lambda/adapters/pg/schema/facts.js';
import {
  asCeilingWrite,
  asRead,
  inQueue,
  inTransaction,
  type Query,
  type SqlClient,
  type SqlEngine,
} from '../../lambda/adapters/pg/sql-client.js';
import { fingerprint } from '../../lambda/memory/canonical.js';
import { StoreBusyError } from '../../lambda/memory/errors.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { CurationRules, Principal } from '../../lambda/memory/model.js';
import { memoryServices } from '../../lambda/memory/services.js';
import { systemClock } from '../../lambda/ports/clock.js';
import { PATIENT_CONNECT_MS, PATIENT_RETRY } from '../support/budgets.js';

/**
 * Different users on one real PostgreSQL (default settings): each worker owns its own users and
 * never sends two calls of one user at once, so any failure between them is one user's call
 * aborting another's. What must hold: not one call gives up busy (decision 0056).
 */

export interface CrossUserFigures {
  readonly calls: number;
  readonly succeeded: number;
  /** Calls that gave up with the retryable busy error: between different users, always a defect. */
  readonly busy: number;
  /** Calls that failed any other way. */
  readonly failed: number;
  /** Serialization failures (40001) and deadlocks (40P01) the server reported, each retried. */
  readonly retries: number;
}

/** Counts what the server reported as serialization failures or deadlocks, on every statement kind. */
class RetryTally implements SqlClient {
  readonly engine: SqlEngine;
  retries = 0;

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  private async counted<R>(run: () => Promise<R[]>): Promise<R[]> {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === '40001' || code === '40P01' || code === '55P03') this.retries += 1;
      throw error;
    }
  }

  query<R>(query: Query): Promise<R[]> {
    return this.counted(() => this.inner.query<R>(query));
  }

  read<R>(query: Query): Promise<R[]> {
    return this.counted(() => asRead<R>(this.inner, query));
  }

  ceiling<R>(query: Query): Promise<R[]> {
    return this.counted(() => asCeilingWrite<R>(this.inner, query));
  }

  transaction<T>(work: (session: SqlClient) => Promise<T>): Promise<T> {
    return inTransaction(this.inner, work);
  }

  queue<R>(locks: readonly Query[], query: Query): Promise<R[]> {
    return this.counted(() => inQueue<R>(this.inner, locks, query));
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const RULES: CurationRules = {
  kinds: { fact: { ceiling: 1_000, ttlSeconds: null }, session: { ceiling: 100, ttlSeconds: 86_400 } },
  pinLimit: 50,
  journalRetentionSeconds: 86_400,
};
const TOPICS = ['river', 'market', 'school', 'harvest', 'clinic', 'bus', 'rain', 'music', 'tea', 'bread', 'bank', 'phone'];
const note = (u: number, i: number) =>
  `Note ${i} of user ${u}: the ${TOPICS[i % TOPICS.length]} near ${TOPICS[(u + i) % TOPICS.length]} on day ${(i * 7) % 31}.`;
const CLIENT = { name: 'cross-users', version: '1' };

export interface CrossUserBench {
  /** Users written by `writers` concurrent writers through the service, `each` memories apiece (a young table). */
  loadThroughService(users: number, each: number, writers: number): Promise<Principal[]>;
  /** Users written in bulk through the store, then ANALYZE (a grown table). */
  loadInBulk(users: number, each: number): Promise<Principal[]>;
  /** `workers` workers, each on its own users in turn, `calls` calls in all: recall, or recall and remember alternating. */
  play(principals: readonly Principal[], workers: number, calls: number, mix: 'recall' | 'mixed'): Promise<CrossUserFigures>;
  close(): Promise<void>;
}

export async function openCrossUserBench(url: string, connections: number): Promise<CrossUserBench> {
  // More workers than a busy machine serves at once: patient bounds on connections and on retries.
  const raw = await PgSqlClient.connect({
    url,
    maxConnections: connections,
    statementTimeoutMs: 30_000,
    connectionTimeoutMs: PATIENT_CONNECT_MS,
  });
  const sql = new RetryTally(raw);
  const stores = sqlMemoryStores(sql, PATIENT_RETRY);
  const embedder = new LocalEmbedder(256);
  const analyzer = new LexicalAnalyzer();
  const memory = memoryServices({
    stores,
    embedder,
    judge: new ExactOnlyJudge(),
    analyzer,
    clock: systemClock,
    rules: RULES,
  }).curation;
  // What made the stored vectors and terms, recorded as start-up would on an empty table.
  await requireIndexedWith(raw, await schemaFacts(raw), { embedder: embedder.name, lexical: analyzer.name });
  const principal = (): Principal => ({ userId: randomUUID(), region: 'eu-central-1', agent: 'cross', keyId: randomUUID() });
  let serial = 0;

  async function play(principals: readonly Principal[], workers: number, calls: number, mix: 'recall' | 'mixed') {
    const before = sql.retries;
    let busy = 0;
    let failed = 0;
    let succeeded = 0;
    let next = 0;
    const worker = async (w: number) => {
      // Worker w owns users w, w + workers, …: never two calls of one user at once.
      const own = principals.filter((_, i) => i % workers === w);
      for (let turn = 0; own.length > 0; turn += 1) {
        const n = next++;
        if (n >= calls) return;
        const p = own[turn % own.length] as Principal;
        const call =
          mix === 'mixed' && n % 2 === 1
            ? memory.remember(p, CLIENT, { content: `${note(serial++, n)} (mixed)`, kind: n % 4 === 1 ? 'session' : 'fact' })
            : memory.recall(p, { query: `${TOPICS[n % TOPICS.length]} day ${n % 31}`, limit: 10 });
        try {
          await call;
          succeeded += 1;
        } catch (error) {
          if (error instanceof StoreBusyError) busy += 1;
          else failed += 1;
        }
      }
    };
    await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
    return { calls, succeeded, busy, failed, retries: sql.retries - before };
  }

  return {
    async loadThroughService(users, each, writers) {
      const principals = Array.from({ length: users }, principal);
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (const [u, p] of principals.entries()) {
            if (u % writers !== w) continue;
            for (let i = 0; i < each; i += 1) await memory.remember(p, CLIENT, { content: note(u, i), kind: 'fact' });
          }
        }),
      );
      return principals;
    },
    async loadInBulk(users, each) {
      const principals = Array.from({ length: users }, principal);
      const at = new Date();
      for (const [u, p] of principals.entries()) {
        const memories = [];
        for (let i = 0; i < each; i += 1) {
          const content = note(u, i);
          memories.push({
            id: randomUUID(),
            content,
            fingerprint: fingerprint(content),
            embedding: await embedder.embed(content),
            frequencies: analyzer.frequencies(content),
          });
        }
        await stores.transfer.load({ scope: p, kind: 'fact', expires: false, at, agent: 'cross', client: 'cross/1', memories });
      }
      await raw.exec('ANALYZE');
      return principals;
    },
    play,
    close: () => raw.close(),
  };
}
