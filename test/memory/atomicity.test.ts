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

/** A failure injected once every row of a pin has been updated: the third memory's update fails at the statement's end. */
const failOnPinOf = (id: string) => `
CREATE FUNCTION fail_pin() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'injected failure on the third pin';
END $$;
CREATE TRIGGER fail_pin AFTER UPDATE ON memories FOR EACH ROW WHEN (NEW.pinned AND NEW.id = '${id}'::uuid) EXECUTE FUNCTION fail_pin();`;

describe('pinning several memories at once from the page is all or none', () => {
  const threeNotes = async (over: PgliteSqlClient | 'memory') => {
    const harness = serviceOver(over, { rules: { pinLimit: 3 } });
    const me = principal();
    const ids: string[] = [];
    for (const content of ['the ferry leaves at nine', 'tea without sugar', 'review on Thursdays']) {
      ids.push((await harness.service.remember(me, CLIENT, { content, kind: 'fact' })).id);
      harness.clock.advance(1);
    }
    return { ...harness, me, ids };
  };

  test('a failure on the third pin leaves none pinned: the set is one statement, undone whole by the database', async () => {
    const db = await freshDatabase();
    const { page, me, ids } = await threeNotes(db);
    const partitions = () => db.query(sql`SELECT kind, writes FROM memory_partitions ORDER BY kind`);
    const before = await partitions();
    await db.exec(failOnPinOf(ids[2] ?? ''));

    await expect(page.setPinnedMany(me, ids, true)).rejects.toThrow('injected failure');
    expect((await page.overview(me)).pinned).toBe(0);
    expect(await partitions()).toEqual(before);

    await db.exec('DROP TRIGGER fail_pin ON memories');
    expect(await page.setPinnedMany(me, ids, true)).toEqual({ changed: 3 });
    expect((await page.overview(me)).pinned).toBe(3);
    await db.close();
  });

  test('past the pin limit nothing is pinned; with one gone, nothing changes', async () => {
    const { page, service, me, ids } = await threeNotes('memory');
    await page.setPinned(me, ids[0] ?? '', true);
    await page.setPinned(me, ids[1] ?? '', true);
    await service.forget(me, { ids: [ids[1] ?? ''] });
    const more = await service.remember(me, CLIENT, { content: 'the night market closes at eleven', kind: 'fact' });
    // One pinned, two free: three more pass the limit.
    await expect(page.setPinnedMany(me, [ids[2] ?? '', more.id, ids[0] ?? ''], true)).resolves.toEqual({ changed: 2 });
    await page.setPinned(me, more.id, false);
    await page.setPinned(me, ids[2] ?? '', false);
    const fourth = await service.remember(me, CLIENT, { content: 'standup at ten', kind: 'fact' });
    await expect(page.setPinnedMany(me, [ids[2] ?? '', more.id, fourth.id], true)).rejects.toThrow('pin limit reached');
    expect((await page.overview(me)).pinned).toBe(1);
    expect(await page.setPinnedMany(me, [ids[0] ?? '', ids[1] ?? ''], false)).toBeUndefined();
    expect((await page.overview(me)).pinned).toBe(1);
  });
});
