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
