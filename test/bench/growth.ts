/**
 * `npm run bench:growth [-- --per-user 500 --sizes 1,10,100 --samples 100]`: does one user's
 * remember and recall get slower as *other* users' data grows, on the local engine with no
 * manual ANALYZE? A data folder opened as `naaba serve` opens it (so the engine keeps its own
 * statistics); the measured user is loaded through the real local endpoint to its `fact`
 * ceiling, the others in bulk through the store (`MemoryStore.load`: the same rows, postings and
 * statistics a remember writes, many per statement). At each size, after an untimed warm-up, it
 * times `samples` remembers (each evicts one: the user stays at the ceiling) and recalls of the
 * measured user. Reports p50 and the ratio of the largest size to the smallest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomUUID } from 'node:crypto';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { Container } from '../../lambda/composition.js';
import { loadConfig } from '../../lambda/config/env.js';
import { startLocalServer } from '../../lambda/dev/server.js';
import { parseOptions, pool, positiveInteger } from '../eval/cli.js';
import { call, connect } from '../support/endpoint.js';
import { loadable } from './loadable.js';

const options = parseOptions(process.argv.slice(2), ['per-user', 'sizes', 'samples']);
const PER_USER = positiveInteger(options, 'per-user', 500);
const SAMPLES = positiveInteger(options, 'samples', 100);
const SIZES = (options.get('sizes') ?? '1,10,100').split(',').map(Number);
/** The engine checks its statistics every 10 s (lambda/composition.ts): measure after one period, as a running server would be. */
const SETTLE_MS = 11_000;
const WARM_UP = 30;

const TOPICS = ['river', 'market', 'school', 'harvest', 'clinic', 'bus', 'rain', 'music', 'tea', 'bread', 'bank', 'phone'];
const PLACES = ['Ouagadougou', 'Koudougou', 'Banfora', 'Kaya', 'Dori', 'Fada', 'Gaoua', 'Tenkodogo'];
const sentence = (u: number, i: number) =>
  `User ${u} note ${i}: the ${TOPICS[i % TOPICS.length]} in ${PLACES[(u + i) % PLACES.length]} matters on day ${(i * 7) % 31}.`;

const p50 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-growth-'));
  const config = loadConfig({ NAABA_DATA_DIR: dir, NAABA_LOG_LEVEL: 'SILENT' });
  const container = new Container(config);
  const server = await startLocalServer({ host: '127.0.0.1', port: 0, container });
  let probe: Client | undefined;
  let loaded = 0;
  const rows: { users: number; remember: number; recall: number }[] = [];
  try {
    const keys = await container.keys();
    const store = sqlMemoryStores(await container.sql()).transfer;
    const [embedder, analyzer] = [await container.embedder(), container.analyzer];
    // The measured user, through MCP as an agent would fill it.
    probe = await connect(`${server.url}/mcp`, (await keys.issue('growth-0', config.region)).token);
    const client = probe;
    await pool(
      Array.from({ length: PER_USER }, (_, i) => i),
      4,
      (i) => call(client, 'remember', { content: sentence(0, i), kind: 'fact' }),
    );
    loaded = 1;
    let extra = 0;
    for (const size of SIZES) {
      const started = Date.now();
      while (loaded < size) {
        const u = loaded;
        const memories = [];
        for (let i = 0; i < PER_USER; i += 1) memories.push(await loadable(sentence(u, i), embedder, analyzer));
        const scope = { region: config.region, userId: randomUUID() };
        await store.load({ scope, kind: 'fact', expires: false, at: new Date(), agent: 'growth', client: 'growth/1', memories });
        loaded += 1;
        if (loaded % 10 === 0)
          process.stderr.write(`  loaded ${loaded} users x ${PER_USER} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
      }
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      if (!probe) throw new Error('no user');
      const user = probe;
      const remember: number[] = [];
      const recall: number[] = [];
      // Untimed warm-up, so that the first size does not pay for a cold process (JIT, caches).
      for (let w = 0; w < WARM_UP; w += 1) {
        extra += 1;
        await call(user, 'remember', { content: sentence(0, PER_USER + extra), kind: 'fact' });
        await call(user, 'recall', { query: `${TOPICS[w % TOPICS.length]} warm-up`, limit: 10 });
      }
      for (let s = 0; s < SAMPLES; s += 1) {
        extra += 1;
        remember.push(await timed(() => call(user, 'remember', { content: sentence(0, PER_USER + extra), kind: 'fact' })));
        const query = `${TOPICS[s % TOPICS.length]} in ${PLACES[s % PLACES.length]}`;
        recall.push(await timed(() => call(user, 'recall', { query, limit: 10 })));
      }
      rows.push({ users: size, remember: p50(remember), recall: p50(recall) });
      process.stderr.write(`measured at ${size} users\n`);
    }
  } finally {
    await probe?.close();
    await server.close();
    await container.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`| users x ${PER_USER} memories (no manual ANALYZE) | remember p50 (ms) | recall p50 (ms) |`);
  console.log('| --- | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.users} | ${r.remember.toFixed(2)} | ${r.recall.toFixed(2)} |`);
  const [first, last] = [rows[0], rows.at(-1)];
  if (first && last) {
    console.log(
      `ratio ${last.users}/${first.users} users: remember ${(last.remember / first.remember).toFixed(2)}, recall ${(last.recall / first.recall).toFixed(2)} (target: at most 1.2)`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
