import { randomUUID } from 'node:crypto';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { NO_FLOOR } from '../../lambda/memory/policy/floor.js';
import { FUSION, LEXICAL } from '../../lambda/memory/policy/ranking.js';
import { freshDatabase } from '../support/database.js';
import { freePort } from '../support/ports.js';
import { axis } from '../support/vectors.js';

/**
 * The `pg` driver over PGlite served on a local socket: what a developer without a PostgreSQL
 * server has of the driver path. The whole conformance suite runs over `pg` against a real
 * PostgreSQL (test/pg/postgres.test.ts) and in-process on PGlite (pglite.test.ts); this proves the
 * driver's lanes, parameters and row types work against PGlite too: remembers up to the ceiling, a
 * recall that touches, and the counts.
 */
test('remembers, a recall and the counts over pg on a PGlite socket', async () => {
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
  try {
    const { curation } = sqlMemoryStores(sql);
    const scope = { region: 'eu-central-1', userId: randomUUID() };
    const at = new Date('2026-03-01T00:00:00Z');
    const insert = (content: string, i: number) =>
      curation.insert(
        {
          scope,
          id: randomUUID(),
          kind: 'fact',
          content,
          fingerprint: content,
          embedding: axis(i),
          terms: content.split(' '),
          pinned: i === 0,
          source: { agent: 'a', client: 'tests/1', origin: 'chat', at },
          conflictsWith: undefined,
          ceiling: 2,
          pinLimit: 5,
          sourcesKept: 3,
          expiredBefore: null,
        },
        at,
      );
    expect(await insert('the ferry leaves at nine', 0)).toMatchObject({ status: 'inserted', evicted: 0 });
    expect(await insert('the train leaves at ten', 1)).toMatchObject({ status: 'inserted', evicted: 0 });
    expect(await insert('the bus leaves at noon', 2)).toMatchObject({ status: 'inserted', evicted: 1 });
    const found = await curation.recall({
      scope,
      embedding: axis(0),
      terms: ['ferry'],
      fusion: FUSION,
      lexical: LEXICAL,
      farthest: NO_FLOOR,
      kinds: [{ kind: 'fact', expiredBefore: null }],
      limit: 5,
      candidates: 50,
      now: at,
    });
    expect(found[0]).toMatchObject({ content: 'the ferry leaves at nine', pinned: true, recallCount: 1 });
    expect(found[0]?.createdAt).toEqual(at);
    expect(await curation.counts(scope, [])).toEqual({ perKind: { fact: 2 }, pinned: 1, pinnedPerKind: { fact: 1 } });
  } finally {
    await sql.close();
    await server.stop();
    await db.close();
  }
});
