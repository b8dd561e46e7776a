import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';

/** A migrated in-memory PGlite: the real SQL engine of the local endpoint, for one test file. */
export async function freshDatabase(embeddingDimensions = 256): Promise<PgliteSqlClient> {
  const db = await PgliteSqlClient.open();
  await migrate(db, { embeddingDimensions });
  return db;
}

/** Empties every naaba table between tests, keeping the schema. */
export async function truncateAll(db: PgliteSqlClient): Promise<void> {
  await db.exec(
    'TRUNCATE memory_links, memories, memory_terms, memory_partition_terms, memory_partitions, memory_cells, journal, api_keys, oauth_clients, oauth_codes, oauth_tokens, oauth_rate_limits',
  );
}
