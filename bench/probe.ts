import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { inLane, type TurnWatch, watchTurn } from '../lambda/adapters/pg/fair-queue.js';
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
import { parseFlags } from '../test/support/jest-run.js';
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

/** Memories per window of a load's speed: 5,000 at a time, the smallest size the budget compares (issue 51). */
export const LOAD_WINDOW = 5_000;

/** One window of a load: the memories it took the partition from and to, its time, and the writing statements' share of it. */
export interface LoadWindow {
  readonly from: number;
  readonly to: number;
  readonly ms: number;
  readonly statementMs: number;
}

/** A window's speed as the benches print it: memories per second, ms per memory, of it in the statement. */
export const windowRate = (w: LoadWindow): string => {
  const n = w.to - w.from;
  return `${Math.round((1000 * n) / w.ms)} memories/s, ${(w.ms / n).toFixed(2)} ms per memory (${(w.statementMs / n).toFixed(2)} in the statement)`;
};

/**
 * How a load's cost per memory moved: the last window's ms per memory over the first's, whole and
 * in the statement, or nothing with one window. The first window writes into an empty partition
 * and the two run a minute apart, so this is the load's course, not the cost at a size: issue 51's
 * 1.3× from 5,000 to 50,000 is bench:load-cost's paired measure (decision 0163).
 */
export function windowGrowth(windows: readonly LoadWindow[]): string | undefined {
  const [first, last] = [windows[0], windows.at(-1)];
  if (!first || !last || first === last) return undefined;
  const ratio = (ms: (w: LoadWindow) => number) =>
    (ms(last) / (last.to - last.from) / (ms(first) / (first.to - first.from))).toFixed(2);
  return `${ratio((w) => w.ms)}× per memory (${ratio((w) => w.statementMs)}× in the statement), ${last.from}–${last.to} over ${first.from}–${first.to}`;
}

/** Prints a load's windows, one line each, and their growth. */
export function printWindows(windows: readonly LoadWindow[]): void {
  for (const w of windows) console.log(`    ${`${w.from}–${w.to}`.padStart(13)}  ${windowRate(w)}`);
  const growth = windowGrowth(windows);
  if (growth) console.log(`    the load's course (empty start included; the cost at a size: bench:load-cost): ${growth}`);
}

/**
 * Times a load by window of `LOAD_WINDOW` memories: told after each batch how many memories are in
 * and how long its writing statements took, it closes a window once it holds `LOAD_WINDOW` (or the
 * load is done) and tells `progress`.
 */
export class LoadWindows {
  readonly windows: LoadWindow[] = [];
  private open = { from: 0, started: performance.now(), statementMs: 0 };

  constructor(
    private readonly size: number,
    private readonly progress?: (line: string) => void,
  ) {}

  /** A batch is written: `done` memories are in, and its statements took `statementMs`. */
  batch(done: number, statementMs: number): void {
    this.open.statementMs += statementMs;
    if (done - this.open.from < LOAD_WINDOW && done < this.size) return;
    const w = { from: this.open.from, to: done, ms: performance.now() - this.open.started, statementMs: this.open.statementMs };
    this.windows.push(w);
    this.progress?.(`${done} of ${this.size} memories stored; ${w.from}–${done}: ${windowRate(w)}`);
    this.open = { from: done, started: performance.now(), statementMs: 0 };
  }

  /** Runs `work` outside the load's time: what it takes is not counted in the open window. */
  async untimed<T>(work: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await work();
    } finally {
      this.open.started += performance.now() - t;
    }
  }

  /** The load's whole time (s). */
  seconds(): number {
    return this.windows.reduce((ms, w) => ms + w.ms, 0) / 1000;
  }
}

/** `size` of `turns` in order, again from the start past the corpus's end, each one said before told apart by its number. */
export function distinctTurns(turns: readonly string[], size: number): string[] {
  const seen = new Set<string>();
  return Array.from({ length: size }, (_, j) => {
    const turn = turns[j % turns.length] ?? '';
    const content = seen.has(fingerprint(turn)) ? `${turn} (${j})` : turn;
    seen.add(fingerprint(content));
    return content;
  });
}

/**
 * A load bench's command line: its `--name value` flags (`parseFlags`), `--engine` being pglite or
 * postgres, and `fail`, which prints why with the bench's usage and exits with code 2, for the
 * bench's own checks.
 */
export function benchFlags<F extends string>(
  args: readonly string[],
  names: readonly F[],
  usage: string,
): { flags: Partial<Record<F | 'engine', string>>; fail: (why: string) => never } {
  const fail = (why: string): never => {
    console.error(`${why}\n\n${usage}`);
    process.exit(2);
  };
  const parsed = parseFlags<F | 'engine'>(args, [...names, 'engine']);
  if (typeof parsed === 'string') return fail(parsed);
  if (parsed.engine && !['pglite', 'postgres'].includes(parsed.engine)) fail('--engine is pglite or postgres');
  return { flags: parsed, fail };
}

/**
 * One user's `event` partition filled with `size` of `turns` (`distinctTurns`: a partition's
 * fingerprints are unique), loaded in bulk `batch` at a time (`loadEvents`). Timed by window
 * ({@link LoadWindows}): embedding and statement, and the statement alone. `between` runs before
 * every batch but the first, untimed.
 */
export async function loadTurns(
  stores: MemoryStores,
  scope: LoadPlan['scope'],
  turns: readonly string[],
  size: number,
  using: {
    embedder: Embedder;
    analyzer: LexicalAnalyzer;
    batch: number;
    progress?: (line: string) => void;
    between?: () => Promise<void>;
  },
): Promise<LoadWindows> {
  const contents = distinctTurns(turns, size);
  const timed = new LoadWindows(size, using.progress);
  for (let i = 0; i < size; i += using.batch) {
    if (i > 0 && using.between) await timed.untimed(using.between);
    const memories = [];
    for (const content of contents.slice(i, i + using.batch)) {
      memories.push(await loadable(content, using.embedder, using.analyzer));
    }
    const t = performance.now();
    await loadEvents(stores, scope, memories);
    timed.batch(Math.min(size, i + using.batch), performance.now() - t);
  }
  return timed;
}

