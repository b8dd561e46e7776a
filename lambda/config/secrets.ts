import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { certificateBundle } from '../adapters/pg/tls.js';
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
export async function readDatabaseSecret(secretId: string, client?: SecretsManagerClient): Promise<DatabaseSecret> {
  // Loaded on first use: importing the SDK client is the largest part of a cold start.
  const sdk = await import('@aws-sdk/client-secrets-manager');
  const result = await (client ?? new sdk.SecretsManagerClient({})).send(new sdk.GetSecretValueCommand({ SecretId: secretId }));
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

/** How long a secret read is used before it is read again, and how soon a refused login may force another read. */
export interface SecretCachePolicy {
  readonly maxAgeMs: number;
  readonly minForcedIntervalMs: number;
}

/** Powertools Parameters' default max age is 5 s; a connection string changes by rotation only, so minutes are enough. */
export const DEFAULT_SECRET_CACHE: SecretCachePolicy = { maxAgeMs: 5 * 60_000, minForcedIntervalMs: 5_000 };

/**
 * The database secret of a container, read the way Powertools Parameters reads one (decision
 * 0092): kept for a max age, then read again (a failed read keeps the value in use); read at once
 * when forced — because the database refused the login it holds — but no more than once per
 * `minForcedIntervalMs`, so a secret that is itself wrong costs one read per interval, not one per
 * request. Concurrent reads share one call.
 */
export class CachedDatabaseSecret {
  private value: DatabaseSecret | undefined;
  private readAt = Number.NEGATIVE_INFINITY;
  private forcedAt = Number.NEGATIVE_INFINITY;
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
    if (this.value && now - this.readAt < this.policy.maxAgeMs && !forced) return this.value;
    if (forced) this.forcedAt = now;
    this.sdk ??= this.client();
    const sdk = this.sdk;
    this.reading ??= (async () => readDatabaseSecret(this.secretId, await sdk))().finally(() => {
      this.reading = undefined;
    });
    try {
      const value = await this.reading;
      this.value = value;
      this.readAt = this.now();
      return value;
    } catch (error) {
      // A read past the max age that fails keeps the value in use: Secrets Manager down is no reason to stop serving.
      if (!force && this.value) return this.value;
      throw error;
    }
  }
}
