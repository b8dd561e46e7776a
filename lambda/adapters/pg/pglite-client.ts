import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { SqlClient } from './sql-client.js';

/** PostgreSQL in WebAssembly, in this process: the local and test engine. Never bundled for Lambda. */
export class PgliteSqlClient implements SqlClient {
  readonly engine = 'postgres' as const;

  private constructor(readonly db: PGlite) {}

  /** Opens (or creates) a database under `dataDir`, or in memory when none is given. */
  static async open(dataDir?: string): Promise<PgliteSqlClient> {
    const db = await PGlite.create(dataDir ?? 'memory://', { extensions: { vector } });
    return new PgliteSqlClient(db);
  }

  async query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    const result = await this.db.query<R>(text, params ? [...params] : undefined);
    return result.rows;
  }

  async exec(script: string): Promise<void> {
    await this.db.exec(script);
  }

  async close(): Promise<void> {
    if (!this.db.closed) await this.db.close();
  }
}
