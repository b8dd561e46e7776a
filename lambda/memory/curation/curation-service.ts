import type { Clock } from '../../ports/clock.js';
import type { CurationStore, JournalPage } from '../../ports/curation-store.js';
import type { Embedder } from '../../ports/embedder.js';
import { InvalidInputError } from '../errors.js';
import type { JudgeHealth, JudgeStatus } from '../judge-health.js';
import { LIMITS } from '../limits.js';
import type { ClientInfo, CurationRules, Principal, RecalledMemory, Scope } from '../model.js';
import { expiryCutoffs } from '../policy/expiry.js';
import { kindRule, kindsOf } from '../policy/kinds.js';
import type { RecallInput, RecallPlanner } from '../recall-query.js';
import type { Remember, RememberInput, RememberResult } from './remember.js';

export type ForgetInput = { readonly ids: readonly string[] } | { readonly all: true; readonly kind?: string };

export interface ForgetResult {
  readonly deleted: readonly string[];
  readonly count: number;
  readonly journalLinesRemoved: number;
}

export interface CurationState {
  readonly rules: CurationRules;
  /** Where the rules in force came from: a configuration file, `NAABA_CURATION` or `defaults`. */
  readonly rulesSource: string;
  readonly judge: JudgeStatus;
  readonly embedder: string;
  readonly counts: { readonly perKind: Record<string, number>; readonly pinned: number };
  readonly journal: JournalPage;
}

export interface CurationServiceDeps {
  readonly store: CurationStore;
  readonly remember: Remember;
  readonly planner: RecallPlanner;
  readonly embedder: Embedder;
  readonly judgeHealth: JudgeHealth;
  readonly clock: Clock;
  readonly rules: CurationRules;
  readonly rulesSource: string;
}

const scopeOf = (p: Principal): Scope => ({ region: p.region, userId: p.userId });

/** The four MCP tools: remember, recall, forget and curation_state, under the curation rules of policy/. */
export class CurationService {
  constructor(private readonly deps: CurationServiceDeps) {}

  get rules(): CurationRules {
    return this.deps.rules;
  }

  remember(principal: Principal, client: ClientInfo, input: RememberInput): Promise<RememberResult> {
    return this.deps.remember.run(principal, client, input);
  }

  /** The best live memories first; recalling them makes them useful. */
  async recall(principal: Principal, input: RecallInput): Promise<RecalledMemory[]> {
    const ranked = await this.deps.store.recall(await this.deps.planner.plan(scopeOf(principal), input, this.deps.clock.now()));
    return this.deps.planner.answer(input, ranked);
  }

  async forget(principal: Principal, input: ForgetInput): Promise<ForgetResult> {
    const scope = scopeOf(principal);
    const expiry = expiryCutoffs(this.deps.rules, kindsOf(this.deps.rules), this.deps.clock.now());
    if ('all' in input) {
      if (input.kind !== undefined) kindRule(this.deps.rules, input.kind);
      const gone = await this.deps.store.forgetAll(scope, input.kind, expiry);
      return { deleted: [], count: gone.memories, journalLinesRemoved: gone.journalLines };
    }
    if (input.ids.length === 0) throw new InvalidInputError('ids must name at least one memory, or give all: true');
    if (input.ids.length > LIMITS.forgetIdsMax) {
      throw new InvalidInputError(`at most ${LIMITS.forgetIdsMax} ids per call; got ${input.ids.length}`);
    }
    const deleted = await this.deps.store.forgetIds(scope, [...new Set(input.ids)], expiry);
    return { deleted, count: deleted.length, journalLinesRemoved: 0 };
  }

  async curationState(principal: Principal, page: { cursor?: string; pageSize?: number }): Promise<CurationState> {
    const scope = scopeOf(principal);
    const pageSize = page.pageSize ?? LIMITS.journalPageDefault;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIMITS.journalPageMax) {
      throw new InvalidInputError(`page_size must be an integer from 1 to ${LIMITS.journalPageMax}`);
    }
    const kinds = kindsOf(this.deps.rules);
    const counts = await this.deps.store.counts(scope, expiryCutoffs(this.deps.rules, kinds, this.deps.clock.now()));
    const journal = await this.deps.store.journal(scope, pageSize, page.cursor);
    return {
      rules: this.deps.rules,
      rulesSource: this.deps.rulesSource,
      judge: this.deps.judgeHealth.snapshot(),
      embedder: this.deps.embedder.name,
      counts: { perKind: Object.fromEntries(kinds.map((k) => [k, counts.perKind[k] ?? 0])), pinned: counts.pinned },
      journal,
    };
  }
}
