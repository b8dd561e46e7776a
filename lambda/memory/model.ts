/** Value types of the memory domain. Nothing here knows about SQL, MCP, HTTP or AWS. */

/** Who is calling: resolved from the bearer token by the authorizer, never from tool input. */
export interface Principal {
  readonly userId: string;
  readonly region: string;
  /** The key's name: which agent acts for the user. */
  readonly agent: string;
  readonly keyId: string;
}

/** Self-declared MCP client name and version. Provenance, never identity. */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/** Where a memory came from: the acting key, the client software and the caller's own origin text. */
export interface Source {
  readonly agent: string;
  readonly client: string;
  readonly origin: string | null;
  readonly at: Date;
}

export type Verdict = 'same' | 'different' | 'contradicts';
/** What the judge said, or `unavailable` when it timed out, failed or answered out of form. */
export type JudgeOutcome = Verdict | 'unavailable';

export interface KindRule {
  readonly ceiling: number;
  /** Seconds after last usefulness at which a memory of this kind expires; null never. */
  readonly ttlSeconds: number | null;
  /** False turns duplicate merging off for the kind (append-only, e.g. for raw event logs); default true. */
  readonly dedup?: boolean;
  /** Seconds a superseded memory is kept after it was replaced, then deleted; default SUPERSEDED_GRACE_SECONDS. */
  readonly supersededGraceSeconds?: number;
}

/** The curation rules in force: the readable policy of what is kept and what is dropped. */
export interface CurationRules {
  readonly kinds: Readonly<Record<string, KindRule>>;
  readonly pinLimit: number;
  readonly journalRetentionSeconds: number;
}

export interface Memory {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly pinned: boolean;
  readonly createdAt: Date;
  readonly lastUsefulAt: Date;
  readonly recallCount: number;
  readonly restatements: number;
  readonly source: Source;
  /** The latest sources that restated this memory, newest first (bounded). */
  readonly restatedBy: readonly Source[];
  /** Ids of memories the judge said contradict this one (either way of a supersession). */
  readonly conflicts: readonly string[];
  /** The memory that replaced this one (policy/supersession.ts), while it exists; null when current. */
  readonly supersededBy: string | null;
  /** When it was replaced (with `supersededBy`); null when current. */
  readonly supersededAt: Date | null;
  /** The memories this one replaced, sorted: what an update retired. */
  readonly supersedes: readonly string[];
}

export interface RecalledMemory extends Memory {
  /** Cosine distance between the query's and the memory's embeddings (0 is identical). */
  readonly distance: number;
  /** The fused rank score that orders recall, higher first (see lambda/memory/policy/ranking.ts). */
  readonly score: number;
}

export type JournalRule = 'ceiling' | 'expiry' | 'duplicate' | 'superseded';

/** One automatic loss, explained without anything that could be joined back to content. */
export interface JournalLine {
  readonly at: Date;
  readonly kind: string;
  readonly rule: JournalRule;
  readonly ageSeconds: number;
  readonly recallCount: number;
}

/** The (region, user) partition every store call is confined to: the caller's, from the token. */
export type Scope = Pick<Principal, 'region' | 'userId'>;
