import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import {
  asCeilingWrite,
  asRead,
  CountingSqlClient,
  inQueue,
  type Query,
  type SqlClient,
} from '../lambda/adapters/pg/sql-client.js';
import type { JudgeOutcome } from '../lambda/memory/model.js';
import { DEFAULT_RULES } from '../lambda/memory/policy/kinds.js';
import { memoryServices } from '../lambda/memory/services.js';
import { ManualClock } from '../test/support/clock.js';
import { ScriptedJudge } from '../test/support/judges.js';
import { CLIENT, principal } from '../test/support/memory.js';

export interface RoundTripRow {
  readonly call: string;
  readonly roundTrips: number;
  readonly budget: number;
  /** What `observe` returned for this call, when given. */
  readonly observed?: Readonly<Record<string, number>>;
}

export interface RoundTripOptions {
  /** The region of the measured user (on CockroachDB, one of the database's). */
  readonly region?: string;
  /** Runs each measured call and says what it saw (bench:engine: CockroachDB's KV requests). */
  readonly observe?: (run: () => Promise<unknown>) => Promise<Readonly<Record<string, number>>>;
}

/**
 * SQL round trips of each tool call path, counted at the driver (every `SqlClient.query` is one
 * round trip). Deterministic: the same on every run and every machine.
 */
export async function measureRoundTrips(sql: SqlClient, options: RoundTripOptions = {}): Promise<RoundTripRow[]> {
  const contention = new ContendedOnce(sql);
  const counted = new CountingSqlClient(contention);
  let verdict: JudgeOutcome = 'different';
  const rules = { ...DEFAULT_RULES, kinds: { ...DEFAULT_RULES.kinds, note: { ceiling: 2, ttlSeconds: null } } };
  const memory = memoryServices({
    stores: sqlMemoryStores(counted),
    embedder: new LocalEmbedder(256),
    judge: new ScriptedJudge(() => verdict),
    clock: new ManualClock(),
    rules,
  });
  const service = memory.curation;
  const me = principal(options.region);
  const rows: RoundTripRow[] = [];
  const measure = async (call: string, budget: number, run: () => Promise<unknown>) => {
    counted.roundTrips = 0;
    let observed: Readonly<Record<string, number>> | undefined;
    if (options.observe) observed = await options.observe(run);
    else await run();
    rows.push({ call, roundTrips: counted.roundTrips, budget, ...(observed ? { observed } : {}) });
  };
  await measure('remember: first memory of its kind', 3, () =>
    service.remember(me, CLIENT, { content: 'Tea at four.', kind: 'fact' }),
  );
  await measure('remember: new, judged different (common path)', 3, () =>
    service.remember(me, CLIENT, { content: 'Lunch at one.', kind: 'fact' }),
  );
  await measure('remember: exact restatement, merged', 3, () =>
    service.remember(me, CLIENT, { content: 'tea at FOUR', kind: 'fact' }),
  );
  verdict = 'same';
  await measure('remember: judged the same, merged', 3, () =>
    service.remember(me, CLIENT, { content: 'Tea is at 4pm.', kind: 'fact' }),
  );
  verdict = 'contradicts';
  await measure('remember: judged a contradiction, linked', 3, () =>
    service.remember(me, CLIENT, { content: 'Tea at five.', kind: 'fact' }),
  );
  verdict = 'different';
  await service.remember(me, CLIENT, { content: 'Note one.', kind: 'note' });
  await service.remember(me, CLIENT, { content: 'Note two.', kind: 'note' });
  await measure('remember: at the ceiling, evicts (eviction path)', 3, () =>
    service.remember(me, CLIENT, { content: 'Note three.', kind: 'note' }),
  );
  contention.armed = true;
  await measure('remember: contended (first attempt fails, then queued)', 3, () =>
    service.remember(me, CLIENT, { content: 'Note four.', kind: 'note' }),
  );
  const [first] = await service.recall(me, { query: 'tea', limit: 1 });
  await measure('recall', 1, () => service.recall(me, { query: 'what time is tea', limit: 10 }));
  await measure('forget: by ids', 1, () => service.forget(me, { ids: [first?.id ?? ''] }));
  await measure('curation_state', 2, () => service.curationState(me, {}));
  await measure('forget: all', 1, () => service.forget(me, { all: true }));
  return rows;
}

/**
 * A client whose next ceiling write, once armed, fails as if another writer of the partition had
 * committed first (40001): the remember then takes the queue (decision 0099).
 */
class ContendedOnce implements SqlClient {
  readonly engine: SqlClient['engine'];
  armed = false;

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  query<R>(query: Query): Promise<R[]> {
    return this.inner.query<R>(query);
  }

  read<R>(query: Query): Promise<R[]> {
    return asRead<R>(this.inner, query);
  }

  ceiling<R>(query: Query): Promise<R[]> {
    if (!this.armed) return asCeilingWrite<R>(this.inner, query);
    this.armed = false;
    return Promise.reject(Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' }));
  }

  queue<R>(locks: readonly Query[], query: Query): Promise<R[]> {
    return inQueue<R>(this.inner, locks, query);
  }

  exec(script: string): Promise<void> {
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
