/**
 * `npm run bench:idle [-- --sizes 0,1000,10000 --idle 20]`: the resident memory of an idle `naaba
 * serve --data` by the size of its folder (decision 0155). Each size gets its own data folder, filled
 * in bulk here (`TransferStore.load`, one user) and closed, then served by the real binary in a child
 * process, which opens it with the shared buffers its data calls for; the empty folder is created by
 * the server's start (through a separate `naaba migrate`), as a first start does. After `--idle` seconds with no call, it reads the child's
 * VmRSS (resident now) and VmHWM (the most it held, at start) from /proc. Checks that an idle server
 * on a folder of at most 1,000 memories holds at most 300 MiB, and exits non-zero when one does not.
 * Linux only (/proc).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { Container } from '../lambda/composition.js';
import { loadConfig } from '../lambda/config/env.js';
import type { LoadPlan } from '../lambda/ports/transfer-store.js';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { startServeBinary } from '../test/support/cli.js';
import { loadable } from './loadable.js';

const options = parseOptions(process.argv.slice(2), ['sizes', 'idle']);
const SIZES = (options.get('sizes') ?? '0,1000,10000').split(',').map(Number);
if (SIZES.some((s) => !Number.isInteger(s) || s < 0)) {
  console.error('--sizes is a comma-separated list of whole numbers of memories, e.g. 0,1000,10000');
  process.exit(2);
}
const IDLE_SECONDS = positiveInteger(options, 'idle', 20);
/** Issue 51: an idle server on an empty or small folder holds at most this much. */
const LIMIT_MIB = 300;
const SMALL = 1_000;
/** Memories loaded per statement. */
const BATCH = 500;

const TOPICS = ['river', 'market', 'school', 'harvest', 'clinic', 'bus', 'rain', 'music', 'tea', 'bread', 'bank', 'phone'];
const PLACES = ['Ouagadougou', 'Koudougou', 'Banfora', 'Kaya', 'Dori', 'Fada', 'Gaoua', 'Tenkodogo'];
const sentence = (i: number) =>
  `Note ${i}: the ${TOPICS[i % TOPICS.length]} in ${PLACES[i % PLACES.length]} matters on day ${(i * 7) % 31}, item ${i * 13}.`;

/** A line of /proc/PID/status in MiB. */
function statusMib(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) / 1024;
}

/** A data folder holding `size` memories of one user, loaded in bulk and closed; an empty folder is left for the server to create. */
async function filled(size: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `naaba-idle-${size}-`));
  if (size === 0) return dir;
  const container = new Container(loadConfig({ NAABA_DATA_DIR: dir, NAABA_LOG_LEVEL: 'SILENT' }));
  try {
    await container.memory();
    const region = container.config.region;
    const userId = (await (await container.keys()).issue('idle-memory', region)).userId;
    const [embedder, analyzer] = [await container.embedder(), container.analyzer];
    const transfer = sqlMemoryStores(await container.sql()).transfer;
    for (let from = 0; from < size; from += BATCH) {
      const memories: LoadPlan['memories'][number][] = [];
      for (let i = from; i < Math.min(size, from + BATCH); i += 1) memories.push(await loadable(sentence(i), embedder, analyzer));
      const plan = { kind: 'fact', expires: false, at: new Date(), agent: 'idle', client: 'idle/1' };
      await transfer.load({ ...plan, scope: { region, userId }, memories });
    }
  } finally {
    await container.close();
  }
  return dir;
}

interface Measured {
  readonly size: number;
  readonly buffers: string;
  readonly idleMib: number;
  readonly peakMib: number;
}

async function measure(size: number): Promise<Measured> {
  const dir = await filled(size);
  try {
    const server = await startServeBinary(['--data', dir, '--port', '0'], { NAABA_LOG_LEVEL: 'SILENT' });
    try {
      const pid = server.child.pid ?? 0;
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      const buffers = /shared buffers: ([^\n(]*)/.exec(server.output())?.[1]?.trim() ?? '?';
      return { size, buffers, idleMib: statusMib(pid, 'VmRSS'), peakMib: statusMib(pid, 'VmHWM') };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results: Measured[] = [];
  for (const size of SIZES) {
    process.stderr.write(`  ${size} memories: filling, then serving ${IDLE_SECONDS} s idle\n`);
    results.push(await measure(size));
  }
  console.log(`bench:idle  naaba serve --data, idle ${IDLE_SECONDS} s`);
  console.log('| memories in the folder | shared buffers | resident when idle | peak at start |');
  console.log('| ---: | --- | ---: | ---: |');
  for (const r of results)
    console.log(`| ${r.size.toLocaleString('en')} | ${r.buffers} | ${r.idleMib.toFixed(0)} MiB | ${r.peakMib.toFixed(0)} MiB |`);
  const over = results.filter((r) => r.size <= SMALL && r.idleMib > LIMIT_MIB);
  console.log(
    `check: idle at most ${LIMIT_MIB} MiB on folders of at most ${SMALL.toLocaleString('en')} memories: ${over.length === 0 ? 'holds' : `fails (${over.map((r) => r.size).join(', ')})`}`,
  );
  if (over.length > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
