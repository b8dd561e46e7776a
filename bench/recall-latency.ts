import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { fingerprint } from '../lambda/memory/canonical.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { DEFAULT_RULES } from '../lambda/memory/policy/kinds.js';
import type { CurationService } from '../lambda/memory/curation/curation-service.js';
import { memoryServices } from '../lambda/memory/services.js';
import { systemClock } from '../lambda/ports/clock.js';
import { ScriptedJudge } from '../test/support/judges.js';

/**
 * `npm run bench:recall [-- --per-user 500 --small 100 --large 1000 --queries 300]`: local recall
 * latency (embedding + the one SQL statement) for the same users, first with `small` users in the
 * database, then after growing it to `large` users of equal size. Search cost must not grow with
 * other users' data: the figure that matters is the ratio of the two.
 */

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const PER_USER = arg('per-user', 500);
const SMALL = arg('small', 100);
const LARGE = arg('large', 1000);
const QUERIES = arg('queries', 300);
const BATCH = 500;

const TOPICS = ['river', 'market', 'school', 'harvest', 'clinic', 'bus', 'rain', 'music', 'tea', 'bread', 'bank', 'phone'];
const PLACES = ['Ouagadougou', 'Koudougou', 'Banfora', 'Kaya', 'Dori', 'Fada', 'Gaoua', 'Tenkodogo'];
const sentence = (u: number, i: number) =>
  `User ${u} note ${i}: the ${TOPICS[i % TOPICS.length]} in ${PLACES[(u + i) % PLACES.length]} matters on day ${(i * 7) % 31}.`;

const embedder = new LocalEmbedder(256);
const analyzer = new LexicalAnalyzer();

async function seedUsers(db: PgliteSqlClient, users: string[], offset: number): Promise<void> {
  const store = sqlMemoryStores(db).transfer;
  const at = new Date();
  for (const [n, user] of users.entries()) {
    const memories = [];
    for (let i = 0; i < PER_USER; i += 1) {
      const content = sentence(offset + n, i);
      const embedding = await embedder.embed(content);
      memories.push({
        id: randomUUID(),
        content,
        fingerprint: fingerprint(content),
        embedding,
        frequencies: analyzer.frequencies(content),
      });
    }
    for (let i = 0; i < memories.length; i += BATCH) {
      const scope = { region: 'local', userId: user };
      await store.load({
        scope,
        kind: 'fact',
        expires: false,
        at,
        agent: 'bench',
        client: 'bench/1',
        memories: memories.slice(i, i + BATCH),
      });
    }
    if ((n + 1) % 50 === 0) process.stderr.write(`  seeded ${offset + n + 1} users (${(offset + n + 1) * PER_USER} memories)\n`);
  }
  await db.exec('ANALYZE');
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

interface Phase {
  /** The first recall of each measured user after loading: its pages may have left the cache. */
  readonly firstTouch: { p50: number; p95: number };
  /** Recalls once every measured user has been touched: the search itself. */
  readonly warm: { p50: number; p95: number };
}

const percentiles = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
};

async function timedRecall(service: CurationService, user: string, q: number): Promise<number> {
  const principal = { userId: user, region: 'local', agent: 'bench', keyId: 'bench' };
  const started = performance.now();
  await service.recall(principal, { query: `${TOPICS[q % TOPICS.length]} in ${PLACES[q % PLACES.length]}`, limit: 10 });
  return performance.now() - started;
}

async function measure(service: CurationService, users: string[]): Promise<Phase> {
  const first: number[] = [];
  for (const [u, user] of users.entries()) first.push(await timedRecall(service, user, u));
  const warm: number[] = [];
  for (let q = 0; q < QUERIES; q += 1) warm.push(await timedRecall(service, users[q % users.length] ?? '', q + 1));
  return { firstTouch: percentiles(first), warm: percentiles(warm) };
}

const dir = mkdtempSync(join(tmpdir(), 'naaba-bench-'));
const db = await PgliteSqlClient.open(dir);
await migrate(db, { embeddingDimensions: 256 });
const service = memoryServices({
  stores: sqlMemoryStores(db),
  embedder,
  judge: new ScriptedJudge(() => 'different'),
  clock: systemClock,
  rules: DEFAULT_RULES,
  analyzer,
}).curation;
const probeUsers = Array.from({ length: SMALL }, () => randomUUID());
console.error(`seeding ${SMALL} users x ${PER_USER} memories`);
await seedUsers(db, probeUsers, 0);
const small = await measure(service, probeUsers);
console.error(`seeding ${LARGE - SMALL} more users`);
await seedUsers(
  db,
  Array.from({ length: LARGE - SMALL }, () => randomUUID()),
  SMALL,
);
const large = await measure(service, probeUsers);
await db.close();
rmSync(dir, { recursive: true, force: true });

const ms = (x: number) => x.toFixed(2);
console.log('| users x memories each | recall p50 (ms) | recall p95 (ms) | first touch p50 (ms) | first touch p95 (ms) |');
console.log('| --- | --- | --- | --- | --- |');
for (const [users, phase] of [
  [SMALL, small],
  [LARGE, large],
] as const) {
  console.log(
    `| ${users} x ${PER_USER} | ${ms(phase.warm.p50)} | ${ms(phase.warm.p95)} | ${ms(phase.firstTouch.p50)} | ${ms(phase.firstTouch.p95)} |`,
  );
}
const ratio = (a: number, b: number) => (a / b).toFixed(2);
console.log(
  `ratio ${LARGE}/${SMALL} users, recall: p50 ${ratio(large.warm.p50, small.warm.p50)}, p95 ${ratio(large.warm.p95, small.warm.p95)} (target: within 20 %)`,
);
console.log(
  `ratio ${LARGE}/${SMALL} users, first touch: p50 ${ratio(large.firstTouch.p50, small.firstTouch.p50)}, p95 ${ratio(large.firstTouch.p95, small.firstTouch.p95)}`,
);
