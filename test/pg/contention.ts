import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import {
  asCeilingWrite,
  asRead,
  inQueue,
  inTransaction,
  type Query,
  type SqlClient,
  type SqlEngine,
} from '../../lambda/adapters/pg/sql-client.js';
import { Container } from '../../lambda/composition.js';
import { loadConfig } from '../../lambda/config/env.js';
import { StoreBusyError } from '../../lambda/memory/errors.js';
import type { ClientInfo, Principal } from '../../lambda/memory/model.js';
import type { CurationService } from '../../lambda/memory/curation/curation-service.js';
import { params, sql as sqlText } from '../../lambda/adapters/pg/sql/template.js';
import { PATIENT_CONNECT_MS, PATIENT_RETRY } from '../support/budgets.js';

/**
 * Contention rounds against a real multi-connection server, through the memory service (embed,
 * duplicate check, insert or merge) exactly as the MCP tools call it. Each round is a burst of
 * concurrent remembers; what must hold is checked on the rows afterwards.
 */

/**
 * Round trips of a remember that meets contention (decision 0099): the neighbours read, the first
 * attempt, the queued one. Each further queued attempt adds one.
 */
export const CONTENDED_REMEMBER_BUDGET = 3;

/** The ceiling of the contended kind: far below the burst, so most inserts evict. */
export const NOTE_CEILING = 10;

export type Scenario = 'one-partition' | 'many-users' | 'restatements';

export interface RoundFigures {
  readonly scenario: Scenario;
  readonly calls: number;
  readonly succeeded: number;
  /** Calls that failed with the retryable busy error (nothing changed). */
  readonly busy: number;
  /** Calls that failed any other way: always a defect. */
  readonly failed: number;
  /** Serialization failures and deadlocks the server reported, each retried. */
  readonly retries: number;
  /** Guarantees broken in this round, in words; empty when all held. */
  readonly violations: readonly string[];
  /** Round trips each call made (BEGIN and COMMIT of a transaction counted, as `bench:round-trips` does), in call order. */
  readonly statements: readonly number[];
}

/** The round trips of the call in whose async context a statement is sent. */
const perCall = new AsyncLocalStorage<{ n: number }>();
const sent = (n = 1) => {
  const call = perCall.getStore();
  if (call) call.n += n;
};

/** Counts the serialization failures (40001) and deadlocks (40P01) the server reports. */
class RetryCountingClient implements SqlClient {
  readonly engine: SqlEngine;

  constructor(
    readonly inner: SqlClient,
    readonly tally: { retries: number } = { retries: 0 },
  ) {
    this.engine = inner.engine;
  }

