/**
 * The local server's proof that a key token names no key, without a database read per token
 * (decision 0106, issue 34); the authorizer consults it where the local server holds one. Random `nb_` tokens never repeat, so a cache of refusals cannot
 * help; but a data folder holds few keys, and the server can hold all their hashes. A token whose
 * hash is in the set goes on to the authorizer as before (which still finds a revoked one). One
 * that is not waits for a read of the hashes that begins after it arrived — so a key issued by
 * anyone at any moment before its first call is seen, and is never refused — and every token
 * missing meanwhile shares that read. Reads begin at most one per `gapMs`: a flood of any size
 * costs a few reads a second instead of one per token, and pays for itself in waiting.
 */

export interface KnownKeysLimits {
  /** The least time between the starts of two reads of the hashes. */
  readonly gapMs: number;
  /** Past this many live keys the set is not kept, and every token is read as before. */
  readonly maxKeys: number;
}

/** A quarter of a second: the longest a key's first call waits, and at most four reads a second. */
export const KNOWN_KEYS_LIMITS: KnownKeysLimits = { gapMs: 250, maxKeys: 100_000 };

/** One read of the hashes: whoever arrived before it began shares it. */
interface Read {
  started: boolean;
  readonly done: Promise<ReadonlySet<string> | undefined>;
}

export class KnownKeys {
  private hashes: ReadonlySet<string> | undefined;
  private lastStart = Number.NEGATIVE_INFINITY;
  /** The read that has not begun yet, which a token arriving now may join. */
  private next: Read | undefined;
  /** How many reads of the hashes this process made (for tests and the bench). */
  reads = 0;

  constructor(
    private readonly readHashes: () => Promise<readonly string[]>,
    private readonly limits: KnownKeysLimits = KNOWN_KEYS_LIMITS,
  ) {}

  /** True when the last read found this hash (no wait): a live key, as of that read. */
  has(tokenSha256: string): boolean {
    return this.hashes?.has(tokenSha256) ?? false;
  }

  /**
   * False only when a read begun after this call found no live key of this hash; true when the
   * hash is known, or when there are too many keys to hold (then the authorizer decides).
   */
  async mayExist(tokenSha256: string): Promise<boolean> {
    if (this.hashes?.has(tokenSha256)) return true;
    // A read that fails proves nothing: the authorizer reads, and answers for the database.
    const found = await this.readAfterNow().catch(() => undefined);
    return found === undefined || found.has(tokenSha256);
  }

  private readAfterNow(): Promise<ReadonlySet<string> | undefined> {
    if (this.next && !this.next.started) return this.next.done;
    // Pacing is in real time, whatever clock the server's rules run on.
    const wait = Math.max(0, this.lastStart + this.limits.gapMs - performance.now());
    const read: Read = {
      started: false,
      done: new Promise<void>((resolve) => setTimeout(resolve, wait)).then(async () => {
        read.started = true;
        if (this.next === read) this.next = undefined;
        this.lastStart = performance.now();
        this.reads += 1;
        const all = await this.readHashes();
        this.hashes = all.length > this.limits.maxKeys ? undefined : new Set(all);
        return this.hashes;
      }),
    };
    this.next = read;
    return read.done;
  }
}
