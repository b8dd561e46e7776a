/**
 * `npm run bench:import-resume [-- --memories 2000 --call-seconds 6]`: what a resumed import costs
 * (issue 52, decision 0147). The local endpoint over a fresh PGlite, as `naaba serve` runs it (a
 * rest three times each step's length after it); a file of `--memories` memories of about 300
 * bytes, sent to `/api/import` again and again until it is complete, from 0 %, 50 % and 90 % of it
 * already there (written by an import of that part first, not timed). Prints per start: calls,
 * memories written, milliseconds per memory written, and the median and longest call. Nothing here
 * asserts a time.
 */
import { loadavg } from 'node:os';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { startTestEndpoint } from '../test/support/endpoint.js';
import { exportDocument, exportedMemory } from '../test/support/export-file.js';
import { quantile } from './fairness-floods.js';

const options = parseOptions(process.argv.slice(2), ['memories', 'call-seconds']);
const MEMORIES = positiveInteger(options, 'memories', 2_000);
const CALL_SECONDS = positiveInteger(options, 'call-seconds', 6);
const STARTS = [0, 50, 90] as const;

/** A sentence of about 120 bytes, different for each `i`: 2,000 of them fit in the 1 MiB an import call takes. */
function content(i: number): string {
  const words = ['harbour', 'ledger', 'walnut', 'signal', 'copper', 'meadow', 'lantern', 'orbit', 'quarry', 'velvet'];
  const parts = Array.from({ length: 14 }, (_, w) => `${words[(i + w) % words.length]}${(i * 37 + w) % 1009}`);
  return `Note ${i}: ${parts.join(' ')}.`;
}

/** An export file of `n` facts made a second apart, the order its steps write them in. */
function exportFile(n: number, now: number) {
  const memories = Array.from({ length: n }, (_, i) =>
    exportedMemory(content(i), new Date(now - (n - i) * 1_000).toISOString(), 'bench/1'),
  );
  return exportDocument(memories, new Date(now).toISOString());
}

interface Imported {
  readonly written: number;
  readonly alreadyPresent: number;
  readonly complete: boolean;
}

const endpoint = await startTestEndpoint({
  env: {
    NAABA_CURATION: JSON.stringify({ kinds: { fact: { ceiling: MEMORIES + 100 } } }),
    NAABA_IMPORT_CALL_SECONDS: String(CALL_SECONDS),
  },
});

/** Sends the file until the import is complete; each call's time and what it wrote. */
async function importAll(token: string, file: unknown): Promise<{ ms: number; written: number }[]> {
  const body = JSON.stringify(file);
  const calls: { ms: number; written: number }[] = [];
  for (let complete = false; !complete; ) {
    const started = performance.now();
    const response = await fetch(`${endpoint.url}/api/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    const answer = (await response.json()) as { imported?: Imported; error?: string };
    if (!answer.imported) throw new Error(`the import was refused (${response.status}): ${answer.error}`);
    calls.push({ ms: performance.now() - started, written: answer.imported.written });
    complete = answer.imported.complete;
  }
  return calls;
}

try {
  const file = exportFile(MEMORIES, Date.now() - 60_000);
  console.log(
    `bench:import-resume: ${MEMORIES} memories (${Math.round(JSON.stringify(file).length / 1024)} KB), a call starts no step after ${CALL_SECONDS} s; load ${loadavg()[0]?.toFixed(1)}`,
  );
  console.log('present at start | calls | written | ms per memory written | median call ms | longest call ms');
  for (const percent of STARTS) {
    const { token } = await endpoint.issueKey(`resume-${percent}`);
    const there = Math.round((MEMORIES * percent) / 100);
    if (there > 0) await importAll(token, { ...file, memories: file.memories.slice(0, there) });
    const calls = await importAll(token, file);
    const written = calls.reduce((n, c) => n + c.written, 0);
    const total = calls.reduce((ms, c) => ms + c.ms, 0);
    const times = calls.map((c) => c.ms);
    console.log(
      `${String(percent).padStart(3)} % (${there}) | ${calls.length} | ${written} | ${(total / Math.max(written, 1)).toFixed(1)} | ${quantile(
        [...times].sort((a, b) => a - b),
        0.5,
      ).toFixed(0)} | ${Math.max(...times).toFixed(0)}`,
    );
  }
  console.log(`load at the end ${loadavg()[0]?.toFixed(1)}`);
} finally {
  await endpoint.close();
}
