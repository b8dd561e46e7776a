import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';

/**
 * Migrations 0028 and 0029 on a database that older code filled (decision 0167): each memory gets
 * its terms' frequencies from its postings, the expansion's rows and those older code writes
 * between the two files alike; the postings of memories that are gone go; the primary key of
 * memory_terms goes; and a forget then finds every posting of its memory by memory_terms_ranked.
 */
describe('memory_terms_ranked as the postings’ only index, on an upgraded database', () => {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-term-tfs-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const region = 'eu-central-1';
  const user = '00000000-0000-4000-8000-0000000000a1';
  const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

  /** A memory and its postings as code older than 0028 writes them: terms, no frequencies. */
  const olderWrite = (db: PgliteSqlClient, n: number, postings: readonly [string, number][]) => {
    const terms = postings.map(([term]) => term);
    const length = postings.reduce((sum, [, tf]) => sum + tf, 0);
    return db.query({
      text: `
WITH written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, terms, term_count, created_at, last_useful_at, agent, client)
  VALUES ($1::uuid, $2, $3::uuid, 'fact', $4, $5, '[1,0,0]', $6::text[], $7::int4, now(), now(), 'a', 'c')
  RETURNING id
)
INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl, best)
SELECT $2, $3::uuid, 'fact', p.term, $1::uuid, p.tf, $7::int4, true
  FROM unnest($6::text[], $8::int4[]) AS p(term, tf), written`,
      values: [id(n), region, user, `memory ${n}`, `fp${n}`, terms, length, postings.map(([, tf]) => tf)],
    });
  };
  const tallies = async (db: PgliteSqlClient) =>
    Object.fromEntries(
      (
        await db.query<{ id: string; tfs: number[] | null }>(
          sql`SELECT id::text AS id, term_tfs AS tfs FROM memories ORDER BY id`,
        )
      ).map((r) => [r.id, r.tfs]),
    );
  const postingsOf = async (db: PgliteSqlClient) =>
    (
      await db.query<{ posting: string }>(
        sql`SELECT memory_id::text || ' ' || term AS posting FROM memory_terms ORDER BY memory_id, term`,
      )
    ).map((r) => r.posting);
  const primaryKey = async (db: PgliteSqlClient) =>
    (
      await db.query<{ name: string }>(
        sql`SELECT conname AS name FROM pg_constraint WHERE conrelid = 'memory_terms'::regclass AND contype = 'p'`,
      )
    ).map((r) => r.name);

  test('frequencies filled, strays deleted, the key dropped; a forget then deletes exactly its postings', async () => {
    const shipped = readdirSync('sql/postgres').filter((f) => /^\d{4}_/.test(f));
    expect(shipped).toEqual(expect.arrayContaining(['0028_term_tfs.sql', '0029_term_ranked_key.sql']));
    for (const file of shipped.filter((f) => f < '0028')) cpSync(join('sql/postgres', file), join(folder, 'postgres', file));
    const db = await PgliteSqlClient.open();
    try {
      const source = pathToFileURL(`${folder}/`);
      await migrate(db, { embeddingDimensions: 3, source });
      await olderWrite(db, 1, [
        ['alpha', 2],
        ['beta', 1],
      ]);
      await olderWrite(db, 2, [['alpha', 1]]);
      await olderWrite(db, 3, []);

      cpSync(join('sql/postgres', '0028_term_tfs.sql'), join(folder, 'postgres', '0028_term_tfs.sql'));
      expect(await migrate(db, { embeddingDimensions: 3, source, batchRows: 2 })).toEqual(['0028_term_tfs.sql']);
      expect(await tallies(db)).toEqual({ [id(1)]: [2, 1], [id(2)]: [1], [id(3)]: [] });
      expect(await primaryKey(db)).toEqual(['memory_terms_pkey']);

      // Between the two files older code still writes, and code from 0028 that forgets a memory
      // older code wrote since cannot find its postings: a stray posting, left by a gone memory.
      await olderWrite(db, 4, [
        ['gamma', 3],
        ['alpha', 1],
      ]);
      await olderWrite(db, 5, [['delta', 1]]);
      await db.query({ text: 'DELETE FROM memories WHERE id = $1::uuid', values: [id(5)] });

      cpSync(join('sql/postgres', '0029_term_ranked_key.sql'), join(folder, 'postgres', '0029_term_ranked_key.sql'));
      expect(await migrate(db, { embeddingDimensions: 3, source, batchRows: 2 })).toEqual(['0029_term_ranked_key.sql']);
      expect(await tallies(db)).toEqual({ [id(1)]: [2, 1], [id(2)]: [1], [id(3)]: [], [id(4)]: [3, 1] });
      expect(await postingsOf(db)).toEqual([
        `${id(1)} alpha`,
        `${id(1)} beta`,
        `${id(2)} alpha`,
        `${id(4)} alpha`,
        `${id(4)} gamma`,
      ]);
      expect(await primaryKey(db)).toEqual([]);

      const forgotten = await sqlMemoryStores(db).curation.forgetIds({ region, userId: user }, [id(1), id(4)], []);
      expect(forgotten.sort()).toEqual([id(1), id(4)]);
      expect(await postingsOf(db)).toEqual([`${id(2)} alpha`]);
    } finally {
      await db.close();
    }
  });
});
