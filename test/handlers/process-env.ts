import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { DUMMY_CREDENTIALS } from '../providers/support/bedrock-stub.js';

/**
 * Sets variables in this process's environment, as the Lambda runtime does before it loads a
 * handler, and returns the function that puts the previous values back.
 */
export function setEnvironment(variables: Record<string, string>): () => void {
  // biome-ignore lint/style/noProcessEnv: these tests stand in for the runtime that sets the variables
  const env = process.env;
  const previous = Object.fromEntries(Object.keys(variables).map((name) => [name, env[name]]));
  Object.assign(env, variables);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) Reflect.deleteProperty(env, name);
      else env[name] = value;
    }
  };
}

/**
 * The environment a function sees with its Secrets Manager behind a local stand-in at `url`, in
 * `region`, with stand-in credentials (the real SDK client signs with them); `extra` adds more.
 */
export function secretsStandInEnvironment(url: string, region: string, extra: Record<string, string> = {}): () => void {
  return setEnvironment({
    AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: DUMMY_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: DUMMY_CREDENTIALS.secretAccessKey,
    ...extra,
  });
}

/** Migrates the database at `url` as its owner, through one short-lived connection. */
export async function migrateAsOwner(url: string): Promise<void> {
  const owner = await PgSqlClient.connect({ url, maxConnections: 1, statementTimeoutMs: 10_000, engine: 'postgres' });
  try {
    await migrate(owner, { embeddingDimensions: 256 });
  } finally {
    await owner.close();
  }
}
