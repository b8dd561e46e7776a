import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { freshDatabase, truncateAll } from '../support/database.js';
import { freePort } from '../support/ports.js';
import { storeSuite } from './suite.js';

/** The same suite over the `pg` driver, through PGlite served on a local socket. */
storeSuite('PGlite over a socket, with pg', async () => {
  const db = await freshDatabase();
  // pglite-socket serves one shared session and ignores the startup packet's options, so the
  // isolation the store requires at start-up is set on that session directly.
  await db.exec('SET default_transaction_isolation = serializable');
  const port = await freePort();
  // Room for every pool of the client: one per isolation level it uses (decision 0056), two connections each.
  const server = new PGLiteSocketServer({ db: db.db, host: '127.0.0.1', port, maxConnections: 8 });
  await server.start();
  const sql = await PgSqlClient.connect({
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    maxConnections: 2,
    statementTimeoutMs: 10_000,
  });
  return {
    sql,
    reset: () => truncateAll(db),
    close: async () => {
      await sql.close();
      await server.stop();
      await db.close();
    },
  };
});
