/**
 * Data folders as `naaba serve` finds them, for the benches that measure the server on one: filled
 * in bulk with short facts of one user, closed, then served by the real binary in a child process
 * (`startServeBinary`), which sizes its shared buffers to what the folder holds (decision 0155).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { Container } from '../lambda/composition.js';
import { loadConfig } from '../lambda/config/env.js';
import type { LoadPlan } from '../lambda/ports/transfer-store.js';
import { loadable } from './loadable.js';

/** Memories loaded per statement. */
const BATCH = 500;

const TOPICS = ['river', 'market', 'school', 'harvest', 'clinic', 'bus', 'rain', 'music', 'tea', 'bread', 'bank', 'phone'];
const PLACES = ['Ouagadougou', 'Koudougou', 'Banfora', 'Kaya', 'Dori', 'Fada', 'Gaoua', 'Tenkodogo'];
const sentence = (i: number) =>
  `Note ${i}: the ${TOPICS[i % TOPICS.length]} in ${PLACES[i % PLACES.length]} matters on day ${(i * 7) % 31}, item ${i * 13}.`;

/** A line of /proc/PID/status (`VmRSS`: resident now; `VmHWM`: the most it held), in MiB. Linux only. */
export function statusMib(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) / 1024;
}

/** The shared buffers a served folder's start banner names (`16 MB`, …), or `?`. */
export const bannerBuffers = (output: string): string => /shared buffers: ([^\n(]*)/.exec(output)?.[1]?.trim() ?? '?';

export interface FilledFolder {
  readonly dir: string;
  /** Tokens of the keys issued in it, one per name asked for, in order. */
  readonly tokens: readonly string[];
}

/**
 * A new data folder holding `size` memories of one user, loaded in bulk, with a key issued for each
 * of `keys` (other users), then closed. With no memories and no keys the folder is left empty, for
 * the server's own first start to create.
 */
export async function filledFolder(prefix: string, size: number, keys: readonly string[] = []): Promise<FilledFolder> {
  const dir = mkdtempSync(join(tmpdir(), `naaba-${prefix}-${size}-`));
  if (size === 0 && keys.length === 0) return { dir, tokens: [] };
  const container = new Container(loadConfig({ NAABA_DATA_DIR: dir, NAABA_LOG_LEVEL: 'SILENT' }));
  try {
    await container.memory();
    const region = container.config.region;
    const issuer = await container.keys();
    const tokens: string[] = [];
    for (const name of keys) tokens.push((await issuer.issue(name, region)).token);
    if (size > 0) {
      const userId = (await issuer.issue(`${prefix}-folder`, region)).userId;
      const [embedder, analyzer] = [await container.embedder(), container.analyzer];
      const transfer = sqlMemoryStores(await container.sql()).transfer;
      for (let from = 0; from < size; from += BATCH) {
        const memories: LoadPlan['memories'][number][] = [];
        for (let i = from; i < Math.min(size, from + BATCH); i += 1)
          memories.push(await loadable(sentence(i), embedder, analyzer));
        const plan = { kind: 'fact', expires: false, at: new Date(), agent: prefix, client: `${prefix}/1` };
        await transfer.load({ ...plan, scope: { region, userId }, memories });
      }
    }
    return { dir, tokens };
  } finally {
    await container.close();
  }
}
