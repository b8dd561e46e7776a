import { createHash } from 'node:crypto';

/**
 * Where API Gateway counts a key's requests (decision 0070): the stack's usage plan throttles each
 * of its `count` API keys on its own, and the authorizer names one of them per naaba key, chosen
 * from the key id alone, so every request of a key lands in the same bucket and a key's flood
 * exhausts only its own.
 */
export interface UsageBuckets {
  /** A bucket's API key value is this prefix followed by its number in three digits. */
  readonly prefix: string;
  readonly count: number;
}

/** Thrown at load when the stack's settings are unreadable: better every call fails loudly than none is throttled. */
export class UsageBucketsError extends Error {
  override name = 'UsageBucketsError';
}

/**
 * The buckets the stack made, from NAABA_USAGE_KEY_PREFIX and NAABA_USAGE_KEY_COUNT; undefined
 * where there are none (the local server, tests), and then no usage identifier is named.
 */
export function usageBuckets(env: Readonly<Record<string, string | undefined>>): UsageBuckets | undefined {
  const prefix = env.NAABA_USAGE_KEY_PREFIX;
  const count = env.NAABA_USAGE_KEY_COUNT;
  if (prefix === undefined && count === undefined) return undefined;
  const n = Number(count);
  if (!prefix || !Number.isInteger(n) || n < 1 || n > 999) {
    throw new UsageBucketsError('NAABA_USAGE_KEY_PREFIX and NAABA_USAGE_KEY_COUNT (1 to 999) must be set together');
  }
  return { prefix, count: n };
}

/** The usage identifier of a key: its bucket's API key value. Derived from the key id, never from the token. */
export function usageIdentifier(keyId: string, buckets: UsageBuckets): string {
  const bucket = createHash('sha256').update(keyId).digest().readUInt32BE(0) % buckets.count;
  return `${buckets.prefix}${String(bucket).padStart(3, '0')}`;
}
