import { randomUUID } from 'node:crypto';
import type { JournalRule, Scope, Source } from '../../memory/model.js';

/** One memory as the reference store holds it: what a `memories` row holds. */
export interface StoredMemory {
  readonly id: string;
  readonly region: string;
  readonly userId: string;
  readonly kind: string;
  readonly content: string;
  readonly fingerprint: string;
  /** The vector as a `vector` column stores it: each value rounded as sent, then to single precision. */
  readonly embedding: Float32Array;
  /** The lexical arm's postings: each term and how often it occurs. */
  readonly terms: ReadonlyMap<string, number>;
  /** The passages each term occurs in, as masks (LexicalAnalyzer.passages); a term without one: the first passage. */
  readonly passages: ReadonlyMap<string, number>;
  /** The number of terms (the sum of the frequencies). */
  readonly length: number;
  pinned: boolean;
  /** In the expiry index: the kind has a TTL and the memory is not pinned. */
  expires: boolean;
  readonly createdAt: Date;
  lastUsefulAt: Date;
  recallCount: number;
  restatements: number;
  readonly origin: string | null;
  /** Its place in its (user, origin, kind): 1, 2, …; null without an origin. */
  readonly originSeq: number | null;
  readonly agent: string;
  readonly client: string;
  restatedBy: Source[];
  /** The memory that replaced this one; cleared when that memory leaves, as the SQL reads it only while it exists. */
  supersededBy?: string | null;
  /** When it was replaced; kept with `supersededBy`. */
  supersededAt?: Date | null;
}

/** One journal line: an automatic deletion or merge, without content. */
export interface StoredLine {
  readonly id: string;
  readonly region: string;
  readonly userId: string;
  readonly at: Date;
  readonly kind: string;
  readonly rule: JournalRule;
  readonly ageSeconds: number;
  readonly recallCount: number;
}

/**
 * Everything the in-memory reference store holds: memories, journal lines, conflict links and the
 * expiry index's record, keyed as the tables are. One state is shared by the four ports, as one
 * database is; every port method completes before another starts (JavaScript runs one at a time),
 * so each is atomic, as each statement is.
 */
export class MemoryState {
  readonly memories = new Map<string, StoredMemory>();
  readonly journal: StoredLine[] = [];
  /** Conflict links, `memory id → linked ids`, each direction kept. */
  readonly links = new Map<string, Set<string>>();
  /** Per region, the kinds whose memories are all in the expiry index. */
  readonly expiringKinds = new Map<string, string[]>();

  /** The memories of one (region, user), optionally of some kinds only. */
  partition(scope: Scope, kinds?: readonly string[]): StoredMemory[] {
    return [...this.memories.values()].filter(
      (m) => m.region === scope.region && m.userId === scope.userId && (!kinds || kinds.includes(m.kind)),
    );
  }

  /** One memory of the caller by id, or undefined for anyone else's. */
  own(scope: Scope, id: string): StoredMemory | undefined {
    const m = this.memories.get(id.toLowerCase());
    return m && m.region === scope.region && m.userId === scope.userId ? m : undefined;
  }

  /** How many memories the caller has pinned, of every kind. */
  pinnedCount(scope: Scope): number {
    return this.partition(scope).filter((m) => m.pinned).length;
  }

  /** The last place taken in a (user, origin, kind); 0 when the origin is new there. */
  lastPlace(scope: Scope, origin: string, kind: string): number {
    return this.partition(scope, [kind]).reduce((top, m) => (m.origin === origin ? Math.max(top, m.originSeq ?? 0) : top), 0);
  }

  /** Ids linked to a memory by a conflict, sorted. */
  linksOf(id: string): string[] {
    return [...(this.links.get(id) ?? [])].sort();
  }

  link(a: string, b: string): boolean {
    const set = this.links.get(a) ?? new Set<string>();
    if (set.has(b)) return false;
    set.add(b);
    this.links.set(a, set);
    return true;
  }

  /**
   * Removes memories and, as the foreign keys cascade, their links; a memory one of them had
   * superseded is current again (the statements find its replacement gone).
   */
  remove(ids: Iterable<string>): void {
    const gone = new Set(ids);
    for (const id of gone) {
      this.memories.delete(id);
      for (const other of this.links.get(id) ?? []) this.links.get(other)?.delete(id);
      this.links.delete(id);
    }
    for (const m of this.memories.values()) {
      if (m.supersededBy && gone.has(m.supersededBy)) {
        m.supersededBy = null;
        m.supersededAt = null;
      }
    }
  }

  /** The ids of the memories `id` superseded, sorted. */
  supersededBy(id: string): string[] {
    return [...this.memories.values()]
      .filter((m) => m.supersededBy === id)
      .map((m) => m.id)
      .sort();
  }

  addLine(line: Omit<StoredLine, 'id'>): void {
    this.journal.push({ id: randomUUID(), ...line });
  }

  clear(): void {
    this.memories.clear();
    this.journal.length = 0;
    this.links.clear();
    this.expiringKinds.clear();
  }
}

/** Whole seconds between two instants, rounded as the database casts an interval's epoch to INT8. */
export const secondsBetween = (from: Date, to: Date): number => Math.round((to.getTime() - from.getTime()) / 1000);

/** A vector as a `vector` column holds it: seven significant digits as sent (`toVectorLiteral`), in single precision. */
export const storedVector = (values: readonly number[]): Float32Array =>
  Float32Array.from(values, (v) => Number(v.toPrecision(7)));

/** Cosine distance, as pgvector's `<=>` computes it: single-precision sums, then the quotient in double. */
export function cosineDistance(a: Float32Array, b: Float32Array): number {
  const f = Math.fround;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot = f(dot + f(x * y));
    na = f(na + f(x * x));
    nb = f(nb + f(y * y));
  }
  const similarity = dot / Math.sqrt(na * nb);
  return 1 - Math.max(-1, Math.min(1, similarity));
}

/** Sorts ids as the database sorts UUIDs. */
export const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
