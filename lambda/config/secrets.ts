import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError } from './errors.js';

/**
 * Reads the database connection string from Secrets Manager. The secret holds either the URL
 * itself or JSON with a `url` field; the value is never logged.
 */
export async function readDatabaseUrl(secretId: string, client?: SecretsManagerClient): Promise<string> {
  // Loaded on first use: importing the SDK client is the largest part of a cold start.
  const sdk = await import('@aws-sdk/client-secrets-manager');
  const result = await (client ?? new sdk.SecretsManagerClient({})).send(new sdk.GetSecretValueCommand({ SecretId: secretId }));
  const text = result.SecretString?.trim();
  if (!text) throw new ConfigError(`secret ${secretId} has no string value`);
  if (!text.startsWith('{')) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`secret ${secretId} looks like JSON but does not parse`, { cause: error });
  }
  const url = (parsed as { url?: unknown }).url;
  if (typeof url !== 'string' || url === '') throw new ConfigError(`secret ${secretId} has no "url" field`);
  return url;
}
