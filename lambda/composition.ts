import { join } from 'node:path';
import { SqlKeyStore } from './adapters/pg/stores/sql-key-store.js';
import { sqlMemoryStores } from './adapters/pg/stores/sql-memory-stores.js';
import { SqlOAuthStore } from './adapters/pg/stores/sql-oauth-store.js';
import { requireIndexedWith, SchemaError, schemaFacts } from './adapters/pg/schema/facts.js';
import { requireKnownSchema } from './adapters/pg/schema/version.js';
import { PgSqlClient } from './adapters/pg/pg-client.js';
import type { RetryPolicy } from './adapters/pg/retry.js';
import type { SqlClient } from './adapters/pg/sql-client.js';
import { KeyService } from './auth/keys.js';
import { OAuthService } from './auth/oauth.js';
import { type RuntimeConfig, loadConfig } from './config/env.js';
import { CachedDatabaseSecret } from './config/secrets.js';
import { makeEmbedder, makeJudge, secretsManagerClient } from './providers.js';
import { LexicalAnalyzer } from './memory/lexical.js';
import { Sweeper } from './memory/maintenance/sweeper.js';
import { type MemoryServices, memoryServices } from './memory/services.js';
import { type Clock, systemClock } from './ports/clock.js';
import type { Embedder } from './ports/embedder.js';
import type { Judge } from './ports/judge.js';
import type { KeyStore } from './ports/key-store.js';
import type { OAuthStore } from './ports/oauth-store.js';

/** Handlers learn whether their request met a database outage through the root, never the adapter (decision 0088). */
export { watchingOutages } from './adapters/pg/outage-watch.js';

/** Parts a caller may supply instead of the configured ones (tests, benchmarks, the local server). */
export interface ContainerParts {
  readonly sql?: SqlClient;
  readonly clock?: Clock;
  readonly embedder?: Embedder;
  readonly judge?: Judge;
  /** The stores' retry bounds (default `defaultRetryPolicy`); tests on a busy machine give more time. */
  readonly retry?: RetryPolicy;
  /**
   * This process holds the data folder to itself (a one-shot command: the folder's lock is taken,
   * so no other caller can be served from it meanwhile): an import need not rest between steps.
   */
  readonly alone?: boolean;
}

/** How often the local engine checks whether a table grew enough to need fresh planner statistics. */
export const STATISTICS_EVERY_MS = 10_000;

/** The PGlite folder inside a naaba data folder. */
export const pgliteDir = (dataDir: string) => join(dataDir, 'pgdata');

async function openSql(config: RuntimeConfig): Promise<SqlClient> {
  const db = config.database;
  if (db.kind === 'pglite') {
    // Imported on demand: the Lambda bundle never carries PGlite.
    const [{ PgliteSqlClient }, { migrate }, { makePrivate }] = await Promise.all([
      import('./adapters/pg/pglite-client.js'),
      import('./adapters/pg/schema/migrate.js'),
      import('./dev/data-dir.js'),
    ]);
    const client = await PgliteSqlClient.open(pgliteDir(db.dataDir), undefined, db.buffersMb);
    // A new database's files arrive world-readable (decision 0043).
    makePrivate(db.dataDir);
    await migrate(client, { embeddingDimensions: config.embedder.dimensions });
    // PGlite runs no autovacuum: without this, per-user reads drift onto region-wide indexes as data grows.
    await client.keepStatisticsCurrent(STATISTICS_EVERY_MS);
    return client;
  }
  if (db.kind === 'url') return PgSqlClient.connect({ url: db.url, ca: db.ca, ...db.pool });
  // The secret is read again after its max age, and at once when the database refuses the login it
  // holds (a rotation): the statement then runs on the new login instead of failing (decision 0092).
  const secret = new CachedDatabaseSecret(db.secretId, secretsManagerClient);
  const source = async (force: boolean) => {
    if (force) {
      const { logger } = await import('./observability.js');
      logger.warn('database refused the login: reading its secret again', { secretId: db.secretId });
    }
    return secret.get(force);
  };
  return PgSqlClient.connect({ ...(await secret.get()), ...db.pool, source });
}

/**
 * The composition root: the one place that builds adapters. Each part is built once per
 * container (a Lambda container, or the local process) and shared by every request.
 */
export class Container {
  private readonly parts = new Map<string, Promise<unknown>>();

  constructor(
    readonly config: RuntimeConfig,
    private readonly supplied: ContainerParts = {},
  ) {}

  /** Builds a part once; a failed build is forgotten so the next request tries again. */
  private once<T>(name: string, build: () => Promise<T>): Promise<T> {
    let part = this.parts.get(name) as Promise<T> | undefined;
    if (!part) {
      part = build();
      this.parts.set(name, part);
      part.catch(() => this.parts.delete(name));
    }
    return part;
  }

  get clock(): Clock {
    return this.supplied.clock ?? systemClock;
  }

