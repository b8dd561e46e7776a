import { randomUUID } from 'node:crypto';
import { inMemoryStores } from '../../lambda/adapters/in-memory/memory-stores.js';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import type { CurationService } from '../../lambda/memory/curation/curation-service.js';
import { Sweeper } from '../../lambda/memory/maintenance/sweeper.js';
import type { ClientInfo, CurationRules, Principal } from '../../lambda/memory/model.js';
import type { PageService } from '../../lambda/memory/page/page-service.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { type MemoryServices, memoryServices } from '../../lambda/memory/services.js';
import type { Judge } from '../../lambda/ports/judge.js';
import type { MemoryStores } from '../../lambda/ports/memory-stores.js';
import { ManualClock } from './clock.js';
import { ScriptedJudge } from './judges.js';

export const CLIENT: ClientInfo = { name: 'tests', version: '1' };

export function principal(region = 'local'): Principal {
  return { userId: randomUUID(), region, agent: 'test-agent', keyId: randomUUID() };
}

export interface ServiceHarness {
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
  options: { judge?: Judge; rules?: Partial<CurationRules> } = {},
): ServiceHarness {
  const clock = new ManualClock();
  const stores = over === 'memory' ? inMemoryStores() : sqlMemoryStores(over);
  const rules = { ...DEFAULT_RULES, ...options.rules };
  const memory = memoryServices({
    stores,
    embedder: new LocalEmbedder(256),
    judge: options.judge ?? new ScriptedJudge(() => 'different'),
    clock,
    rules,
  });
  return {
    memory,
    service: memory.curation,
    page: memory.page,
    sweeper: new Sweeper(stores.maintenance, rules, clock),
    clock,
    stores,
  };
}
