import { createHash } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { OAuthStore } from '../ports/oauth-store.js';
import { isLoopback } from './loopback-registrations.js';

/**
 * Requests per client address to the OAuth endpoints (decision 0064). Counted in the database,
 * so every container of a region shares one count and the bound holds under concurrency; a
 * refusal is also remembered in this container until its window ends, so a flood from one
 * address costs one statement per container and window, not one per request. Another address
 * has its own count: a flood from one never locks out another.
 */

export const LIMITED_ROUTES = ['register', 'authorize', 'token', 'revoke'] as const;
export type LimitedRoute = (typeof LIMITED_ROUTES)[number];

export interface RateLimit {
  readonly requests: number;
  readonly windowSeconds: number;
}

export type OAuthRateLimits = Readonly<Record<LimitedRoute, RateLimit>>;

/** Per address: registrations 20 an hour; consent pages and answers 100, token requests 50, revocations 50 per 15 minutes. */
export const DEFAULT_OAUTH_RATE_LIMITS: OAuthRateLimits = {
  register: { requests: 20, windowSeconds: 3_600 },
  authorize: { requests: 100, windowSeconds: 900 },
  token: { requests: 50, windowSeconds: 900 },
  revoke: { requests: 50, windowSeconds: 900 },
};

/**
 * What a registration is counted against. On the local server every process is 127.0.0.1, so
 * counting the address alone let twenty registrations from any local process refuse every local
 * sign-up for an hour; there it is the address and the client's name — what identifies the one
 * who registers again and again (issue 34). Elsewhere the address stands for the caller, as
 * before; in AWS the WAF's rate-based rule bounds an IP besides (decision 0094).
 */
export function registrationSubject(address: string, clientName: unknown): string {
  if (!isLoopback(address)) return address;
  // Hashed: a name may hold any character, and the count's key is stored and compared, never shown.
  const name = typeof clientName === 'string' ? clientName : '';
  return `${address} client ${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

/**
 * What a consent page, token or revocation request is counted against. On loopback, a request
 * naming a live registered client counts in that client's own lane (every local process shares
 * the address, and fifty bad token requests from one must not stop every local client's refresh
 * for a quarter of an hour); one naming no live client counts in the address's lane, as before.
 * A process that registers clients to get lanes is bounded by the registrations that may wait
 * (loopback-registrations.ts). Elsewhere the address, as before.
 */
export function clientSubject(address: string, liveClientId: string | undefined): string {
  if (!isLoopback(address) || liveClientId === undefined) return address;
  return `${address} client id ${createHash('sha256').update(liveClientId).digest('hex').slice(0, 16)}`;
}

/** Refusals remembered per container, least recently refused dropped first. */
const MAX_REMEMBERED = 10_000;

/** (route, address) → the instant (epoch ms) its window ends, per store: that is, per container. */
const refusals = new WeakMap<OAuthStore, Map<string, number>>();

function remembered(store: OAuthStore): Map<string, number> {
  let map = refusals.get(store);
  if (!map) {
    map = new Map();
    refusals.set(store, map);
  }
  return map;
}

const secondsUntil = (endMs: number, nowMs: number) => Math.max(1, Math.ceil((endMs - nowMs) / 1_000));

export class AddressLimiter {
  constructor(
    private readonly store: OAuthStore,
    private readonly clock: Clock,
    private readonly limits: OAuthRateLimits,
  ) {}

  /**
   * Counts one request of `address` to `route`. Resolves undefined when it may go on, else the
   * seconds until its window ends: the moment the same address is served again, so the
   * `Retry-After` it becomes is the truth.
   */
  async admit(route: LimitedRoute, address: string): Promise<number | undefined> {
    const now = this.clock.now().getTime();
    const key = `${route} ${address}`;
    const cache = remembered(this.store);
    const until = cache.get(key);
    if (until !== undefined && until > now) return secondsUntil(until, now);
    if (until !== undefined) cache.delete(key);
    const limit = this.limits[route];
    const windowMs = limit.windowSeconds * 1_000;
    const counted = await this.store.countRequest(route, address, new Date(now), new Date(now - windowMs));
    if (counted.hits <= limit.requests) return undefined;
    const end = counted.windowStart.getTime() + windowMs;
    if (cache.size >= MAX_REMEMBERED) cache.delete(cache.keys().next().value ?? '');
    cache.set(key, end);
    return secondsUntil(end, now);
  }
}
