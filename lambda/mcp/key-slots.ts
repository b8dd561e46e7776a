/**
 * Requests in progress per key in this process (decision 0063). A key may have a few requests in
 * progress at once; more wait for a slot in arrival order, a bounded number and for a bounded
 * time, so a client that sends its calls in parallel is served rather than refused, and a flood
 * holds at most that many requests here. Which key's database work goes next is the fair queue's
 * business; this only bounds what one key keeps in flight. A Lambda container serves one request
 * at a time, so there the bound never binds.
 */

export interface SlotLimits {
  readonly inProgress: number;
  readonly waiting: number;
  readonly waitMs: number;
}

/** Why a request got no slot: the waiting line was full, or the wait ran out. */
export type NoSlot = 'line_full' | 'waited_too_long';

interface KeyState {
  running: number;
  readonly line: ((granted: boolean) => void)[];
}

export class KeySlots {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly limits: SlotLimits) {}

  /** A slot for `key`: resolves its release function, or why there is none. */
  async acquire(key: string): Promise<(() => void) | NoSlot> {
    const state = this.keys.get(key) ?? { running: 0, line: [] };
    this.keys.set(key, state);
    if (state.running < this.limits.inProgress) {
      state.running += 1;
      return () => this.release(key, state);
    }
    if (state.line.length >= this.limits.waiting) return 'line_full';
    const granted = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        const at = state.line.indexOf(grant);
        if (at >= 0) state.line.splice(at, 1);
        resolve(false);
      }, this.limits.waitMs);
      const grant = (ok: boolean) => {
        clearTimeout(timer);
        resolve(ok);
      };
      state.line.push(grant);
    });
    return granted ? () => this.release(key, state) : 'waited_too_long';
  }

  /** Requests of `key` in progress and waiting (for tests and diagnostics). */
  load(key: string): { running: number; waiting: number } {
    const state = this.keys.get(key);
    return { running: state?.running ?? 0, waiting: state?.line.length ?? 0 };
  }

  /** Hands the slot to the first waiting request of the key, or frees it. */
  private release(key: string, state: KeyState): void {
    const next = state.line.shift();
    if (next) {
      next(true);
      return;
    }
    state.running -= 1;
    if (state.running === 0 && this.keys.get(key) === state) this.keys.delete(key);
  }
}
