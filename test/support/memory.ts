import { randomUUID } from 'node:crypto';
import { inMemoryStores } from '../../lambda/adapters/in-memory/memory-stores.js';
import type { MemoryState } from '../../lambda/adapters/in-memory/state.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import type { CurationService } from '../../lambda/memory/curation/curation-service.js';
import { Sweeper } from '../../lambda/memory/maintenance/sweeper.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { ClientInfo, CurationRules, Principal } from '../../lambda/memory/model.js';
import type { PageService } from '../../lambda/memory/page/page-service.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { type MemoryServices, memoryServices } from '../../lambda/memory/services.js';
import type { Embedder } from '../../lambda/ports/embedder.js';
import type { Judge } from '../../lambda/ports/judge.js';
import type { MemoryStores } from '../../lambda/ports/memory-stores.js';
import { ManualClock } from './clock.js';
import { ScriptedJudge } from './judges.js';

export const CLIENT: ClientInfo = { name: 'tests', version: '1' };

export function principal(region = 'local'): Principal {
  return { userId: randomUUID(), region, agent: 'test-agent', keyId: randomUUID() };
}

/** What a test reads of the stores directly: contents, journal lines, how many memories. */
export interface StoreReads {
  /** Every stored memory's content (expired ones too, until removed), sorted. */
  contents(): Promise<string[]>;
  /** Every journal line, oldest first. */
  journal(): Promise<{ rule: string; kind: string; ageSeconds: number; recallCount: number; at: Date }[]>;
  count(): Promise<number>;
}

export interface ServiceHarness {
  readonly inspect: StoreReads;
  readonly memory: MemoryServices;
  /** The tools' service: remember, recall, forget, curation_state. */
  readonly service: CurationService;
  readonly page: PageService;
  readonly sweeper: Sweeper;
  readonly clock: ManualClock;
  readonly stores: MemoryStores;
}

/**
 * The memory's services with a controllable clock and a judge the test chooses, over the
 * in-memory reference store (`'memory'`: no database, for the policy's unit tests) or a SQL client
 * (real PGlite or PostgreSQL, where the test is about what SQL does).
 */
export function serviceOver(
  over: SqlClient | 'memory',
  options: { judge?: Judge; rules?: Partial<CurationRules>; newId?: () => string; embedder?: Embedder } = {},
): ServiceHarness {
  const clock = new ManualClock();
  const memoryStores = over === 'memory' ? inMemoryStores() : undefined;
  const stores = memoryStores ?? sqlMemoryStores(over as SqlClient);
  const rules = { ...DEFAULT_RULES, ...options.rules };
  const memory = memoryServices({
    stores,
    embedder: options.embedder ?? new LocalEmbedder(256),
    judge: options.judge ?? new ScriptedJudge(() => 'different'),
    clock,
    rules,
    ...(options.newId && { newId: options.newId }),
  });
  return {
    inspect: memoryStores ? stateReads(memoryStores.state) : sqlReads(over as SqlClient),
    memory,
    service: memory.curation,
    page: memory.page,
    sweeper: new Sweeper(stores.maintenance, rules, clock, new LexicalAnalyzer()),
    clock,
    stores,
  };
}

function stateReads(state: MemoryState): StoreReads {
  return {
    contents: async () => [...state.memories.values()].map((m) => m.content).sort(),
    journal: async () =>
      [...state.journal]
        .sort((a, b) => a.at.getTime() - b.at.getTime())
        .map(({ rule, kind, ageSeconds, recallCount, at }) => ({ rule, kind, ageSeconds, recallCount, at })),
    count: async () => state.memories.size,
  };
}

function sqlReads(db: SqlClient): StoreReads {
  return {
    contents: async () =>
      (await db.query<{ content: string }>(sql`SELECT content FROM memories ORDER BY content`)).map((r) => r.content),
    journal: async () =>
      (
        await db.query<{ rule: string; kind: string; age_s: string; recall_count: number; at: Date }>(
          sql`SELECT rule, kind, age_s, recall_count, at FROM journal ORDER BY at`,
        )
      ).map((r) => ({
        rule: r.rule,
        kind: r.kind,
        ageSeconds: Number(r.age_s),
        recallCount: r.recall_count,
        at: new Date(r.at),
      })),
    count: async () => (await db.query<{ n: number }>(sql`SELECT count(*)::int4 AS n FROM memories`))[0]?.n ?? -1,
  };
}
