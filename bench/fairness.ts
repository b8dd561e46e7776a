/**
 * `npm run bench:fairness [-- --seconds 6 --loops 8 --rounds 3 --interval 100 --only random,import]`: does one caller's
 * flood slow another key down? `naaba serve` runs in its own process over a fresh data folder, as a
 * user starts it. A victim key recalls over its own memories through the MCP SDK's client, one call
 * due every `--interval` ms; meanwhile a flood runs for a bounded time in each scenario, from `--loops`
 * connections that send again as soon as an answer (or a refusal) arrives. Each round measures
 * the victim alone and then beside each flood, side by side in one run; the victim's p50 beside a
 * flood is compared with its p50 alone over all rounds (on a shared machine, load moves both).
 * The import scenario sends one import of 745 KB at a time (issue 34). Issue 52 adds random tokens
 * from 20 loops, and the page's bulk actions from a third key with a partition of 5,000 facts
 * (imported before the server starts): pins and unpins of 100 ids from every loop, forgets of 100
 * ids from one; the table gives the victim's p95 against quiet as well as its p50. Nothing here
 * asserts a time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { runCli, startServeBinary } from '../test/support/cli.js';
import { call, connect } from '../test/support/endpoint.js';
import {
  BULK_NAMES,
  BULK_PARTITION,
  bulkFile,
  bulkFloods,
  type Flood,
  FLOODS,
  IMPORT_FLOOD,
  largeMemory,
  quantile,
} from './fairness-floods.js';

const options = parseOptions(process.argv.slice(2), ['seconds', 'loops', 'rounds', 'interval', 'only']);
const SECONDS = positiveInteger(options, 'seconds', 6);
const LOOPS = positiveInteger(options, 'loops', 8);
const ROUNDS = positiveInteger(options, 'rounds', 3);
/** The victim's pace: one recall due every this many milliseconds, an agent's pace or faster (a quiet recall takes about 10). */
const INTERVAL_MS = positiveInteger(options, 'interval', 100);

/** `--only random,import`: the loads whose names contain one of these words (all when absent); quiet always runs. */
const ONLY = options
  .get('only')
  ?.split(',')
  .filter((w) => w !== '');
const chosen = (name: string) => !ONLY || ONLY.some((w) => name.includes(w));
const LOADS = [...FLOODS, IMPORT_FLOOD].filter((f) => chosen(f.name));
/** The bulk loads run when chosen: they need a partition of 5,000 imported before the server starts. */
const BULK = Object.values(BULK_NAMES).some(chosen);
/**
 * With the bulk loads, facts may fill the bulk key's partition and its pins stay within the limit:
 * the default kinds otherwise.
 */
const BULK_RULES = JSON.stringify({
  kinds: {
    fact: { ceiling: BULK_PARTITION + 1_000 },
    preference: { ceiling: 200 },
    instruction: { ceiling: 100 },
    event: { ceiling: 500 },
    session: { ceiling: 100, ttl: '24h' },
  },
  pin_limit: 10_000,
});

interface Issued {
  readonly token: string;
}

