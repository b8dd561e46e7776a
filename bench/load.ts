/**
 * `npm run bench:load [-- --clients 16 --seconds 20]`: N MCP clients (each its own key) call the
 * local endpoint as fast as they can for a bounded time — remember and recall alternately — in a
 * data folder opened as `naaba serve` opens it. Prints calls per second, p50/p95 latency, errors
 * (refusals by kind), and the process's resident memory before and after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Container } from '../lambda/composition.js';
import { loadConfig } from '../lambda/config/env.js';
import { startLocalServer } from '../lambda/dev/server.js';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { call, connect } from '../test/support/endpoint.js';

const options = parseOptions(process.argv.slice(2), ['clients', 'seconds']);
const CLIENTS = positiveInteger(options, 'clients', 16);
const SECONDS = positiveInteger(options, 'seconds', 20);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-load-'));
  const config = loadConfig({ NAABA_DATA_DIR: dir, NAABA_LOG_LEVEL: 'SILENT' });
  const container = new Container(config);
  const server = await startLocalServer({ host: '127.0.0.1', port: 0, container });
  const rssBefore = process.memoryUsage().rss;
  const times: number[] = [];
  const errors = new Map<string, number>();
  try {
    const keys = await container.keys();
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) =>
        connect(`${server.url}/mcp`, (await keys.issue(`load-${c}`, config.region)).token),
      ),
    );
    const deadline = Date.now() + SECONDS * 1000;
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; Date.now() < deadline; i += 1) {
          const started = performance.now();
          try {
            const result =
              i % 2 === 0
                ? await call(client, 'remember', {
                    content: `Client ${c} note ${i}: the market in Kaya opens at ${i % 24}h.`,
                    kind: 'event',
                  })
                : await call(client, 'recall', { query: `market in Kaya at ${i % 24}h`, limit: 10 });
            if (result.isError) errors.set('tool error', (errors.get('tool error') ?? 0) + 1);
            else times.push(performance.now() - started);
          } catch (error) {
            const kind = (error as Error).message.slice(0, 60);
            errors.set(kind, (errors.get(kind) ?? 0) + 1);
          }
        }
      }),
    );
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await server.close();
    await container.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const sorted = [...times].sort((a, b) => a - b);
  const failed = [...errors.values()].reduce((a, b) => a + b, 0);
  console.log(`bench:load  ${CLIENTS} clients, ${SECONDS} s, remember and recall alternately`);
  console.log(`calls ok ${times.length}, failed ${failed}; ${(times.length / SECONDS).toFixed(0)} calls/s`);
  console.log(`latency p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p95 ${quantile(sorted, 0.95).toFixed(1)} ms`);
  for (const [kind, n] of errors) console.log(`  ${n} x ${kind}`);
  console.log(`resident memory: ${mib(rssBefore)} before, ${mib(process.memoryUsage().rss)} after`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
