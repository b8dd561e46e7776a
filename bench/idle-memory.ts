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
import { rmSync } from 'node:fs';
import { parseOptions, positiveInteger } from '../test/eval/cli.js';
import { startServeBinary } from '../test/support/cli.js';
import { bannerBuffers, filledFolder, statusMib } from './folders.js';

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
interface Measured {
  readonly size: number;
  readonly buffers: string;
  readonly idleMib: number;
  readonly peakMib: number;
}

async function measure(size: number): Promise<Measured> {
  const { dir } = await filledFolder('idle', size);
  try {
    const server = await startServeBinary(['--data', dir, '--port', '0'], { NAABA_LOG_LEVEL: 'SILENT' });
    try {
      const pid = server.child.pid ?? 0;
      await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
      return {
        size,
        buffers: bannerBuffers(server.output()),
        idleMib: statusMib(pid, 'VmRSS'),
        peakMib: statusMib(pid, 'VmHWM'),
      };
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
