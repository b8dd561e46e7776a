import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { SqlKeyStore } from '../../lambda/adapters/pg/stores/sql-key-store.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { KeyService } from '../../lambda/auth/keys.js';
import { handleAdmin } from '../../lambda/dev/admin.js';
import { systemClock } from '../../lambda/ports/clock.js';
import { freshDatabase } from '../support/database.js';

let db: PgliteSqlClient;
let keys: KeyService;
beforeAll(async () => {
  db = await freshDatabase();
  keys = new KeyService(new SqlKeyStore(db), systemClock);
});
afterAll(async () => db.close());

const SECRET = 'the-admin-secret';
const keyCount = async () => (await db.query<{ n: number }>(sql`SELECT count(*)::int4 AS n FROM api_keys`))[0]?.n;

test.each<[string, string, string, string]>([
  ['a null body', 'POST', '/admin/keys', 'null'],
  ['an array body', 'POST', '/admin/keys', '[]'],
  ['a body that is not JSON', 'POST', '/admin/keys', '{name'],
  ['a name that is not a string', 'POST', '/admin/keys', '{"name": 5, "region": "local"}'],
  ['a key id that is not valid percent-encoding', 'DELETE', '/admin/keys/%ZZ', ''],
])('%s: 400 with a message, nothing written', async (_label, method, path, body) => {
  const before = await keyCount();
  const answer = await handleAdmin({ method, path, body, secret: SECRET }, SECRET, { keys });
  expect(answer.status).toBe(400);
  expect((answer.body as { message: string }).message.length).toBeGreaterThan(0);
  expect(await keyCount()).toBe(before);
});

test('a well-formed request still issues a key', async () => {
  const answer = await handleAdmin(
    { method: 'POST', path: '/admin/keys', body: '{"name": "agent", "region": "local"}', secret: SECRET },
    SECRET,
    { keys },
  );
  expect(answer.status).toBe(201);
});
