import { count, logger } from '../observability.js';
import { DistinctSources } from './distinct-sources.js';

/**
 * Security events (decision 0065): each is counted twice, `security_event` and
 * `security_<name>` (namespace `naaba`, next to decision 0051's metric names), and the first of each
 * kind from a source in 5 minutes also as `security_source`, which the alarm reads (decision 0133),
 * and written as a WARN line `security event`. The line carries identifiers and
 * reasons chosen by the code — never a secret, a token, a hash of one, or text the caller wrote.
 */

export const SECURITY_EVENTS = [
  'code_replay',
  'refresh_reuse',
  'consent_refused',
  'revocation',
  'rate_limited',
  'auth_failed',
] as const;

export type SecurityEventName = (typeof SECURITY_EVENTS)[number];

/** What a security event line may say. */
export interface SecurityEventFields {
  /** Why, in a word or two chosen by the code (`unknown_key`, `csrf`, `over_limit`…). */
  readonly reason: string;
  /** The client address the request came from (IPv4, or an IPv6 /64), where known. */
  readonly address?: string | undefined;
  readonly route?: string | undefined;
  readonly clientId?: string | undefined;
  readonly keyId?: string | undefined;
  readonly retryAfterSeconds?: number | undefined;
  /** Grants that ended with the event (a revoked key's grants, a replaced grant). */
  readonly grantsEnded?: number | undefined;
}

/** Floods of these would flood the log: every one is counted, at most one line a second is written. */
const SAMPLED: ReadonlySet<SecurityEventName> = new Set(['auth_failed', 'rate_limited']);
const SAMPLE_MS = 1_000;

/** One line per event name per second; the next line says how many were left out before it. */
export class LineSampler {
  private readonly last = new Map<string, { at: number; skipped: number }>();

  constructor(private readonly everyMs = SAMPLE_MS) {}

  /** Undefined when this line is left out; else how many were left out since the last one written. */
  take(name: string, now: number): number | undefined {
    const seen = this.last.get(name);
    if (seen && now - seen.at < this.everyMs) {
      seen.skipped += 1;
      return undefined;
    }
    this.last.set(name, { at: now, skipped: 0 });
    return seen?.skipped ?? 0;
  }
}

const sampler = new LineSampler();
const sources = new DistinctSources();

/**
 * Records a security event: both counts always, `security_source` when it is the first of its kind
 * from its source in the window, the WARN line unless sampling leaves it out. `now` is when it
 * happened (a caller with a container passes its clock's); `source` says who caused it where the
 * fields do not (a refused token's hash, kept in memory only). Returns whether the source was new.
 */
export function securityEvent(
  name: SecurityEventName,
  fields: SecurityEventFields,
  now: Date = new Date(),
  source?: string,
): boolean {
  count('security_event');
  count(`security_${name}`);
  const who = source ?? fields.keyId ?? fields.address ?? fields.clientId;
  // An event that names no source cannot be told from another: each counts.
  const fresh = who === undefined || sources.first(`${name}\u0000${who}`, now.getTime());
  if (fresh) count('security_source');
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  if (!SAMPLED.has(name)) {
    logger.warn('security event', { event: name, ...defined });
    return fresh;
  }
  const skipped = sampler.take(name, now.getTime());
  if (skipped !== undefined) {
    logger.warn('security event', { event: name, ...defined, ...(skipped > 0 ? { notLogged: skipped } : {}) });
  }
  return fresh;
}
