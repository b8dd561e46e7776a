import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ConfigError } from './errors.js';

/**
 * Reads the database connection string from Secrets Manager. The secret holds either the URL
 * itself or JSON with a `url` field; the value is never logged.
 */
export async function readDatabaseUrl(secretId: string, client = new SecretsManagerClient({})): Promise<string> {
  const result = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
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
