/**
 * The sources of failures (a refused token's hash, a key id, a client address) a container has seen
 * in the last window, kept in memory only and never written anywhere: alarms count sources, not
 * events, so one stale client retrying every few seconds counts once per window, while a flood of
 * made-up tokens or many addresses counts in full (issue 48, decision 0133). Bounded: past
 * `maxEntries` the oldest source is forgotten (and would count again).
 */
export class DistinctSources {
  /** Source → when it was first seen in its window (epoch ms), oldest first. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly windowMs = 5 * 60_000,
    private readonly maxEntries = 10_000,
  ) {}

  /** True when `source` was not seen in the window before `now`; it is then remembered from `now`. */
  first(source: string, now: number): boolean {
    const at = this.seen.get(source);
    if (at !== undefined && now - at < this.windowMs) return false;
    this.seen.delete(source);
    while (this.seen.size >= this.maxEntries) {
      const oldest = this.seen.keys().next().value;
      if (oldest === undefined) break;
      this.seen.delete(oldest);
    }
    this.seen.set(source, now);
    return true;
  }
}
