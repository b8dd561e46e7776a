import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { freshDatabase } from '../support/database.js';
import { ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

/** Every 8-character substring of every text: what a journal line must never contain. */
function shingles(texts: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const text of texts) for (let i = 0; i + 8 <= text.length; i += 1) out.add(text.slice(i, i + 8));
  return out;
}

test('the journal never holds any 8-character piece of any remembered content, after eviction, expiry and merge', async () => {
  const db: PgliteSqlClient = await freshDatabase();
  const judge = new ScriptedJudge((a, b) => (a.split(' ')[0] === b.split(' ')[0] ? 'same' : 'different'));
  const rules = { kinds: { note: { ceiling: 4, ttlSeconds: null }, session: { ceiling: 50, ttlSeconds: 600 } } };
  const { service, clock, sweeper } = serviceOver(db, { judge, rules });
  const remembered: string[] = [];
  const remember = async (who: ReturnType<typeof principal>, content: string, kind: string, origin: string) => {
    remembered.push(content, origin);
    await service.remember(who, CLIENT, { content, kind, origin });
    clock.advance(7);
  };
  const people = [principal(), principal()];
  const words = ['Baobab', 'Harmattan', 'Sahel', 'Volta', 'Mossi', 'Karité', 'Tamarind', 'Djembe', 'Faso', 'Nakambé'];
  for (const [p, who] of people.entries()) {
    for (const [i, word] of words.entries()) {
      await remember(who, `${word} fact number ${i} told by person ${p}`, 'note', `origin-thread-${p}-${i}`);
      await remember(who, `${word} restated number ${i} by person ${p}`, 'note', `origin-restated-${p}-${i}`);
      await remember(who, `${word} session detail ${i} of person ${p}`, 'session', `origin-session-${p}-${i}`);
    }
  }
  clock.advance(3600);
  await sweeper.run('local', { batchSize: 3, maxBatches: 100 });

  const rows = await db.query<Record<string, unknown>>(sql`SELECT * FROM journal`);
  const rules_ = new Set(rows.map((r) => r.rule));
  expect(rules_).toEqual(new Set(['ceiling', 'expiry', 'duplicate']));
  const forbidden = shingles(remembered);
  const leaks = rows.flatMap((row) => {
    const text = Object.values(row)
      .map((v) => (v instanceof Date ? v.toISOString() : String(v)))
      .join('|');
    return Array.from({ length: Math.max(0, text.length - 7) }, (_, i) => text.slice(i, i + 8)).filter((s) => forbidden.has(s));
  });
  expect(leaks).toEqual([]);
  const columns = Object.keys(rows[0] ?? {}).sort();
  expect(columns).toEqual(['age_s', 'at', 'id', 'kind', 'recall_count', 'region', 'rule', 'user_id']);
  const ids = new Set((await db.query<{ id: string }>(sql`SELECT id::text AS id FROM memories`)).map((r) => r.id));
  expect(rows.some((r) => ids.has(String(r.id)))).toBe(false);
  await db.close();
});
