/**
 * `npm run eval:updates -- [--store pglite|memory] [--embedder local|sentence]`: the figures of
 * updates.ts and each case that misses. Issue 47's targets (decision 0124): a look-alike above the
 * answer in at most 5 % of pairs, the newer first in at least 90 % of updates, every list entry
 * first for its own question; the earlier update pairs (issue 33) at least 90 %.
 */
import { choice, parseOptions, percent } from './cli.js';
import { answerFirst, EMBEDDERS, newerFirst, type PairRanks, rankLookalikes, rankUpdates } from './updates.js';

const place = (n: number) => (n < 0 ? 'absent' : String(n + 1));
const misses = (label: string, ranks: readonly PairRanks[], ok: (r: PairRanks) => boolean) => {
  for (const r of ranks.filter((x) => !ok(x))) {
    console.log(`  ${label} miss ${r.pair.id}: newer at ${place(r.newer)}, older at ${place(r.older)}`);
  }
};

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2), ['store', 'embedder']);
  const store = choice(options, 'store', ['pglite', 'memory'] as const, 'pglite');
  const embedder = choice(options, 'embedder', EMBEDDERS, 'local');
  const head = `eval:updates  store=${store}  embedder=${embedder}`;

  const earlier = await rankUpdates(store, embedder);
  const won = earlier.filter(newerFirst).length;
  console.log(`${head}  earlier update pairs: newer above older ${percent(won, earlier.length)}`);
  misses('earlier update', earlier, newerFirst);

  const set = await rankLookalikes(store, embedder);
  const lost = set.lookalikes.filter((r) => !answerFirst(r)).length;
  const updated = set.updates.filter(newerFirst).length;
  const own = set.entries.filter((e) => e.place === 0).length;
  console.log(`${head}  look-alike above the answer ${percent(lost, set.lookalikes.length)}, target at most 5 %`);
  console.log(`${head}  updates, newer first ${percent(updated, set.updates.length)}, target at least 90 %`);
  console.log(`${head}  list entries first for their own question ${percent(own, set.entries.length)}, target all`);
  misses('look-alike', set.lookalikes, answerFirst);
  misses('update', set.updates, newerFirst);
  for (const e of set.entries.filter((x) => x.place !== 0))
    console.log(`  list miss ${e.list}#${e.entry + 1}: at ${place(e.place)}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
