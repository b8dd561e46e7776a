import { randomUUID } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { Embedder } from '../ports/embedder.js';
import type { Judge } from '../ports/judge.js';
import type { MemoryStores } from '../ports/memory-stores.js';
import { CurationService } from './curation/curation-service.js';
import { Remember } from './curation/remember.js';
import { embedChecked } from './embedding.js';
import { ExpiredMemories } from './expired-memories.js';
import { JudgeHealth } from './judge-health.js';
import { LexicalAnalyzer } from './lexical.js';
import type { CurationRules, Scope } from './model.js';
import { PageService } from './page/page-service.js';
import type { Fusion, LexicalScoring, RecallRanking } from './policy/ranking.js';
import { RecallPlanner } from './recall-query.js';
import { Importer } from './transfer/importer.js';
import { TransferService } from './transfer/transfer-service.js';

export interface MemoryDeps {
  readonly stores: Omit<MemoryStores, 'maintenance'>;
  readonly embedder: Embedder;
  readonly judge: Judge;
  readonly clock: Clock;
  readonly rules: CurationRules;
  /** Where the rules came from (a configuration file, `NAABA_CURATION`, `defaults`): curation_state says it. */
  readonly rulesSource?: string;
  /** An import's rest after each step, as a multiple of the step's time (importer.ts): 3 on the embedded database. */
  readonly importRestPerStep?: number;
  /** Makes the lexical arm's terms, of memories and of queries alike; language-neutral by default. */
  readonly analyzer?: LexicalAnalyzer;
  /** Which recall arms run; hybrid unless configured otherwise (NAABA_RECALL_RANKING). */
  readonly ranking?: RecallRanking;
  /** How recall scores, when not the tuned defaults of policy/ranking.ts: for the tuning harness (`npm run tune:recall`). */
  readonly scoring?: { readonly fusion: Fusion; readonly lexical: LexicalScoring };
  readonly newId?: () => string;
}

/**
 * The memory's use cases, one service each, over the same rules, providers and judge health: the
 * MCP tools (`curation`), the memory page (`page`), export and import (`transfer`). The sweeper
 * (maintenance/sweeper.ts) is built apart: it runs on a schedule, not per request.
 */
export interface MemoryServices {
  readonly curation: CurationService;
  readonly page: PageService;
  readonly transfer: TransferService;
  /** How the judge has answered: curation_state and the page report it; the handler counts it. */
  readonly judgeHealth: JudgeHealth;
  readonly analyzer: LexicalAnalyzer;
  readonly rules: CurationRules;
}

/** Builds the services of one container from its stores and providers. */
export function memoryServices(deps: MemoryDeps): MemoryServices {
  const { stores, embedder, judge, clock, rules } = deps;
  const analyzer = deps.analyzer ?? new LexicalAnalyzer();
  const newId = deps.newId ?? randomUUID;
  const judgeHealth = new JudgeHealth(judge.name);
  const expired = new ExpiredMemories(stores.curation, rules, clock);
  const planner = new RecallPlanner({ embedder, rules, analyzer, ranking: deps.ranking, scoring: deps.scoring });
  // A restatement that leaves the pin as it is reads it back: the merge statement does not return it.
  // No expiry cutoffs: the memory was made useful by that very write.
  const pinnedNow = async (scope: Scope, id: string) => (await stores.page.memory(scope, id, []))?.pinned ?? false;
  const remember = new Remember({
    store: stores.curation,
    expired,
    embedder,
    judge,
    judgeHealth,
    clock,
    rules,
    analyzer,
    newId,
    pinnedNow,
  });
  const importer = new Importer({
    store: stores.transfer,
    expired,
    rules,
    clock,
    analyzer,
    embed: (text) => embedChecked(embedder, text),
    newId,
    restPerStep: deps.importRestPerStep ?? 0,
  });
  return {
    curation: new CurationService({
      store: stores.curation,
      remember,
      planner,
      embedder,
      judgeHealth,
      clock,
      rules,
      rulesSource: deps.rulesSource ?? 'defaults',
    }),
    page: new PageService({ page: stores.page, curation: stores.curation, planner, embedder, judgeHealth, clock, rules }),
    transfer: new TransferService({ page: stores.page, curation: stores.curation, importer, clock, rules }),
    judgeHealth,
    analyzer,
    rules,
  };
}