  sql(): Promise<SqlClient> {
    return this.once('sql', async () => {
      const client = this.supplied.sql ?? (await openSql(this.config));
      // A subsegment per statement where the handler traces (the endpoint function in Lambda); as is elsewhere.
      // Each statement that meets an outage tells the request it serves (a warm container's 503, decision 0097).
      const [{ tracing }, { traceSql }, { OutageWatchingClient }] = await Promise.all([
        import('./observability.js'),
        import('./adapters/pg/traced-client.js'),
        import('./adapters/pg/outage-watch.js'),
      ]);
      return traceSql(new OutageWatchingClient(client), await tracing());
    });
  }

  /**
   * The database, once its schema is one this code knows (decision 0071): every store goes
   * through here, so a function deployed before `naaba migrate`, or rolled back past a contract
   * migration, refuses with what to do instead of failing statement by statement. A client
   * supplied by the caller is the caller's to have migrated.
   */
  private knownSql(): Promise<SqlClient> {
    return this.once('knownSql', async () => {
      const sql = await this.sql();
      if (this.supplied.sql) return sql;
      try {
        await requireKnownSchema(sql);
      } catch (error) {
        // The reason names migrations only; in Lambda it is the line the on-call engineer reads (the CLI prints it itself).
        const { inLambda, logger } = await import('./observability.js');
        if (inLambda && error instanceof SchemaError) logger.error('database schema refused', { problem: error.message });
        throw error;
      }
      return sql;
    });
  }

  keyStore(): Promise<KeyStore> {
    return this.once('keyStore', async () => new SqlKeyStore(await this.knownSql(), this.supplied.retry));
  }

  oauthStore(): Promise<OAuthStore> {
    return this.once('oauthStore', async () => new SqlOAuthStore(await this.knownSql(), this.config.region, this.supplied.retry));
  }

  /** The authorization server as seen at `issuer` (the public base URL the request came in on). */
  async oauth(issuer: string): Promise<OAuthService> {
    const settings = {
      issuer,
      region: this.config.region,
      limits: this.config.oauth.limits,
    };
    return new OAuthService(await this.oauthStore(), await this.keyStore(), this.clock, settings);
  }

  keys(): Promise<KeyService> {
    return this.once('keys', async () => new KeyService(await this.keyStore(), this.clock));
  }

  embedder(): Promise<Embedder> {
    return this.once('embedder', async () => this.supplied.embedder ?? (await makeEmbedder(this.config)));
  }

  /** The lexical arm's analyzer, in the configured text language. */
  get analyzer(): LexicalAnalyzer {
    return new LexicalAnalyzer(this.config.recall.language);
  }

  /**
   * The memory's services, after checking the schema against the embedder's dimension and the
   * stored vectors and terms against the embedder and analyzer in force.
   */
  memory(): Promise<MemoryServices> {
    return this.once('memory', async () => {
      const [sql, embedder] = await Promise.all([this.knownSql(), this.embedder()]);
      const schema = await schemaFacts(sql);
      if (schema.dimensions !== embedder.dimensions) {
        throw new SchemaError(
          `embedding dimension mismatch between the schema and embedder ${embedder.name}: the schema stores ${schema.dimensions} dimensions, the embedder makes ${embedder.dimensions}. Run \`naaba reembed\` with these settings to move the stored memories to this embedder (safe to interrupt and run again), or start with the embedder that made them.`,
        );
      }
      const analyzer = this.analyzer;
      await requireIndexedWith(sql, schema, { embedder: embedder.name, lexical: analyzer.name });
      return memoryServices({
        stores: sqlMemoryStores(sql, this.supplied.retry),
        embedder,
        analyzer,
        ranking: this.config.recall.ranking,
        judge: this.supplied.judge ?? (await makeJudge(this.config)),
        clock: this.clock,
        rules: this.config.rules,
        rulesSource: this.config.rulesSource,
        // One statement at a time on the embedded database: an import leaves others three quarters
        // of it, unless there are no others.
        importRestPerStep: this.config.database.kind === 'pglite' && !this.supplied.alone ? 3 : 0,
      });
    });
  }

  sweeper(): Promise<Sweeper> {
    return this.once(
      'sweeper',
      async () =>
        new Sweeper(
          sqlMemoryStores(await this.knownSql(), this.supplied.retry).maintenance,
          this.config.rules,
          this.clock,
          this.analyzer,
        ),
    );
  }

  async close(): Promise<void> {
    const sql = this.parts.get('sql') as Promise<SqlClient> | undefined;
    this.parts.clear();
    if (sql && !this.supplied.sql) await (await sql).close();
  }
}

let current: Container | undefined;

/** The process-wide container the exported handlers use: from the environment unless one was installed. */
export function container(): Container {
  current ??= new Container(loadConfig());
  return current;
}

/** Installs the container the exported handlers will use (the local server, tests). */
export function installContainer(next: Container | undefined): void {
  current = next;
}
