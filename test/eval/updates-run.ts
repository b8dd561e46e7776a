/** `npm run eval:updates -- [--store pglite|memory]`: the figure of updates.ts and each pair that misses. */
import { choice, parseOptions } from './cli.js';
import { newerFirst, rankUpdates } from './updates.js';

async function main(): Promise<void> {
  const store = choice(parseOptions(process.argv.slice(2), ['store']), 'store', ['pglite', 'memory'] as const, 'pglite');
  const ranks = await rankUpdates(store);
  const won = ranks.filter(newerFirst).length;
  console.log(
    `eval:updates  store=${store}  pairs=${ranks.length}  newer above older: ${won} of ${ranks.length} (${((100 * won) / ranks.length).toFixed(1)} %)`,
  );
  const place = (n: number) => (n < 0 ? 'absent' : String(n + 1));
  for (const r of ranks.filter((x) => !newerFirst(x))) {
    console.log(`  miss ${r.pair.id}: newer at ${place(r.newer)}, older at ${place(r.older)}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
