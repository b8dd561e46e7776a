import type { Clock } from '../../ports/clock.js';
import type { CurationStore } from '../../ports/curation-store.js';
import type { Embedder } from '../../ports/embedder.js';
import type { Judge } from '../../ports/judge.js';
import { fingerprint } from '../canonical.js';
import { embedChecked } from '../embedding.js';
import { KindFullError, MemoryError } from '../errors.js';
import type { ExpiredMemories } from '../expired-memories.js';
import type { JudgeHealth } from '../judge-health.js';
import type { LexicalAnalyzer } from '../lexical.js';
import { checkText, LIMITS } from '../limits.js';
import type { ClientInfo, CurationRules, JudgeOutcome, KindRule, Principal, Scope, Source } from '../model.js';
import { expiredBefore, recallCandidates } from '../policy/expiry.js';
import { kindRule } from '../policy/kinds.js';
import { type PinChange, pinChangeOf } from '../policy/pins.js';
import { exactRestatement, judged, type MergeDecision, notAsked } from '../policy/merge.js';
import { JUDGED_CANDIDATES, judgedCandidates } from '../policy/supersession.js';

/** What a remember asks: the content, its kind, whether to pin it, where it came from. */
export interface RememberInput {
  readonly content: string;
  readonly kind: string;
  readonly pinned?: boolean;
  readonly origin?: string;
}

export interface RememberResult {
  readonly id: string;
  readonly kind: string;
  readonly outcome: 'stored' | 'merged' | 'superseded';
  /** On `merged`: the existing memory that absorbed this restatement. */
  readonly mergedInto?: string;
  /**
   * On `superseded`: the memory the judge said this one contradicts, which this one now replaces. On
   * `merged` into a superseded memory (said again): the memory that had replaced it, which it now replaces.
   */
  readonly supersedes?: string;
  /** Memories evicted to keep the kind under its ceiling. */
  readonly evicted: number;
  /** Whether the memory written or restated is pinned now. */
  readonly pinned: boolean;
  /**
   * Set when `pinned: true` was asked at the pin limit: the memory was written unpinned instead of
   * refused (decision 0144), and this is the limit the user's pins are at.
   */
  readonly pinLimitReached?: number;
  /** How the duplicate check decided: exact restatement, the judge's answer, or no neighbour to ask about. */
  readonly judge: MergeDecision['verdict'];
}

export interface RememberDeps {
  readonly store: CurationStore;
  readonly expired: ExpiredMemories;
  readonly embedder: Embedder;
  readonly judge: Judge;
  readonly judgeHealth: JudgeHealth;
  readonly clock: Clock;
  readonly rules: CurationRules;
  readonly analyzer: LexicalAnalyzer;
  readonly newId: () => string;
  /** Whether a memory of the scope is pinned: what a restatement that leaves the pin as it is reports. */
  readonly pinnedNow: (scope: Scope, id: string) => Promise<boolean>;
}

/** How often a remember decides again after its target vanished between the read and the write. */
const REMEMBER_ATTEMPTS = 3;

/** A remember call, checked and embedded, ready to be written. */
interface Draft {
  readonly scope: Scope;
  readonly input: RememberInput;
  readonly rule: KindRule;
  readonly embedding: number[];
  readonly terms: ReadonlyMap<string, number>;
  /** The passages each term occurs in (LexicalAnalyzer.passages). */
  readonly passages: ReadonlyMap<string, number>;
  readonly source: Source;
  readonly fingerprint: string;
}

/** The duplicate check's decision, and whether an expired exact restatement must leave first. */
type Decision = MergeDecision & { readonly expiredTwin: boolean };

const clientLabel = (c: ClientInfo) => `${c.name}/${c.version}`;

/**
 * `remember`: check and embed once, then decide by the merge rule (policy/merge.ts) and write —
 * a merge into the memory it restates, or an insert that keeps the ceiling (policy/eviction.ts).
 * A target that vanished between the read and the write (forgotten, evicted, expired) makes it
 * decide again, a bounded number of times.
 */
export class Remember {
  constructor(private readonly deps: RememberDeps) {}

  async run(principal: Principal, client: ClientInfo, input: RememberInput): Promise<RememberResult> {
    const draft = await this.draft(principal, client, input);
    for (let attempt = 1; attempt <= REMEMBER_ATTEMPTS; attempt += 1) {
      const decision: Decision = draft.rule.dedup === false ? { ...notAsked, expiredTwin: false } : await this.decide(draft);
      // An exact restatement of an expired memory is new: the expired one leaves first, as expiry.
      if (decision.expiredTwin) await this.deps.expired.clear(draft.scope, input.kind);
      const result = decision.target
        ? await this.mergeInto(draft, decision.target, decision.verdict)
        : await this.insert(draft, decision);
      if (result) return result;
    }
    throw new MemoryError('the memory to merge into kept disappearing under concurrent changes; nothing was written', {
      retryable: true,
    });
  }

  /** Checks the input and prepares everything a write needs; embeds once, before any database call. */
  private async draft(principal: Principal, client: ClientInfo, input: RememberInput): Promise<Draft> {
    checkText('content', input.content, { bytes: LIMITS.contentBytes });
    const rule = kindRule(this.deps.rules, input.kind);
    const origin = input.origin?.trim() ? input.origin.trim() : null;
    if (origin !== null) checkText('origin', origin, { chars: LIMITS.originChars });
    const embedding = await embedChecked(this.deps.embedder, input.content);
    const source: Source = { agent: principal.agent, client: clientLabel(client), origin, at: this.deps.clock.now() };
    const terms = this.deps.analyzer.frequencies(input.content);
    const scope = { region: principal.region, userId: principal.userId };
    const passages = this.deps.analyzer.passages(input.content);
    return { scope, input, rule, embedding, terms, passages, source, fingerprint: fingerprint(input.content) };
  }

