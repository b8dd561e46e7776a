import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { SqlMemoryStore } from '../../lambda/adapters/pg/memory-store.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { ClientInfo, CurationRules, Principal } from '../../lambda/memory/model.js';
import { DEFAULT_RULES } from '../../lambda/memory/rules.js';
import { MemoryService } from '../../lambda/memory/service.js';
import { Sweeper } from '../../lambda/memory/sweeper.js';
import type { Judge } from '../../lambda/ports/judge.js';
import { ManualClock } from './clock.js';
import { ScriptedJudge } from './judges.js';

export const CLIENT: ClientInfo = { name: 'tests', version: '1' };

export function principal(region = 'local'): Principal {
  return { userId: randomUUID(), region, agent: 'test-agent', keyId: randomUUID() };
}

export interface ServiceHarness {
  readonly service: MemoryService;
  readonly sweeper: Sweeper;
  readonly clock: ManualClock;
  readonly store: SqlMemoryStore;
}

/** The memory service over real PGlite, with a controllable clock and a judge the test chooses. */
export function serviceOver(
  db: PgliteSqlClient,
  options: { judge?: Judge; rules?: Partial<CurationRules> } = {},
): ServiceHarness {
  const clock = new ManualClock();
  const store = new SqlMemoryStore(db);
  const rules = { ...DEFAULT_RULES, ...options.rules };
  const service = new MemoryService({
    store,
    embedder: new LocalEmbedder(256),
    judge: options.judge ?? new ScriptedJudge(() => 'different'),
    clock,
    rules,
  });
  return { service, sweeper: new Sweeper(store, rules, clock), clock, store };
}
