import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { certificateBundle } from './database-tls.js';
import { ConfigError } from './errors.js';

/** What the database secret holds: the URL, and the CA of a cluster that is not publicly trusted. */
export interface DatabaseSecret {
  readonly url: string;
  readonly ca?: string | undefined;
}

/**
 * Reads the database connection from Secrets Manager. The secret holds either the URL itself or
 * JSON `{"url": …, "ca": "-----BEGIN CERTIFICATE-----…"}` (`ca` optional); the CA travels with
 * the URL so that no second secret or grant is needed. Neither value is ever logged.
 */
export async function readDatabaseSecret(
  secretId: string,
  client?: SecretsManagerClient,
  signal?: AbortSignal,
): Promise<DatabaseSecret> {
  // Loaded on first use: importing the SDK client is the largest part of a cold start.
  const sdk = await import('@aws-sdk/client-secrets-manager');
  const result = await (client ?? new sdk.SecretsManagerClient({})).send(
    new sdk.GetSecretValueCommand({ SecretId: secretId }),
    signal ? { abortSignal: signal } : {},
  );
  const text = result.SecretString?.trim();
  if (!text) throw new ConfigError(`secret ${secretId} has no string value`);
  if (!text.startsWith('{')) return { url: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`secret ${secretId} looks like JSON but does not parse`, { cause: error });
  }
  const { url, ca } = parsed as { url?: unknown; ca?: unknown };
  if (typeof url !== 'string' || url === '') throw new ConfigError(`secret ${secretId} has no "url" field`);
  if (ca === undefined || ca === null) return { url };
  if (typeof ca !== 'string') throw new ConfigError(`secret ${secretId}: "ca" must be a string of PEM certificates`);
  try {
    return { url, ca: certificateBundle(ca, `secret ${secretId}'s "ca" field`) };
  } catch (error) {
    throw new ConfigError((error as Error).message, { cause: error });
  }
}

/**
 * How long a secret read is used before it is read again, how soon a refused login may force another
 * read, how long one read may take, and how long a value kept after a failed refresh is served before
 * the next attempt.
 */
export interface SecretCachePolicy {
  readonly maxAgeMs: number;
  readonly minForcedIntervalMs: number;
  /** Well below the shortest function deadline (the authorizer's 10 s): a hung read ends as a failure. */
  readonly readTimeoutMs: number;
  readonly retryAfterFailureMs: number;
}

/** Powertools Parameters' default max age is 5 s; a connection string changes by rotation only, so minutes are enough. */
export const DEFAULT_SECRET_CACHE: SecretCachePolicy = {
  maxAgeMs: 5 * 60_000,
  minForcedIntervalMs: 5_000,
  readTimeoutMs: 3_000,
  retryAfterFailureMs: 5_000,
};

/** A read of the secret that took longer than its policy allows (issue 48): it failed, and nothing waits on it. */
export class SecretReadTimeoutError extends Error {
  override name = 'SecretReadTimeoutError';
}

/** `read`, given an abort signal, failed after `ms` whether or not the call honours the signal. */
async function withDeadline<T>(ms: number, read: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new SecretReadTimeoutError(`the secret was not read within ${ms} ms`));
    }, ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([read(abort.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The database secret of a container, read the way Powertools Parameters reads one (decision
 * 0092): kept for a max age, then read again (a failed read keeps the value in use); read at once
 * when forced — because the database refused the login it holds — but no more than once per
 * `minForcedIntervalMs`, so a secret that is itself wrong costs one read per interval, not one per
 * request. Concurrent reads share one call, and every call to Secrets Manager ends within `readTimeoutMs` (issue 48): a
 * hung or failed read clears the shared one, so the first request after Secrets Manager answers again
 * reads it afresh; a value past its max age whose refresh failed is served for `retryAfterFailureMs`
 * before the next attempt, so a brownout costs a warm container one bounded wait per interval.
 */
export class CachedDatabaseSecret {
  private value: DatabaseSecret | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private forcedAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<DatabaseSecret> | undefined;
  private sdk: Promise<SecretsManagerClient> | undefined;

  constructor(
    private readonly secretId: string,
    private readonly client: () => Promise<SecretsManagerClient>,
    private readonly policy: SecretCachePolicy = DEFAULT_SECRET_CACHE,
    private readonly now: () => number = Date.now,
  ) {}

  /** The secret: the cached value while fresh, else (or when `force`d, at most once per interval) read again. */
  async get(force = false): Promise<DatabaseSecret> {
    const now = this.now();
    const forced = force && now - this.forcedAt >= this.policy.minForcedIntervalMs;
    if (this.value && !forced) {
      if (now - this.readAt < this.policy.maxAgeMs) return this.value;
      if (now - this.failedAt < this.policy.retryAfterFailureMs) return this.value;
    }
    if (forced) this.forcedAt = now;
    try {
      const value = await this.read();
      this.value = value;
      this.readAt = this.now();
      return value;
    } catch (error) {
      this.failedAt = this.now();
      // A read past the max age that fails keeps the value in use: Secrets Manager down is no reason to stop serving.
      if (!force && this.value) return this.value;
      throw error;
    }
  }

  /** The one read in flight, shared, bounded in time; forgotten once it settles, however it settles. */
  private read(): Promise<DatabaseSecret> {
    if (this.reading) return this.reading;
    if (!this.sdk) {
      const building = this.client();
      // A client that failed to build is built again next time.
      building.catch(() => {
        if (this.sdk === building) this.sdk = undefined;
      });
      this.sdk = building;
    }
    const sdk = this.sdk;
    // The bound is Secrets Manager's: loading the SDK client is this process's own work, which a busy
    // machine slows without any hiccup to wait out, so the deadline starts once the client is built.
    const reading = sdk
      .then((client) => withDeadline(this.policy.readTimeoutMs, (signal) => readDatabaseSecret(this.secretId, client, signal)))
      .finally(() => {
        if (this.reading === reading) this.reading = undefined;
      });
    this.reading = reading;
    return reading;
  }
}
