/**
 * `npm run bench:growth -- [--per-user 500] [--sizes 1,10,100] [--samples 100] [--warm-up 20]`: does
 * one user's remember and recall get slower as *other* users' data grows, on the local engine with
 * no manual ANALYZE? One data folder per size, each served by its own `naaba serve` (a child
 * process: the endpoint's handlers are one per process), so each engine keeps its own statistics,
 * all running side by side. Every folder holds `size` users of `per-user` `fact` memories, loaded in bulk through the
 * store (`TransferStore.load`: the same rows, postings and statistics a remember writes, one
 * statement per user); its first user is the measured one, at the ceiling. Then, through each
 * endpoint, remembers (each evicts one: the user stays at the ceiling) and recalls of the measured
 * user, the sizes taken in turn sample by sample, the order rotating, so that the machine's load
 * changes fall on every size alike. Prints progress and partial medians as it goes, then p50 per
 * size and the ratios of each size to the smallest.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { Container } from '../lambda/composition.js';
import { loadConfig } from '../lambda/config/env.js';
import type { LoadPlan } from '../lambda/ports/transfer-store.js';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { type ServeProcess, startServeBinary } from '../test/support/cli.js';
import { call, connect } from '../test/support/endpoint.js';
import { loadable } from './loadable.js';

const options = parseOptions(process.argv.slice(2), ['per-user', 'sizes', 'samples', 'warm-up']);
const PER_USER = positiveInteger(options, 'per-user', 500);
const SAMPLES = positiveInteger(options, 'samples', 100);
const WARM_UP = positiveInteger(options, 'warm-up', 20);
const SIZES = [...new Set((options.get('sizes') ?? '1,10,100').split(',').map(Number))].sort((a, b) => a - b);
if (SIZES.some((s) => !Number.isInteger(s) || s < 1)) {
  console.error('--sizes is a comma-separated list of positive whole numbers of users, e.g. 1,10,100');
  process.exit(2);
}
/** Each engine checks its statistics every 10 s (lambda/composition.ts): measure after one period, as a running server would be. */
const SETTLE_MS = 11_000;

const TOPICS = ['river', 'market', 'school', 'harvest', 'clinic', 'bus', 'rain', 'music', 'tea', 'bread', 'bank', 'phone'];
const PLACES = ['Ouagadougou', 'Koudougou', 'Banfora', 'Kaya', 'Dori', 'Fada', 'Gaoua', 'Tenkodogo'];
const sentence = (u: number, i: number) =>
  `User ${u} note ${i}: the ${TOPICS[i % TOPICS.length]} in ${PLACES[(u + i) % PLACES.length]} matters on day ${(i * 7) % 31}.`;

const p50 = (times: readonly number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** One size: its own data folder, seeded here, then its own `naaba serve`, and the measured user's client. */
interface Database {
  readonly users: number;
  readonly dir: string;
  readonly container: Container;
  server?: ServeProcess;
  /** The measured user, whose key the client holds. */
  readonly measured: string;
  readonly token: string;
  client?: Client;
  readonly remember: number[];
  readonly recall: number[];
}

async function open(users: number): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), `naaba-growth-${users}-`));
  const config = loadConfig({ NAABA_DATA_DIR: dir, NAABA_LOG_LEVEL: 'SILENT' });
  const container = new Container(config);
  // The memory's services record which embedder and analyzer index the folder, as a server's start does.
  await container.memory();
  const key = await (await container.keys()).issue('growth-measured', config.region);
  return { users, dir, container, measured: key.userId, token: key.token, remember: [], recall: [] };
}

async function close(db: Database): Promise<void> {
  await db.client?.close();
  await db.server?.stop();
  await db.container.close();
  rmSync(db.dir, { recursive: true, force: true });
}

/**
 * Loads every folder in bulk: user u's memories are embedded once and loaded into each folder that
 * holds at least u + 1 users (under that folder's own user ids; user 0 is the measured one).
 */
