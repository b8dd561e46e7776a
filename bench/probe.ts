import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../lambda/adapters/local/judge.js';
import { PgSqlClient } from '../lambda/adapters/pg/pg-client.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import type { Query, SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { fingerprint } from '../lambda/memory/canonical.js';
import type { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import type { CurationRules, Principal } from '../lambda/memory/model.js';
import type { Embedder } from '../lambda/ports/embedder.js';
import { memoryServices } from '../lambda/memory/services.js';
import { systemClock } from '../lambda/ports/clock.js';
import type { MemoryStores } from '../lambda/ports/memory-stores.js';
import type { LoadPlan } from '../lambda/ports/transfer-store.js';
import { startPostgres } from '../test/support/pg-server.js';
import { loadable } from './loadable.js';
import { loadLocomo } from './locomo-data.js';

/**
 * What the benches that time the sweeper share: the engine they run on, a client that times each
 * statement, and a probe user calling while the sweeper works.
 */

/** The one kind these benches fill, `event`, with a ceiling no partition of theirs reaches. */
export const BENCH_RULES: CurationRules = {
  kinds: { event: { ceiling: 100_000, ttlSeconds: null, dedup: false } },
  pinLimit: 50,
  journalRetentionSeconds: 86_400,
};

/** LoCoMo's turns and questions, dev and held out, read at run time: what these benches store and ask. */
export function locomoTexts(): { turns: string[]; questions: string[] } {
  const conversations = [...loadLocomo('../shared/data', 'dev'), ...loadLocomo('../shared/data', 'heldout')];
  return {
    turns: conversations.flatMap((c) => c.turns.map((t) => t.content)),
    questions: conversations.flatMap((c) => c.questions.map((q) => q.text)),
  };
}

/** Memories loaded in bulk into a user's `event` partition (`TransferStore.load`), as a bulk user's are. */
export function loadEvents(stores: MemoryStores, scope: LoadPlan['scope'], memories: LoadPlan['memories']): Promise<unknown> {
  return stores.transfer.load({
    scope,
    kind: 'event',
    expires: false,
    at: new Date(),
    agent: 'bench',
    client: 'bench/1',
    memories,
  });
}

/**
 * One user's `event` partition filled with `size` of `turns`, loaded in bulk `batch` at a time
 * (`loadEvents`). A turn said twice, or again past the corpus's end, is told apart by its number,
 * as a partition's fingerprints are unique. `progress` hears every 10,000 memories.
 */
export async function loadTurns(
  stores: MemoryStores,
  scope: LoadPlan['scope'],
  turns: readonly string[],
  size: number,
  using: { embedder: Embedder; analyzer: LexicalAnalyzer; batch: number; progress?: (line: string) => void },
): Promise<void> {
  const seen = new Set<string>();
  for (let i = 0; i < size; i += using.batch) {
    const memories = [];
    for (let j = i; j < Math.min(size, i + using.batch); j += 1) {
      const turn = turns[j % turns.length] ?? '';
      const content = seen.has(fingerprint(turn)) ? `${turn} (${j})` : turn;
      seen.add(fingerprint(content));
      memories.push(await loadable(content, using.embedder, using.analyzer));
    }
    await loadEvents(stores, scope, memories);
    if ((i + using.batch) % 10_000 === 0) using.progress?.(`${i + using.batch} of ${size} memories stored`);
  }
}

/**
 * PGlite as `naaba serve` runs it, in a data folder: a throwaway one under the system's temporary
 * folder, removed by `stop`. Never `memory://` for a timing: its file system grows a file by
 * copying it whole, which stalls a statement for up to seconds once a table passes 100 MB
 * (decision 0121). `copyOf` starts from a `dump()` instead of running initdb.
 */
export async function openScratchPglite(copyOf?: Blob): Promise<{ sql: PgliteSqlClient; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-bench-'));
  const sql = await PgliteSqlClient.open(dir, copyOf);
  return {
    sql,
    stop: async () => {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The bench's database: an existing PostgreSQL-wire database (`url`), a throwaway PostgreSQL 15
 * cluster on loopback (`engine: 'postgres'`), or PGlite in-process in a throwaway data folder.
 */
export async function openBenchEngine(flags: {
  readonly engine?: string;
  readonly url?: string;
}): Promise<{ sql: SqlClient; label: string; stop: () => Promise<void> }> {
  if (flags.url) {
    const sql = await PgSqlClient.connect({ url: flags.url, maxConnections: 2, statementTimeoutMs: 60_000 });
    return { sql, label: `${sql.engine} at a URL`, stop: () => sql.close() };
  }
  if (flags.engine === 'postgres') {
    const server = await startPostgres();
    const sql = await PgSqlClient.connect({ url: server.url, maxConnections: 2, statementTimeoutMs: 60_000 });
    return {
      sql,
      label: server.version,
      stop: async () => {
        await sql.close();
        await server.stop();
      },
    };
  }
  return { ...(await openScratchPglite()), label: 'PGlite in-process, in a data folder' };
}

/** The sweeper's client: each statement timed, the slowest kept overall and by name. */
export class TimedSql implements SqlClient {
  readonly engine: SqlClient['engine'];
  slowest = { ms: 0, name: '' };
  /** The slowest of each statement, by name. */
  readonly slowestOf = new Map<string, number>();
  /** Every duration of each statement, by name (ms). */
  readonly durationsOf = new Map<string, number[]>();
  statements = 0;

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  private async timed<R>(query: Query, run: () => Promise<R[]>): Promise<R[]> {
    const t = performance.now();
    try {
      return await run();
    } finally {
      const ms = performance.now() - t;
      const name = (query as { statement?: { name: string } }).statement?.name ?? '?';
      this.statements += 1;
      this.slowestOf.set(name, Math.max(ms, this.slowestOf.get(name) ?? 0));
      this.durationsOf.set(name, [...(this.durationsOf.get(name) ?? []), ms]);
      if (ms > this.slowest.ms) this.slowest = { ms, name };
    }
  }

  /** The statements that took longer than `ms`, by name (`name k of n`), or `none`. */
  over(ms: number): string {
    const slow = [...this.durationsOf].flatMap(([name, all]) => {
      const k = all.filter((d) => d > ms).length;
      return k > 0 ? [`${name} ${k} of ${all.length}`] : [];
    });
    return slow.join(', ') || 'none';
  }

  query<R>(query: Query): Promise<R[]> {
    return this.timed(query, () => this.inner.query<R>(query));
  }

  read<R>(query: Query): Promise<R[]> {
    return this.timed(query, () => (this.inner.read ? this.inner.read<R>(query) : this.inner.query<R>(query)));
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  async close(): Promise<void> {}
}

/** Who the probe is and what it says: its region and rules, the embedder's dimension, and the texts it remembers and searches. */
export interface ProbeOptions {
  readonly region: string;
  readonly rules: CurationRules;
  readonly dimensions: number;
  readonly turns: readonly string[];
  readonly questions: readonly string[];
}

/**
 * Runs `work` while a probe user recalls and remembers (kind `event`), and returns the probe's call
 * times. On PGlite every call shares the one session, so the probe waits for whatever statement runs.
 */
export async function whileProbing(stores: MemoryStores, work: () => Promise<void>, options: ProbeOptions): Promise<number[]> {
  const probe: Principal = { userId: randomUUID(), region: options.region, agent: 'probe', keyId: randomUUID() };
  const services = memoryServices({
    stores,
    embedder: new LocalEmbedder(options.dimensions),
    judge: new ExactOnlyJudge(),
    clock: systemClock,
    rules: options.rules,
  });
  const { turns, questions } = options;
  const calls: number[] = [];
  let working = true;
  const probing = (async () => {
    for (let i = 0; working; i += 1) {
      const t = performance.now();
      if (i % 2 === 0) {
        await services.curation.remember(
          probe,
          { name: 'probe', version: '1' },
          { content: turns[i % turns.length] ?? 'probe', kind: 'event' },
        );
      } else {
        await services.page.search(probe, { query: questions[i % questions.length] ?? 'probe', kinds: ['event'], limit: 10 });
      }
      calls.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work();
  } finally {
    working = false;
    await probing;
  }
  return calls;
}
