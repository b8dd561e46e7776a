import { cosineDistance } from '../../lambda/adapters/in-memory/state.js';
import { fingerprint } from '../../lambda/memory/canonical.js';
import type { CurationRules, JournalRule, KindRule } from '../../lambda/memory/model.js';
import { SUPERSEDED_GRACE_SECONDS } from '../../lambda/memory/policy/supersession.js';

/**
 * The curation rules of DESIGN §4 as a plain in-memory model, written from the rules and not from
 * the SQL: ceilings with least-recently-useful eviction, pins and the pin limit, expiry, exact
 * restatement merges, forget by id, kind or all, recall marking memories useful, and the journal
 * line each automatic loss writes. Time is whole milliseconds on a clock the test moves.
 */

export interface ModelMemory {
  readonly id: string;
  readonly kind: string;
  readonly fingerprint: string;
  pinned: boolean;
  readonly createdAt: number;
  lastUsefulAt: number;
  recallCount: number;
  restatements: number;
  /** The memory that replaced it; it counts only while that memory is held. */
  supersededBy: string | null;
  supersededAt: number | null;
  readonly vector: Float32Array;
}

export interface ModelLine {
  readonly at: number;
  readonly kind: string;
  readonly rule: JournalRule;
  readonly ageSeconds: number;
  readonly recallCount: number;
}

/** What a remember must come to, before the real system's id is known. */
/**
 * `pinned`: whether the memory is pinned after the write; `pinLimitReached`: a pin was asked at the
 * pin limit, so the memory was written unpinned instead (decision 0144).
 */
type PinAfter = { readonly pinned: boolean; readonly pinLimitReached?: true };

export type ModelOutcome =
  | ({ readonly outcome: 'stored'; readonly evicted: number } & PinAfter)
  | ({ readonly outcome: 'superseded'; readonly supersedes: string; readonly evicted: number } & PinAfter)
  /** `supersedes`: the restated memory had been replaced; said again, it replaces its replacement. */
  | ({ readonly outcome: 'merged'; readonly into: string; readonly supersedes?: string } & PinAfter)
  | { readonly outcome: 'kind_full' };

/** One user's memories (live ones and expired ones not yet removed) and journal. */
class UserState {
  readonly rows = new Map<string, ModelMemory>();
  journal: ModelLine[] = [];
}

const seconds = (ms: number) => Math.round(ms / 1000);

export class CurationModel {
  private readonly users = new Map<string, UserState>();

  /**
   * `vectors` gives each text's stored vector (for the nearest memory a judge is asked about) and
   * `contradicts` says whether the test's judge calls two texts contradicting; without it (a judge
   * that never does), no nearest memory is looked for and texts need no vectors.
   */
  constructor(
    readonly rules: CurationRules,
    public now: number,
    private readonly vectors: ReadonlyMap<string, Float32Array> = new Map(),
    private readonly contradicts?: (existing: string, incoming: string) => boolean,
  ) {}

  private user(name: string): UserState {
    let state = this.users.get(name);
    if (!state) {
      state = new UserState();
      this.users.set(name, state);
    }
    return state;
  }

  private rule(kind: string): KindRule {
    const rule = this.rules.kinds[kind];
    if (!rule) throw new Error(`the model has no kind ${kind}`);
    return rule;
  }

  /** When a memory expires (its last usefulness plus the kind's TTL), or null when it never does. */
  private expiresAt(m: ModelMemory): number | null {
    const ttl = this.rule(m.kind).ttlSeconds;
    return m.pinned || ttl === null ? null : m.lastUsefulAt + ttl * 1000;
  }

  /** Live through the instant of expiry, gone after it. */
  isLive(m: ModelMemory): boolean {
    const at = this.expiresAt(m);
    return at === null || this.now <= at;
  }

  /** The user's live memories, of some kinds or all. */
  live(name: string, kinds?: readonly string[]): ModelMemory[] {
    return [...this.user(name).rows.values()].filter((m) => this.isLive(m) && (!kinds || kinds.includes(m.kind)));
  }

  /** Superseded: it names its replacement and the replacement is still held (live or not). */
  isSuperseded(name: string, m: ModelMemory): boolean {
    return m.supersededBy !== null && this.user(name).rows.has(m.supersededBy);
  }

  /** The user's live memories that no held memory superseded. */
  current(name: string, kinds?: readonly string[]): ModelMemory[] {
    return this.live(name, kinds).filter((m) => !this.isSuperseded(name, m));
  }