/**
 * PGlite as `naaba serve` runs it, in a data folder: a throwaway one under the system's temporary
 * folder, removed by `stop`. Never `memory://` for a timing: its file system grows a file by
 * copying it whole, which stalls a statement for up to seconds once a table passes 100 MB
 * (decision 0121). `copyOf` starts from a `dump()` instead of running initdb; `buffersMb` sets its
 * shared buffers instead of the folder's data (decision 0155).
 */
export async function openScratchPglite(
  copyOf?: Blob,
  buffersMb?: number,
): Promise<{ sql: PgliteSqlClient; dir: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-bench-'));
  const sql = await PgliteSqlClient.open(dir, copyOf, buffersMb);
  return {
    sql,
    dir,
    stop: async () => {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The bench's database: an existing PostgreSQL-wire database (`url`), a throwaway PostgreSQL 15
 * cluster on loopback (`engine: 'postgres'`), or PGlite in-process in a throwaway data folder;
 * `dir` is the folder on disk of either of the last two (a PGlite one a bench can open again as a
 * server start would: serve-start.ts).
 */
export async function openBenchEngine(flags: {
  readonly engine?: string;
  readonly url?: string;
  /** PGlite's shared buffers, instead of those its folder's data would choose (decision 0155). */
  readonly buffersMb?: number;
}): Promise<{ sql: SqlClient; label: string; dir?: string; stop: () => Promise<void> }> {
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
      dir: server.dataDir,
      stop: async () => {
        await sql.close();
        await server.stop();
      },
    };
  }
  const label = `PGlite in-process, in a data folder${flags.buffersMb ? `, ${flags.buffersMb} MB of buffers` : ''}`;
  return { ...(await openScratchPglite(undefined, flags.buffersMb)), label };
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
  /** Each statement in the order they ended: its name, own time (ms) and turn's start (`performance.now()`). */
  readonly log: { name: string; ms: number; startedAt: number }[] = [];
  /** What the statements waited for their turns in all (ms; PGlite only). */
  waitedMs = 0;

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  private async timed<R>(query: Query, run: () => Promise<R[]>): Promise<R[]> {
    const t = performance.now();
    const turn: TurnWatch = {};
    try {
      return await watchTurn(turn, run);
    } finally {
      // A statement's own time, from its turn on the embedded database (PGlite's fair queue): what
      // it waited for requests to pause (decision 0161) is counted apart.
      const started = turn.startedAt ?? t;
      const ms = performance.now() - started;
      this.waitedMs += started - t;
      const name = (query as { statement?: { name: string } }).statement?.name ?? '?';
      this.statements += 1;
      this.log.push({ name, ms, startedAt: started });
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

  /** How many statements took longer than `ms`, whatever their name. */
  overCount(ms: number): number {
    return [...this.durationsOf.values()].reduce((n, all) => n + all.filter((d) => d > ms).length, 0);
  }

  /** The `top` statements by their slowest: each one's count, p50, p99 and slowest (ms). */
  spread(top: number): string {
    const at = (all: number[], q: number) => [...all].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * all.length) - 1)] ?? 0;
    return [...this.durationsOf]
      .sort((a, b) => Math.max(...b[1]) - Math.max(...a[1]))
      .slice(0, top)
      .map(
        ([name, all]) =>
          `${name} ${all.length}, ${at(all, 0.5).toFixed(0)}, ${at(all, 0.99).toFixed(0)}, ${Math.max(...all).toFixed(0)}`,
      )
      .join('; ');
  }

  /** The slowest of each statement that took longer than `ms` (`name ms`), slowest first, or `none`. */
  slowestOver(ms: number): string {
    const slow = [...this.slowestOf].filter(([, d]) => d > ms).sort((a, b) => b[1] - a[1]);
    return slow.map(([name, d]) => `${name} ${d.toFixed(0)}`).join(', ') || 'none';
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
  /** How long the probe calls at most (ms); it stops sooner when `work` is done. */
  readonly forMs?: number;
  /** Its pause between two calls (ms; 5 unless said): 5 is a client calling in a loop, 250 an agent between tool calls. */
  readonly pauseMs?: number;
  /** Hears each call: when it started (`performance.now()`) and how long it took (ms). */
  readonly onCall?: (startedAt: number, ms: number) => void;
}

/**
 * Runs `work` while a probe user recalls and remembers (kind `event`), and returns the probe's call
 * times. Each call runs in the probe's own lane, as the local server runs a request (decision
 * 0161: background statements give way to it). On PGlite every call shares the one session, so the
 * probe waits for whatever statement runs when it calls.
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
  const until = performance.now() + (options.forMs ?? Number.POSITIVE_INFINITY);
  const lane = `probe ${probe.userId}`;
  const probing = (async () => {
    for (let i = 0; working && performance.now() < until; i += 1) {
      const t = performance.now();
      if (i % 2 === 0) {
        await inLane(lane, () =>
          services.curation.remember(
            probe,
            { name: 'probe', version: '1' },
            { content: turns[i % turns.length] ?? 'probe', kind: 'event' },
          ),
        );
      } else {
        await inLane(lane, () =>
          services.page.search(probe, { query: questions[i % questions.length] ?? 'probe', kinds: ['event'], limit: 10 }),
        );
      }
      calls.push(performance.now() - t);
      options.onCall?.(t, performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 5));
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