  private async counted<R>(run: () => Promise<R[]>): Promise<R[]> {
    sent();
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === '40001' || code === '40P01' || code === '55P03') this.tally.retries += 1;
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
    // BEGIN and COMMIT; the statements inside count themselves and their own failures.
    if (this.inner.transaction) sent(2);
    return inTransaction(this.inner, (session) => work(new RetryCountingClient(session, this.tally)));
  }

  queue<R>(locks: readonly Query[], query: Query): Promise<R[]> {
    if (this.inner.queue) return this.counted(() => inQueue<R>(this.inner, locks, query));
    return this.transaction(async (session) => {
      for (const lock of locks) await session.query(lock);
      return session.query<R>(query);
    });
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export interface ContentionBench {
  round(scenario: Scenario, writers: number): Promise<RoundFigures>;
  close(): Promise<void>;
}

const CLIENT: ClientInfo = { name: 'contention', version: '1' };

const principal = (userId: string): Principal => ({ userId, region: 'eu-central-1', agent: 'contender', keyId: randomUUID() });

/**
 * Opens the service over `connections` pooled connections to `url`, already migrated; or over
 * `unchecked`, a client to the same database that skipped the store's start-up checks (to show
 * what the rounds notice when a guarantee is broken).
 */
export async function openContentionBench(url: string, connections = 10, unchecked?: SqlClient): Promise<ContentionBench> {
  // Fifty calls share ten connections: waiting for one, or for a retry's turn, takes long on a busy machine.
  const raw =
    unchecked ??
    (await PgSqlClient.connect({
      url,
      maxConnections: connections,
      statementTimeoutMs: 30_000,
      connectionTimeoutMs: PATIENT_CONNECT_MS,
    }));
  const sql = new RetryCountingClient(raw);
  const config = loadConfig({
    NAABA_LOG_LEVEL: 'SILENT',
    NAABA_DATABASE_URL: url,
    NAABA_CURATION: JSON.stringify({ kinds: { note: { ceiling: NOTE_CEILING }, fact: { ceiling: 1000 } } }),
  });
  const container = new Container(config, { sql, retry: PATIENT_RETRY });
  const memory: CurationService = (await container.memory()).curation;

  const count = async (query: Query) => (await raw.query<{ n: number }>(query))[0]?.n ?? -1;

  async function burst(calls: readonly (() => Promise<{ evicted: number; outcome: string }>)[], statements: number[]) {
    const settled = await Promise.allSettled(
      calls.map((c, i) => {
        const call = { n: 0 };
        return perCall.run(call, c).finally(() => {
          statements[i] = call.n;
        });
      }),
    );
    const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    const busy = errors.filter((e) => e instanceof StoreBusyError).length;
    return { ok, busy, failed: errors.length - busy, firstFailure: errors.find((e) => !(e instanceof StoreBusyError)) };
  }

  async function round(scenario: Scenario, writers: number): Promise<RoundFigures> {
    const before = sql.tally.retries;
    const violations: string[] = [];
    const users = Array.from({ length: scenario === 'many-users' ? writers : 1 }, () => randomUUID());
    const [first = ''] = users;
    const tag = randomUUID().slice(0, 8);
    const calls = Array.from({ length: writers }, (_, i) => {
      const user = scenario === 'many-users' ? (users[i] ?? first) : first;
      const content =
        scenario === 'restatements'
          ? `The release train ${tag} leaves on Thursdays.`
          : `Concurrent note number ${i} about topic ${i * 7} in round ${tag}`;
      const kind = scenario === 'restatements' ? 'fact' : 'note';
      return () => memory.remember(principal(user), CLIENT, { content, kind });
    });
    const statements: number[] = [];
    const { ok, busy, failed, firstFailure } = await burst(calls, statements);
    if (firstFailure) violations.push(`a call failed with something other than the busy error: ${String(firstFailure)}`);

    if (scenario === 'many-users') {
      const p = params({ users });
      const kept = await count(sqlText`SELECT count(*)::int4 AS n FROM memories WHERE user_id = ANY(${p.users}::uuid[])`);
      if (kept !== ok.length) violations.push(`${ok.length} users stored one memory each, but ${kept} are kept`);
    } else {
      const p = params({ first });
      const kept = await count(sqlText`SELECT count(*)::int4 AS n FROM memories WHERE user_id = ${p.first}::uuid`);
      const lines = await count(sqlText`SELECT count(*)::int4 AS n FROM journal WHERE user_id = ${p.first}::uuid`);
      if (scenario === 'restatements') {
        const restatements = await count(
          sqlText`SELECT coalesce(max(restatements), 0)::int4 AS n FROM memories WHERE user_id = ${p.first}::uuid`,
        );
        const merged = ok.filter((r) => r.outcome === 'merged').length;
        if (ok.length > 0 && kept !== 1) violations.push(`${ok.length} restatements left ${kept} memories, not one`);
        if (restatements !== merged + 1)
          violations.push(`one memory and ${merged} merges counted as ${restatements} restatements`);
        if (lines !== merged) violations.push(`${merged} merges left ${lines} journal lines`);
      } else {
        const expected = Math.min(NOTE_CEILING, ok.length);
        if (kept > NOTE_CEILING) violations.push(`${kept} memories kept for a ceiling of ${NOTE_CEILING}`);
        else if (kept !== expected) violations.push(`${ok.length} stored but ${kept} kept (expected ${expected})`);
        const evicted = ok.reduce((n, r) => n + r.evicted, 0);
        if (lines !== evicted) violations.push(`${evicted} evictions left ${lines} journal lines`);
      }
    }
    return {
      scenario,
      calls: writers,
      succeeded: ok.length,
      busy,
      failed,
      retries: sql.tally.retries - before,
      violations,
      statements,
    };
  }

  return {
    round,
    close: async () => {
      await container.close();
      await raw.close();
    },
  };
}

/** One line per scenario: rounds, calls, successes, busy, retries, violations. */
export function summarise(figures: readonly RoundFigures[]): string[] {
  const scenarios = [...new Set(figures.map((f) => f.scenario))];
  return scenarios.map((scenario) => {
    const rounds = figures.filter((f) => f.scenario === scenario);
    const sum = (pick: (f: RoundFigures) => number) => rounds.reduce((n, f) => n + pick(f), 0);
    const calls = sum((f) => f.calls);
    const succeeded = sum((f) => f.succeeded);
    const rate = calls === 0 ? 0 : (100 * succeeded) / calls;
    const trips = rounds.flatMap((f) => f.statements).sort((a, b) => a - b);
    const over = trips.filter((n) => n > CONTENDED_REMEMBER_BUDGET).length;
    return `${scenario}: ${rounds.length} rounds × ${rounds[0]?.calls ?? 0} writers · ${succeeded}/${calls} succeeded (${rate.toFixed(1)} %) · busy ${sum((f) => f.busy)} · other failures ${sum((f) => f.failed)} · serialization retries ${sum((f) => f.retries)} · violations ${sum((f) => f.violations.length)} · statements per remember: median ${trips[Math.floor(trips.length / 2)] ?? 0}, max ${trips.at(-1) ?? 0}, above ${CONTENDED_REMEMBER_BUDGET}: ${over}`;
  });
}