async function issue(dir: string, name: string, env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(['issue-key', name, '--json', '--data', dir], env);
  if (result.code !== 0) throw new Error(`issue-key failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as Issued).token;
}

/** The victim's calls for `ms`: sequential recalls, each timed from request to parsed answer. */
/**
 * The victim's calls for `ms`: one recall every `INTERVAL_MS`, one at a time. Each call's time is
 * counted from when it was due, not from when it could be sent: a victim stalled behind a flood
 * sends less, and timing only what it managed to send would hide the stall (coordinated omission).
 */
async function victim(mcpUrl: string, token: string, ms: number): Promise<number[]> {
  const client = await connect(mcpUrl, token, { name: 'victim', version: '1' });
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i * INTERVAL_MS < ms; i += 1) {
    const due = start + i * INTERVAL_MS;
    const early = due - performance.now();
    if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
    const answer = await call(client, 'recall', { query: `the ferry to Ségou leaves at ${i % 24}h`, limit: 10 });
    if (answer.isError) throw new Error('the victim got a tool error');
    times.push(performance.now() - due);
  }
  await client.close();
  return times;
}

/** One flood: `LOOPS` connections sending for `ms`; counts answers by status. The bodies are drained, never parsed. */
async function flood(base: string, which: Flood, token: string, ms: number): Promise<Map<number, number>> {
  const loops = which.loops ?? LOOPS;
  const agent = new Agent({ keepAlive: true, maxSockets: loops });
  const statuses = new Map<number, number>();
  const deadline = Date.now() + ms;
  const send = (n: number) =>
    new Promise<void>((resolve) => {
      const { path, headers, body } = which.request(token, n);
      const url = new URL(path, base);
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers }, (res) => {
        statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => {
        statuses.set(-1, (statuses.get(-1) ?? 0) + 1);
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      for (let n = 0; Date.now() < deadline; n += 1) await send(loop * 1_000_000 + n);
    }),
  );
  agent.destroy();
  return statuses;
}

/** The status of one `tools/list` with `token`, sent `afterMs` from now. */
async function firstCallAfter(mcpUrl: string, token: string, afterMs: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.text();
  return response.status;
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => quantile(sorted(xs), 0.5);
const p95 = (xs: number[]) => quantile(sorted(xs), 0.95);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** The bulk key and its partition of 5,000 facts, imported while no server holds the folder (no rest between steps). */
async function seedBulk(dir: string, env: Record<string, string>): Promise<string> {
  process.stderr.write(`seeding: ${BULK_PARTITION} facts for the bulk key\n`);
  const token = await issue(dir, 'bulk', env);
  const file = join(dir, 'bulk.json');
  writeFileSync(file, bulkFile(BULK_PARTITION));
  const result = await runCli(['import', file, '--data', dir], { ...env, NAABA_KEY: token });
  if (result.code !== 0) throw new Error(`the bulk import failed: ${result.stderr}`);
  return token;
}

/** Every id of a key's memories, through the export's pages. */
async function idsOf(base: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const response = await fetch(`${base}/api/export/memories${query}`, { headers: { authorization: `Bearer ${token}` } });
    const page = (await response.json()) as { memories: { id: string }[]; nextCursor: string | null };
    ids.push(...page.memories.map((m) => m.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-fairness-'));
  const env: Record<string, string> = BULK ? { NAABA_CURATION: BULK_RULES } : {};
  const bulkToken = BULK ? await seedBulk(dir, env) : undefined;
  const server = await startServeBinary(['--data', dir, '--port', '0'], { NAABA_LOG_LEVEL: 'SILENT', ...env });
  try {
    const mcpUrl = `${server.url}/mcp`;
    const loads: Flood[] = [...LOADS];
    if (bulkToken) loads.push(...bulkFloods(await idsOf(server.url, bulkToken), bulkToken).filter((f) => chosen(f.name)));
    const floodToken = await issue(dir, 'flood');
    const victimToken = await issue(dir, 'victim');
    process.stderr.write('seeding: 100 memories of 8 KB for the flood key, 100 short ones for the victim\n');
    const seeder = await connect(mcpUrl, floodToken);
    for (let i = 0; i < 100; i += 1) await call(seeder, 'remember', { content: largeMemory(i), kind: 'fact' });
    await seeder.close();
    const owner = await connect(mcpUrl, victimToken);
    for (let i = 0; i < 100; i += 1) {
      await call(owner, 'remember', {
        content: `Note ${i}: the ferry to Ségou leaves at ${i % 24}h from quay ${i}.`,
        kind: 'fact',
      });
    }
    await owner.close();
    await victim(mcpUrl, victimToken, 2_000); // warm-up, not counted

    const times = new Map<string, number[]>();
    /** Status of a never-used key's first call, one second into each random-token flood. */
    const newcomers: number[] = [];
    const statuses = new Map<string, Map<number, number>>();
    const keep = (scenario: string, more: number[]) => times.set(scenario, [...(times.get(scenario) ?? []), ...more]);
    const load = () => loadavg()[0]?.toFixed(2) ?? '?';
    const loadBefore = load();
    for (let round = 1; round <= ROUNDS; round += 1) {
      process.stderr.write(`round ${round}: quiet\n`);
      keep('quiet', await victim(mcpUrl, victimToken, SECONDS * 1000));
      for (const which of loads) {
        process.stderr.write(`round ${round}: ${which.name}\n`);
        const newcomer = which.newKeyDuring ? await issue(dir, `newcomer ${round}`) : undefined;
        const [during, answered] = await Promise.all([
          victim(mcpUrl, victimToken, SECONDS * 1000),
          flood(server.url, which, floodToken, SECONDS * 1000),
          newcomer ? firstCallAfter(mcpUrl, newcomer, 1_000).then((s) => newcomers.push(s)) : undefined,
        ]);
        keep(which.name, during);
        const counts = statuses.get(which.name) ?? new Map<number, number>();
        for (const [status, n] of answered) counts.set(status, (counts.get(status) ?? 0) + n);
        statuses.set(which.name, counts);
      }
    }

    const quiet = median(times.get('quiet') ?? []);
    const quietP95 = p95(times.get('quiet') ?? []);
    const quietMean = mean(times.get('quiet') ?? []);
    console.log(
      `bench:fairness  ${LOOPS} flood connections, ${ROUNDS} rounds of ${SECONDS} s per scenario; the victim recalls (limit 10) one call at a time, one due every ${INTERVAL_MS} ms, timed from when it was due; load average ${loadBefore} before, ${load()} after`,
    );
    console.log(
      '| scenario | victim calls | victim p50 (ms) | victim p95 (ms) | victim mean (ms) | victim max (ms) | p50 / quiet p50 | p95 / quiet p95 | mean / quiet mean | flood answers by status |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const [scenario, samples] of times) {
      const counted = statuses.get(scenario);
      const answered = counted ? [...counted].map(([s, n]) => `${s === -1 ? 'reset' : s}: ${n}`).join(', ') : '';
      console.log(
        `| ${scenario} | ${samples.length} | ${median(samples).toFixed(1)} | ${p95(samples).toFixed(1)} | ${mean(samples).toFixed(1)} | ${Math.max(...samples).toFixed(0)} | ${(median(samples) / quiet).toFixed(2)} | ${(p95(samples) / quietP95).toFixed(2)} | ${(mean(samples) / quietMean).toFixed(2)} | ${answered} |`,
      );
    }
    console.log(`\na key never used before, its first call one second into each random-token flood: ${newcomers.join(', ')}`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
