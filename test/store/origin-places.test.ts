import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runBackfill } from '../../lambda/adapters/pg/schema/backfill.js';
import { migrate, splitStatements } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';

/**
 * Migration 0010 on a database that already holds memories with origins (decision 0082): each
 * (user, origin, kind) is numbered 1, 2, 3… in the order its memories were written, memories
 * without an origin get no place; run again, it numbers only what has no place yet, after the
 * last place of each origin.
 */
describe('places in an origin, on an upgraded database', () => {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-places-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  test('the memories already there are numbered in the order they were written', async () => {
    const shipped = readdirSync('sql/postgres').filter((f) => /^\d{4}_/.test(f));
    const before = shipped.filter((f) => f < '0010');
    expect(shipped).toContain('0010_origin_sequence.sql');
    for (const file of before) cpSync(join('sql/postgres', file), join(folder, 'postgres', file));
    const db = await PgliteSqlClient.open();
    try {
      const source = pathToFileURL(`${folder}/`);
      await migrate(db, { embeddingDimensions: 3, source });
      const user = '00000000-0000-4000-8000-000000000001';
      const other = '00000000-0000-4000-8000-000000000002';
      const rows: [string, string, string, string | null, number][] = [
        [user, 'fact', 'third in chat', 'chat', 30],
        [user, 'fact', 'first in chat', 'chat', 10],
        [user, 'fact', 'second in chat', 'chat', 20],
        [user, 'event', 'another kind', 'chat', 15],
        [other, 'fact', 'another user', 'chat', 5],
        [user, 'fact', 'no origin', null, 1],
      ];
      for (const [owner, kind, content, origin, second] of rows) {
        await db.query(sql`INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, created_at, last_useful_at, origin, agent, client)
           VALUES (gen_random_uuid(), 'eu-central-1', ${param('owner', owner)}, ${param('kind', kind)}, ${param('content', content)}, ${param('content', content)}, '[1,0,0]', ${param('value', new Date(Date.UTC(2026, 0, 1, 0, 0, second)))}, ${param('value', new Date(Date.UTC(2026, 0, 1, 0, 0, second)))}, ${param('origin', origin)}, 'a', 'c')`);
      }
      cpSync(join('sql/postgres', '0010_origin_sequence.sql'), join(folder, 'postgres', '0010_origin_sequence.sql'));
      // Batches of two: one stops inside the origin 'chat', and the next goes on after its places.
      expect(await migrate(db, { embeddingDimensions: 3, source, batchRows: 2 })).toEqual(['0010_origin_sequence.sql']);
      const places = await db.query<{ content: string; origin_seq: string | null }>(
        sql`SELECT content, origin_seq::text AS origin_seq FROM memories ORDER BY user_id, kind, origin_seq, content`,
      );
      expect(places.map((r) => `${r.content}: ${r.origin_seq}`)).toEqual([
        'another kind: 1',
        'first in chat: 1',
        'second in chat: 2',
        'third in chat: 3',
        'no origin: null',
        'another user: 1',
      ]);
      const indexes = await db.query<{ indexname: string }>(sql`SELECT indexname FROM pg_indexes WHERE tablename = 'memories'`);
      // The old index stays for code older than 0010 during a deploy; a later contract drops it.
      expect(indexes.map((i) => i.indexname)).toEqual(expect.arrayContaining(['memories_origin_seq', 'memories_origin']));

      // Run again after a gap and a memory written by older code (no place): it comes after the last place.
      await db.query(sql`DELETE FROM memories WHERE content = 'second in chat'`);
      await db.query(sql`INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, created_at, last_useful_at, origin, agent, client)
         VALUES (gen_random_uuid(), 'eu-central-1', ${param('user', user)}, 'fact', 'written by older code', 'older', '[1,0,0]', now(), now(), 'chat', 'a', 'c')`);
      const backfill = splitStatements(readFileSync('sql/postgres/0010_origin_sequence.sql', 'utf8')).find((s) =>
        s.includes('naaba:backfill'),
      );
      expect(await runBackfill(db, backfill ?? 'missing backfill', { file: '0010', step: 1, batchRows: 1 })).toBe(1);
      const again = await db.query<{ content: string; origin_seq: string }>(
        sql`SELECT content, origin_seq::text AS origin_seq FROM memories WHERE user_id = ${param('user', user)} AND kind = 'fact' AND origin = 'chat' ORDER BY origin_seq`,
      );
      expect(again.map((r) => `${r.content}: ${r.origin_seq}`)).toEqual([
        'first in chat: 1',
        'third in chat: 3',
        'written by older code: 4',
      ]);
    } finally {
      await db.close();
    }
  }, 120_000);
});
