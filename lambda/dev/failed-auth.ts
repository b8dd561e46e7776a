import type { Clock } from '../ports/clock.js';

/**
 * Failed authentications per client address, on the local server (decision 0063). Each refused
 * bearer token costs a database read, and random tokens never repeat, so a cache of refusals
 * cannot help: what bounds the flood is the address. Each address has a budget of failures that
 * refills over time (a token bucket); once it is spent, requests from that address with a token
 * it has not used successfully lately are answered 429 without asking the authorizer. A token that
 * worked from that address lately is always checked, so a client that shares an address with a
 * flood (everything local comes from 127.0.0.1) keeps working. In AWS the TOKEN authorizer never
 * sees the address; a WAF rate-based rule does this there.
 */

export interface FailedAuthLimits {
  /** Failures an address may have at once before it must wait. */
  readonly burst: number;
  /** Failures an address earns back per second. */
  readonly perSecond: number;
}

/** 20 at once, then one a second: far beyond a person mistyping a key, far below a flood. */
export const FAILED_AUTH_LIMITS: FailedAuthLimits = { burst: 20, perSecond: 1 };

/** Addresses and tokens remembered, least recently seen dropped first. */
const MAX_ADDRESSES = 10_000;
const MAX_GOOD_TOKENS = 32;
const GOOD_TOKEN_MS = 15 * 60_000;

interface AddressState {
  credit: number;
  at: number;
  /** Token hash → when it last worked from this address. */
  readonly good: Map<string, number>;
}

export class FailedAuthLimit {
  private readonly addresses = new Map<string, AddressState>();

  constructor(
    private readonly clock: Clock,
    private readonly limits: FailedAuthLimits = FAILED_AUTH_LIMITS,
  ) {}

  /** Seconds to wait when `address` must not try `tokenSha256` now; undefined when it may. */
  refusal(address: string, tokenSha256: string): number | undefined {
    const state = this.addresses.get(address);
    if (!state) return undefined;
    const now = this.refill(state);
    const worked = state.good.get(tokenSha256);
    if (worked !== undefined && now - worked < GOOD_TOKEN_MS) return undefined;
    if (state.credit >= 1) return undefined;
    return Math.max(1, Math.ceil((1 - state.credit) / this.limits.perSecond));
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
      state = { credit: this.limits.burst, at: this.clock.now().getTime(), good: new Map() };
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
