import type { Clock } from '../ports/clock.js';

/**
 * Failed authentications per client address, on the local server (decision 0063, issue 34). Each
 * refused bearer token costs a database read, and random tokens never
 * repeat, so a cache of refusals cannot help. Each address has a budget of failures that refills
 * over time (a token bucket). Once it is spent, a token that address has not used successfully
 * lately is still checked — a key nobody has used yet must get in, and locally every process shares
 * 127.0.0.1 — but through the address's gate: one check at a time, in arrival order, so the flood
 * pays for its failures in its own queue and at most one of its reads is in the database at once.
 * Only when more than `waiting` checks queue at the gate is the next one answered 429 (retry in
 * 1 s). A token that worked from that address lately skips the gate. In AWS the TOKEN authorizer
 * never sees the address; the WAF's rate-based rule bounds each IP there (decision 0094).
 */

export interface FailedAuthLimits {
  /** Failures an address may have at once before its checks go through its gate. */
  readonly burst: number;
  /** Failures an address earns back per second. */
  readonly perSecond: number;
  /** Checks that may wait at an address's gate; one more is refused for a second. */
  readonly waiting: number;
}

/** 20 at once, then one a second: far beyond a person mistyping a key, far below a flood. */
export const FAILED_AUTH_LIMITS: FailedAuthLimits = { burst: 20, perSecond: 1, waiting: 64 };

/** How a token of an address is checked now. */
export type Admission = 'check' | 'gate';

/** Addresses and tokens remembered, least recently seen dropped first. */
const MAX_ADDRESSES = 10_000;
const MAX_GOOD_TOKENS = 32;
const GOOD_TOKEN_MS = 15 * 60_000;

interface AddressState {
  credit: number;
  at: number;
  /** The end of the gate's queue, and how many checks wait in it. */
  gate: Promise<unknown>;
  queued: number;
  /** Token hash → when it last worked from this address. */
  readonly good: Map<string, number>;
}

export class FailedAuthLimit {
  private readonly addresses = new Map<string, AddressState>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: FailedAuthLimits = FAILED_AUTH_LIMITS,
  ) {}

  /** Whether `tokenSha256` from `address` is checked at once, or through the address's gate. */
  admission(address: string, tokenSha256: string): Admission {
    const state = this.addresses.get(address);
    if (!state) return 'check';
    const now = this.refill(state);
    const worked = state.good.get(tokenSha256);
    if (worked !== undefined && now - worked < GOOD_TOKEN_MS) return 'check';
    return state.credit >= 1 ? 'check' : 'gate';
  }

  /**
   * Runs `check` once the checks queued before it at `address`'s gate are done; `'full'` without
   * running it when more than the allowed number already wait.
   */
  async throughGate<T>(address: string, check: () => Promise<T>): Promise<T | 'full'> {
    const state = this.state(address);
    if (state.queued >= this.limits.waiting) return 'full';
    state.queued += 1;
    const turn = state.gate.then(check);
    state.gate = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      state.queued -= 1;
    }
  }

  /** A token of `address` was refused: one failure spent; that token no longer counts as good. */
  failed(address: string, tokenSha256: string | undefined): void {
    const state = this.state(address);
    this.refill(state);
    state.credit -= 1;
    if (tokenSha256 !== undefined) state.good.delete(tokenSha256);
  }

  /** A token of `address` was allowed: it keeps being checked even while the address waits. */
  allowed(address: string, tokenSha256: string): void {
    const state = this.state(address);
    state.good.delete(tokenSha256);
    state.good.set(tokenSha256, this.clock.now().getTime());
    if (state.good.size > MAX_GOOD_TOKENS) state.good.delete(state.good.keys().next().value ?? '');
  }

  private state(address: string): AddressState {
    let state = this.addresses.get(address);
    if (state) {
      this.addresses.delete(address);
    } else {
      state = { credit: this.limits.burst, at: this.clock.now().getTime(), good: new Map(), gate: Promise.resolve(), queued: 0 };
      if (this.addresses.size >= MAX_ADDRESSES) this.addresses.delete(this.addresses.keys().next().value ?? '');
    }
    this.addresses.set(address, state);
    return state;
  }

  /** Adds the credit earned since the state was last looked at; returns now (epoch ms). */
  private refill(state: AddressState): number {
    const now = this.clock.now().getTime();
    state.credit = Math.min(this.limits.burst, state.credit + ((now - state.at) / 1_000) * this.limits.perSecond);
    state.at = now;
    return now;
  }
}
