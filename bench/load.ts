/**
 * `npm run bench:load [-- --clients 16 --seconds 20 --sizes 0,10000]`: N MCP clients (each its own
 * key) call the local endpoint as fast as they can for a bounded time — remember and recall
 * alternately — against `naaba serve --data` run by the real binary in a child process, once per
 * folder size: each folder is filled in bulk with that many memories of another user and closed
 * first, so the server sizes its shared buffers to it as a start does (decision 0155). Prints, per
 * size, calls per second, p50/p95 latency, errors (refusals by kind), the buffers the server chose,
 * and its resident memory (from /proc: idle before the load, after it, and the most it held).
 * Linux only (/proc).
 */
import { rmSync } from 'node:fs';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { startServeBinary } from '../test/support/cli.js';
import { call, connect } from '../test/support/endpoint.js';
import { bannerBuffers, filledFolder, statusMib } from './folders.js';

const options = parseOptions(process.argv.slice(2), ['clients', 'seconds', 'sizes']);
const CLIENTS = positiveInteger(options, 'clients', 16);
const SECONDS = positiveInteger(options, 'seconds', 20);
const SIZES = (options.get('sizes') ?? '0,10000').split(',').map(Number);
if (SIZES.some((s) => !Number.isInteger(s) || s < 0)) {
  console.error('--sizes is a comma-separated list of whole numbers of memories in the folder, e.g. 0,10000');
  process.exit(2);
}
/** How long the server sits idle after its start before the first reading. */
const SETTLE_MS = 5_000;
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

interface Run {
  readonly size: number;
  readonly buffers: string;
  readonly ok: number;
  readonly failed: number;
  readonly p50: number;
  readonly p95: number;
  readonly errors: ReadonlyMap<string, number>;
  readonly idleMib: number;
  readonly afterMib: number;
  readonly peakMib: number;
}

async function run(size: number): Promise<Run> {
  process.stderr.write(`  ${size} memories in the folder: filling, then ${CLIENTS} clients for ${SECONDS} s\n`);
  const folder = await filledFolder(
    'load',
    size,
    Array.from({ length: CLIENTS }, (_, c) => `load-${c}`),
  );
  try {
    const server = await startServeBinary(['--data', folder.dir, '--port', '0'], { NAABA_LOG_LEVEL: 'SILENT' });
    try {
      const pid = server.child.pid ?? 0;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const idleMib = statusMib(pid, 'VmRSS');
      const clients = await Promise.all(folder.tokens.map((token) => connect(`${server.url}/mcp`, token)));
      const times: number[] = [];
      const errors = new Map<string, number>();
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
      const sorted = [...times].sort((a, b) => a - b);
      return {
        size,
        buffers: bannerBuffers(server.output()),
        ok: times.length,
        failed: [...errors.values()].reduce((a, b) => a + b, 0),
        p50: quantile(sorted, 0.5),
        p95: quantile(sorted, 0.95),
        errors,
        idleMib,
        afterMib: statusMib(pid, 'VmRSS'),
        peakMib: statusMib(pid, 'VmHWM'),
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(folder.dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const runs: Run[] = [];
  for (const size of SIZES) runs.push(await run(size));
  console.log(`bench:load  naaba serve --data, ${CLIENTS} clients, ${SECONDS} s, remember and recall alternately`);
  console.log(
    '| memories in the folder | shared buffers | calls ok | failed | calls/s | p50 (ms) | p95 (ms) | resident idle | resident after | peak |',
  );
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of runs) {
    console.log(
      `| ${r.size.toLocaleString('en')} | ${r.buffers} | ${r.ok} | ${r.failed} | ${(r.ok / SECONDS).toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.idleMib.toFixed(0)} MiB | ${r.afterMib.toFixed(0)} MiB | ${r.peakMib.toFixed(0)} MiB |`,
    );
    for (const [kind, n] of r.errors) console.log(`  ${r.size}: ${n} x ${kind}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