  /**
   * The merge rule over the current memories nearest in meaning and in words (policy/supersession.ts)
   * and any exact restatement: the judge is asked about each candidate in turn, until it answers `same` (merge) or
   * `contradicts` (supersede that one, and only that one); an unavailable judge ends the asking and
   * the memory is stored as it is (policy/supersession.ts).
   */
  private async decide(draft: Draft): Promise<Decision> {
    const near = await this.deps.store.neighbours({
      scope: draft.scope,
      kind: draft.input.kind,
      embedding: draft.embedding,
      fingerprint: draft.fingerprint,
      expiredBefore: expiredBefore(draft.rule, this.deps.clock.now()),
      // Superseded memories (at most the ceiling's worth) must not hide the current ones either.
      candidates: recallCandidates(this.deps.rules, [draft.input.kind], JUDGED_CANDIDATES) + draft.rule.ceiling,
      judged: JUDGED_CANDIDATES,
      terms: [...draft.terms.keys()],
    });
    if (near.exact?.live) return { ...exactRestatement(near.exact.id), expiredTwin: false };
    const expiredTwin = near.exact !== undefined;
    const candidates = judgedCandidates(near.candidates, near.byWords, this.deps.embedder.unrelatedBeyond);
    let decision: MergeDecision = notAsked;
    for (const candidate of candidates) {
      decision = judged(await this.ask(candidate.content, draft.input.content), candidate.id);
      if (decision.verdict !== 'different') break;
    }
    return { ...decision, expiredTwin };
  }

  /** Resolves undefined when the target vanished since it was read, so the caller decides again. */
  private async mergeInto(
    draft: Draft,
    target: string,
    verdict: Decision['verdict'],
    pin: PinChange = pinChangeOf(draft.input.pinned),
  ): Promise<RememberResult | undefined> {
    const now = this.deps.clock.now();
    const merged = await this.deps.store.merge(
      {
        scope: draft.scope,
        targetId: target,
        kind: draft.input.kind,
        pin,
        source: draft.source,
        pinLimit: this.deps.rules.pinLimit,
        sourcesKept: LIMITS.sourcesKept,
        expiredBefore: expiredBefore(draft.rule, now),
      },
      now,
    );
    // Refused only a pin, which the restated memory lacks: the restatement is merged, its pin left as it is (unpinned).
    if (merged.status === 'pin_limit') {
      const kept = await this.mergeInto(draft, target, verdict, 'keep');
      return kept && { ...kept, pinLimitReached: this.deps.rules.pinLimit };
    }
    if (merged.status === 'gone') return undefined;
    const pinned = pin === 'keep' ? await this.deps.pinnedNow(draft.scope, merged.id) : pin === 'pin';
    return {
      id: merged.id,
      kind: draft.input.kind,
      outcome: 'merged',
      mergedInto: merged.id,
      ...(merged.supersedes ? { supersedes: merged.supersedes } : {}),
      evicted: 0,
      judge: verdict,
      pinned,
    };
  }

  /** Resolves undefined when an expired exact restatement stood in the way, so the caller decides again (and clears it). */
  private async insert(
    draft: Draft,
    decision: MergeDecision,
    pinned = draft.input.pinned ?? false,
  ): Promise<RememberResult | undefined> {
    const id = this.deps.newId();
    const now = this.deps.clock.now();
    const inserted = await this.deps.store.insert(
      {
        scope: draft.scope,
        id,
        kind: draft.input.kind,
        content: draft.input.content,
        // Without dedup every memory is its own: a fingerprint no other row can share.
        fingerprint: draft.rule.dedup === false ? `${draft.fingerprint}#${id}` : draft.fingerprint,
        embedding: draft.embedding,
        terms: [...draft.terms.keys()],
        frequencies: [...draft.terms.values()],
        passages: [...draft.terms.keys()].map((t) => draft.passages.get(t) ?? 1),
        pinned,
        source: draft.source,
        conflictsWith: decision.supersedes,
        ceiling: draft.rule.ceiling,
        pinLimit: this.deps.rules.pinLimit,
        sourcesKept: LIMITS.sourcesKept,
        expiredBefore: expiredBefore(draft.rule, now),
      },
      now,
    );
    const kind = draft.input.kind;
    switch (inserted.status) {
      // At the pin limit the memory is still kept, unpinned, and the answer says so (decision 0144).
      case 'pin_limit': {
        const unpinned = await this.insert(draft, decision, false);
        return unpinned && { ...unpinned, pinLimitReached: this.deps.rules.pinLimit };
      }
      case 'kind_full':
        throw new KindFullError(kind, draft.rule.ceiling);
      case 'merged':
        return {
          id: inserted.id,
          kind,
          outcome: 'merged',
          mergedInto: inserted.id,
          evicted: 0,
          judge: 'exact',
          pinned: await this.deps.pinnedNow(draft.scope, inserted.id),
        };
      case 'expired_twin':
        return undefined;
      case 'inserted': {
        const outcome = decision.supersedes ? 'superseded' : 'stored';
        return { id, kind, outcome, supersedes: decision.supersedes, evicted: inserted.evicted, judge: decision.verdict, pinned };
      }
    }
  }

  /** Asks the judge; a throw counts as unavailable, so the memory is stored and nothing merged. */
  private async ask(existing: string, incoming: string): Promise<JudgeOutcome> {
    let outcome: JudgeOutcome;
    try {
      outcome = await this.deps.judge.compare(existing, incoming);
    } catch {
      outcome = 'unavailable';
    }
    this.deps.judgeHealth.record(outcome, this.deps.clock.now());
    return outcome;
  }
}
