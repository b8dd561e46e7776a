import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { freshDatabase } from '../support/database.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

/**
 * A failure injected between the insert and the eviction: a trigger makes the eviction's
 * journal write fail. The whole remember must then leave the database as it was.
 */
const FAIL_ON_EVICTION = `
CREATE FUNCTION fail_eviction() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.rule = 'ceiling' THEN RAISE EXCEPTION 'injected failure between insert and eviction'; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER fail_eviction BEFORE INSERT ON journal FOR EACH ROW EXECUTE FUNCTION fail_eviction();`;

const snapshot = async (db: PgliteSqlClient) => ({
  memories: await db.query(sql`SELECT id, content, last_useful_at, recall_count FROM memories ORDER BY id`),
  journal: await db.query(sql`SELECT * FROM journal ORDER BY id`),
  links: await db.query(sql`SELECT * FROM memory_links ORDER BY memory_id`),
});

test('a failure between the insert and the eviction leaves the database as before the call', async () => {
  const db = await freshDatabase();
  const { service, clock } = serviceOver(db, { rules: { kinds: { note: { ceiling: 2, ttlSeconds: null } } } });
  const me = principal();
  await service.remember(me, CLIENT, { content: 'first note', kind: 'note' });
  clock.advance(1);
  await service.remember(me, CLIENT, { content: 'second note', kind: 'note' });
  await db.exec(FAIL_ON_EVICTION);
  const before = await snapshot(db);

  await expect(service.remember(me, CLIENT, { content: 'third note', kind: 'note' })).rejects.toThrow('injected failure');
  expect(await snapshot(db)).toEqual(before);

  await db.exec('DROP TRIGGER fail_eviction ON journal');
  const ok = await service.remember(me, CLIENT, { content: 'third note', kind: 'note' });
  expect(ok).toMatchObject({ outcome: 'stored', evicted: 1 });
  expect(await snapshot(db)).not.toEqual(before);
  await db.close();
});