async function seed(databases: readonly Database[]): Promise<void> {
  const [first] = databases;
  if (!first) return;
  const region = first.container.config.region;
  const [embedder, analyzer] = [await first.container.embedder(), first.container.analyzer];
  const stores = await Promise.all(databases.map(async (db) => sqlMemoryStores(await db.container.sql()).transfer));
  const most = Math.max(...databases.map((db) => db.users));
  const started = Date.now();
  for (let u = 0; u < most; u += 1) {
    const memories: LoadPlan['memories'][number][] = [];
    for (let i = 0; i < PER_USER; i += 1) memories.push(await loadable(sentence(u, i), embedder, analyzer));
    for (const [d, db] of databases.entries()) {
      if (u >= db.users) continue;
      const userId = u === 0 ? db.measured : randomUUID();
      const plan = { kind: 'fact', expires: false, at: new Date(), agent: 'growth', client: 'growth/1' };
      await stores[d]?.load({ ...plan, scope: { region, userId }, memories });
    }
    if ((u + 1) % 10 === 0 || u + 1 === most)
      process.stderr.write(`  seeded ${u + 1} of ${most} users x ${PER_USER} memories (${seconds(started)})\n`);
  }
  // Each folder is handed to its own server, and the measured user connects to it as an agent does.
  for (const db of databases) {
    await db.container.close();
    db.server = await startServeBinary(['--data', db.dir, '--port', '0'], { NAABA_LOG_LEVEL: 'SILENT' });
    db.client = await connect(`${db.server.url}/mcp`, db.token);
  }
}

function partial(databases: readonly Database[], done: number): string {
  const [smallest] = databases;
  const ratio = (pick: (db: Database) => number[]) =>
    databases
      .slice(1)
      .map((db) => `${db.users}/${smallest?.users}: ${(p50(pick(db)) / p50(smallest ? pick(smallest) : [])).toFixed(2)}`)
      .join(', ');
  const medians = databases.map((db) => `${db.users}: ${p50(db.remember).toFixed(1)} / ${p50(db.recall).toFixed(1)}`).join(' · ');
  return `  ${done} of ${SAMPLES} samples · p50 ms remember / recall at ${medians} · ratio remember ${ratio((db) => db.remember)}; recall ${ratio((db) => db.recall)}\n`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const databases: Database[] = [];
  try {
    for (const users of SIZES) databases.push(await open(users));
    process.stderr.write(`bench:growth: ${SIZES.length} data folders side by side (${SIZES.join(', ')} users x ${PER_USER})\n`);
    await seed(databases);
    process.stderr.write(`  waiting ${SETTLE_MS / 1000} s for each engine's statistics check\n`);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    let extra = 0;
    for (let s = 0; s < WARM_UP + SAMPLES; s += 1) {
      for (let j = 0; j < databases.length; j += 1) {
        const db = databases[(s + j) % databases.length];
        const client = db?.client;
        if (!db || !client) continue;
        extra += 1;
        const content = sentence(0, PER_USER + extra);
        const query = `${TOPICS[s % TOPICS.length]} in ${PLACES[s % PLACES.length]}`;
        const remember = await timed(() => call(client, 'remember', { content, kind: 'fact' }));
        const recall = await timed(() => call(client, 'recall', { query, limit: 10 }));
        // The first rounds are an untimed warm-up (JIT, caches), on every size alike.
        if (s < WARM_UP) continue;
        db.remember.push(remember);
        db.recall.push(recall);
      }
      const done = s + 1 - WARM_UP;
      if (done > 0 && (done % Math.max(1, Math.floor(SAMPLES / 5)) === 0 || done === SAMPLES))
        process.stderr.write(partial(databases, done));
    }
  } finally {
    for (const db of databases) await close(db);
  }
  console.log(
    `bench:growth  ${SIZES.join(', ')} users x ${PER_USER} fact memories, one data folder each, ${SAMPLES} samples interleaved, ${seconds(started)} in all`,
  );
  console.log(`| users x ${PER_USER} memories (no manual ANALYZE) | remember p50 (ms) | recall p50 (ms) |`);
  console.log('| --- | ---: | ---: |');
  for (const db of databases) console.log(`| ${db.users} | ${p50(db.remember).toFixed(2)} | ${p50(db.recall).toFixed(2)} |`);
  const [first] = databases;
  for (const db of databases.slice(1)) {
    if (!first) break;
    console.log(
      `ratio ${db.users}/${first.users} users: remember ${(p50(db.remember) / p50(first.remember)).toFixed(2)}, recall ${(p50(db.recall) / p50(first.recall)).toFixed(2)} (target: at most 1.2)`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
