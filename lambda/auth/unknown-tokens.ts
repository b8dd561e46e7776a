import type { Clock } from '../ports/clock.js';

/** How long and how many refusals one container remembers (decision 0052). */
export interface UnknownTokenLimits {
  readonly ttlMs: number;
  readonly maxEntries: number;
}

/**
 * 10 s: far inside the documented 60 s revocation delay (decision 0021), yet long enough that a
 * token replayed many times a second costs one database read per ten seconds per container.
 */
export const UNKNOWN_TOKEN_LIMITS: UnknownTokenLimits = { ttlMs: 10_000, maxEntries: 10_000 };

/**
 * Token hashes this container recently found to name no usable key (none stored, or revoked), so a
 * token replayed in a flood is refused without a database read each time. Only refusals are kept,
 * never a key; an entry lives for the TTL from the read that found it, and a hit does not extend
 * it. Bounded: past `maxEntries` the least recently used entry goes, so distinct random tokens
 * cannot push out the one being replayed.
 */
export class UnknownTokenCache {
  /** Hash → expiry (epoch ms), in least- to most-recently-used order. */
  private readonly entries = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: UnknownTokenLimits = UNKNOWN_TOKEN_LIMITS,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** True while a refusal of this hash is remembered. */
  has(tokenSha256: string): boolean {
    const expires = this.entries.get(tokenSha256);
    if (expires === undefined) return false;
    this.entries.delete(tokenSha256);
    if (this.clock.now().getTime() >= expires) return false;
    this.entries.set(tokenSha256, expires);
    return true;
  }

  /** Remembers that the database, read just now, holds no usable key for this hash. */
  add(tokenSha256: string): void {
    if (this.limits.maxEntries < 1 || this.limits.ttlMs <= 0) return;
    this.entries.delete(tokenSha256);
    while (this.entries.size >= this.limits.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    this.entries.set(tokenSha256, this.clock.now().getTime() + this.limits.ttlMs);
  }
}