  /** Live unpinned memories of a kind in the order the ceiling takes them: superseded first, then least recently useful, then id. */
  evictionOrder(name: string, kind: string): ModelMemory[] {
    const s = (m: ModelMemory) => (this.isSuperseded(name, m) ? 0 : 1);
    return this.live(name, [kind])
      .filter((m) => !m.pinned)
      .sort((a, b) => s(a) - s(b) || a.lastUsefulAt - b.lastUsefulAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private vectorOf(text: string): Float32Array {
    const v = this.vectors.get(text);
    if (!v) throw new Error(`the model has no vector for ${JSON.stringify(text)}`);
    return v;
  }

  /** The nearest current memory of the kind (the one the judge is asked about first), by distance then id. */
  private nearestCurrent(name: string, kind: string, content: string): ModelMemory | undefined {
    const v = this.vectorOf(content);
    return this.current(name, [kind])
      .map((m) => ({ m, d: cosineDistance(v, m.vector) }))
      .sort((a, b) => a.d - b.d || (a.m.id < b.m.id ? -1 : a.m.id > b.m.id ? 1 : 0))[0]?.m;
  }

  /** The exact-restatement key of a text: equal for spellings that differ in case, accents, spacing, punctuation. */
  fingerprintOf(text: string): string {
    return fingerprint(text);
  }

  journal(name: string): readonly ModelLine[] {
    return this.user(name).journal;
  }

  memory(name: string, id: string): ModelMemory | undefined {
    return this.user(name).rows.get(id);
  }

  private pinnedCount(name: string): number {
    return [...this.user(name).rows.values()].filter((m) => m.pinned).length;
  }

  private line(name: string, m: ModelMemory, rule: JournalRule, at: number): void {
    this.user(name).journal.push({ at, kind: m.kind, rule, ageSeconds: seconds(at - m.createdAt), recallCount: m.recallCount });
  }

  /** Removes one memory by a rule, writing its journal line (at the expiry instant for `expiry`). */
  private remove(name: string, m: ModelMemory, rule: JournalRule): void {
    this.user(name).rows.delete(m.id);
    this.line(name, m, rule, rule === 'expiry' ? (this.expiresAt(m) ?? this.now) : this.now);
  }

  /** Removes the expired memories of one user and kind, or of every user and kind with a TTL. */
  private expire(name: string | undefined, kind: string | undefined): void {
    for (const [user, state] of this.users) {
      if (name !== undefined && user !== name) continue;
      for (const m of [...state.rows.values()]) {
        if ((kind === undefined || m.kind === kind) && !this.isLive(m)) this.remove(user, m, 'expiry');
      }
    }
  }

  /** What `remember` must answer; `apply` then makes it so, with the id the real system chose. */
  remember(name: string, kind: string, content: string, pinned: boolean | undefined): ModelOutcome {
    const rule = this.rule(kind);
    const print = fingerprint(content);
    const twin =
      rule.dedup === false
        ? undefined
        : [...this.user(name).rows.values()].find((m) => m.kind === kind && m.fingerprint === print);
    if (twin && this.isLive(twin)) {
      // A pin past the limit is left out; the restatement is merged all the same.
      const refused = pinned === true && !twin.pinned && this.pinnedCount(name) >= this.rules.pinLimit;
      const pin: PinAfter = refused ? { pinned: false, pinLimitReached: true } : { pinned: pinned ?? twin.pinned };
      // Saying a replaced memory again makes it current: it replaces the memory that had replaced it.
      const replacer = this.isSuperseded(name, twin) ? twin.supersededBy : null;
      return replacer
        ? { outcome: 'merged', into: twin.id, supersedes: replacer, ...pin }
        : { outcome: 'merged', into: twin.id, ...pin };
    }
    // An expired exact restatement leaves first, with the rest of its partition's expired memories.
    if (twin) this.expire(name, kind);
    // A pin past the limit is left out; the memory is stored unpinned.
    const refused = pinned === true && this.pinnedCount(name) >= this.rules.pinLimit;
    const pin: PinAfter = refused ? { pinned: false, pinLimitReached: true } : { pinned: pinned ?? false };
    const excess = Math.max(0, this.live(name, [kind]).length + 1 - rule.ceiling);
    const nearest = rule.dedup === false || !this.contradicts ? undefined : this.nearestCurrent(name, kind, content);
    const replaced = nearest && this.contradicts?.(this.texts.get(nearest.id) ?? '', content) ? nearest : undefined;
    // The memory a new one supersedes is spared by that write's ceiling.
    if (this.evictionOrder(name, kind).filter((m) => m !== replaced).length < excess) return { outcome: 'kind_full' };
    return replaced
      ? { outcome: 'superseded', supersedes: replaced.id, evicted: excess, ...pin }
      : { outcome: 'stored', evicted: excess, ...pin };
  }

  /** Each memory's text, for the judge. */
  private readonly texts = new Map<string, string>();

  /** Applies an outcome `remember` predicted (its pin included); `id` is the new memory's when stored. */
  applyRemember(name: string, kind: string, content: string, outcome: ModelOutcome, id: string): void {
    if (outcome.outcome === 'merged') {
      const target = this.user(name).rows.get(outcome.into);
      if (!target) throw new Error('the model lost the merge target');
      target.restatements += 1;
      target.lastUsefulAt = Math.max(target.lastUsefulAt, this.now);
      // `pinned: false` unpins the memory it restates; without `pinned` the pin stays as it was.
      target.pinned = outcome.pinned;
      this.line(name, target, 'duplicate', this.now);
      const replacer = outcome.supersedes === undefined ? undefined : this.user(name).rows.get(outcome.supersedes);
      target.supersededBy = null;
      target.supersededAt = null;
      if (replacer) {
        replacer.supersededBy = target.id;
        replacer.supersededAt = this.now;
      }
      return;
    }
    if (outcome.outcome !== 'stored' && outcome.outcome !== 'superseded') return;
    const rule = this.rule(kind);
    const spared = outcome.outcome === 'superseded' ? outcome.supersedes : undefined;
    const victims = this.evictionOrder(name, kind).filter((m) => m.id !== spared);
    for (const victim of victims.slice(0, outcome.evicted)) this.remove(name, victim, 'ceiling');
    this.expire(name, kind);
    this.user(name).rows.set(id, {
      id,
      kind,
      fingerprint: rule.dedup === false ? `${fingerprint(content)}#${id}` : fingerprint(content),
      pinned: outcome.pinned,
      createdAt: this.now,
      lastUsefulAt: this.now,
      recallCount: 0,
      restatements: 1,
      supersededBy: null,
      supersededAt: null,
      vector: this.vectors.get(content) ?? new Float32Array(),
    });
    this.texts.set(id, content);
    const old = spared === undefined ? undefined : this.user(name).rows.get(spared);
    if (old) {
      old.supersededBy = id;
      old.supersededAt = this.now;
    }
  }

  /**
   * Pin or unpin one live memory without making it useful (a pin is not a recall); within the pin
   * limit. An unpinned memory expires by its last usefulness, at once if that was long ago.
   */
  setPinned(name: string, id: string, pinned: boolean): 'changed' | 'unchanged' | 'pin_limit' | 'gone' {
    const m = this.user(name).rows.get(id);
    if (!m || !this.isLive(m)) return 'gone';
    if (m.pinned === pinned) return 'unchanged';
    if (pinned && this.pinnedCount(name) >= this.rules.pinLimit) return 'pin_limit';
    m.pinned = pinned;
    return 'changed';
  }

  /** Recall made these memories useful. */
  recalled(name: string, ids: readonly string[]): void {
    for (const id of ids) {
      const m = this.user(name).rows.get(id);
      if (!m) throw new Error(`recall returned ${id}, which the model does not hold`);
      m.recallCount += 1;
      m.lastUsefulAt = Math.max(m.lastUsefulAt, this.now);
    }
  }

  /** Forget by id: the live ones among `ids` go, with no journal line; returns them. */
  forgetIds(name: string, ids: readonly string[]): string[] {
    const gone = this.live(name).filter((m) => ids.includes(m.id));
    for (const m of gone) this.user(name).rows.delete(m.id);
    return gone.map((m) => m.id);
  }

  /** Forget all (of a kind): every memory and journal line of it goes; the count is of the live ones. */
  forgetAll(name: string, kind: string | undefined): { count: number; journalLinesRemoved: number } {
    const state = this.user(name);
    const count = this.live(name, kind === undefined ? undefined : [kind]).length;
    for (const m of [...state.rows.values()]) if (kind === undefined || m.kind === kind) state.rows.delete(m.id);
    const kept = state.journal.filter((l) => kind !== undefined && l.kind !== kind);
    const journalLinesRemoved = state.journal.length - kept.length;
    state.journal = kept;
    return { count, journalLinesRemoved };
  }

  /**
   * The sweeper: every expired memory goes (journaled); every superseded one past its kind's grace
   * period goes (journaled as superseded) unless pinned, when it only leaves the walk; then journal
   * lines past retention.
   */
  sweep(): void {
    this.expire(undefined, undefined);
    for (const [user, state] of this.users) {
      // Whether each is superseded is read as the sweep finds them, before any leaves: a memory and
      // the one that replaced it, both past their grace (a chain, or one said again), go together.
      const due = [...state.rows.values()]
        .filter((m) => {
          const grace = (this.rule(m.kind).supersededGraceSeconds ?? SUPERSEDED_GRACE_SECONDS) * 1000;
          return m.supersededAt !== null && m.supersededAt < this.now - grace;
        })
        .map((m) => ({ m, superseded: this.isSuperseded(user, m) }));
      for (const { m, superseded } of due) {
        if (!superseded) {
          m.supersededBy = null;
          m.supersededAt = null;
        } else if (m.pinned) m.supersededAt = null;
        else this.remove(user, m, 'superseded');
      }
    }
    const cutoff = this.now - this.rules.journalRetentionSeconds * 1000;
    for (const state of this.users.values()) state.journal = state.journal.filter((l) => l.at >= cutoff);
  }
}
