/**
 * `npm run eval:distance [-- --split dev|heldout]`: why naaba asks a judge instead of using a
 * distance threshold. For the configured embedder: cosine distances of same-claim, contradicting,
 * merely related and unrelated SICK pairs, and the best false-merge rate any single threshold reaches.
 */
import { environment, loadConfig } from '../../lambda/config/env.js';
import type { Embedder } from '../../lambda/ports/embedder.js';
import { makeEmbedder } from '../../lambda/providers.js';
import { choice, EvalUsageError, parseOptions, pool, Progress, positiveInteger } from './cli.js';
import { DEFAULT_DATA_DIR, loadSick, type Pair, type SickLabel } from './data.js';
import { bestThreshold, cosineDistance, quantile, seededRandom, shuffled } from './distance-stats.js';

const QUANTILES = [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1] as const;

async function embedAll(embedder: Embedder, texts: readonly string[], concurrency: number): Promise<Map<string, number[]>> {
  const unique = [...new Set(texts)];
  const progress = new Progress('embedding SICK sentences', unique.length);
  const vectors = new Map<string, number[]>();
  await pool(unique, concurrency, async (text) => {
    vectors.set(text, await embedder.embed(text));
    progress.update(vectors.size);
  });
  return vectors;
}

/** Sentence A of each pair with sentence B of another pair, after a seeded shuffle: unrelated claims. */
function unrelatedPairs(pairs: readonly Pair<SickLabel>[]): [string, string][] {
  const others = shuffled(pairs, seededRandom(20140823));
  return pairs.flatMap((pair, i) => {
    const other = others[i];
    return other && other.id !== pair.id && other.b !== pair.a && other.b !== pair.b
      ? [[pair.a, other.b] as [string, string]]
      : [];
  });
}

const fmt = (v: number) => v.toFixed(3);
const pct = (v: number) => `${(100 * v).toFixed(1)} %`;

function printGroups(groups: [string, number[]][]): void {
  console.log(
    `  ${'group'.padEnd(26)}${'pairs'.padStart(7)}${['min', 'p10', 'p25', 'p50', 'p75', 'p90', 'max'].map((h) => h.padStart(8)).join('')}`,
  );
  for (const [name, values] of groups) {
    console.log(
      `  ${name.padEnd(26)}${String(values.length).padStart(7)}${QUANTILES.map((q) => fmt(quantile(values, q)).padStart(8)).join('')}`,
    );
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const options = parseOptions(argv, ['split', 'data', 'concurrency']);
  const split = choice(options, 'split', ['dev', 'heldout'], 'dev');
  const dataDir = options.get('data') ?? DEFAULT_DATA_DIR;
  const config = loadConfig(environment());
  const embedder = await makeEmbedder(config);
  const concurrency = positiveInteger(options, 'concurrency', config.embedder.provider === 'local' ? 16 : 4);
  const pairs = loadSick(dataDir, split);
  const unrelated = unrelatedPairs(pairs);
  const vectors = await embedAll(embedder, [...pairs.flatMap((p) => [p.a, p.b]), ...unrelated.flat()], concurrency);
  const distance = (a: string, b: string) => cosineDistance(vectors.get(a) ?? [], vectors.get(b) ?? []);
  const of = (label: SickLabel) =>
    pairs
      .filter((p) => p.label === label)
      .map((p) => distance(p.a, p.b))
      .sort((x, y) => x - y);
  const same = of('same');
  const contradiction = of('contradiction');
  const different = of('different');
  const random = unrelated.map(([a, b]) => distance(a, b)).sort((x, y) => x - y);
  const notSame = [...contradiction, ...different].sort((x, y) => x - y);

  console.log(`eval:distance  embedder=${embedder.name}  split=${split}  (SICK, cosine distance = 1 - cosine similarity)`);
  printGroups([
    ['same claim (e/e)', same],
    ['contradiction', contradiction],
    ['different, related', different],
    ['unrelated (shuffled)', random],
  ]);
  const medianSame = quantile(same, 0.5);
  const closer = (values: number[]) => pct(values.filter((v) => v <= medianSame).length / values.length);
  console.log(
    `\n  at or below the median same-claim distance (${fmt(medianSame)}): contradictions ${closer(contradiction)}, related ${closer(different)}, unrelated ${closer(random)}`,
  );
  console.log('\n  single threshold "merge when distance <= t", best t for each merge recall:');
  console.log(
    `  ${'merge recall >='.padEnd(18)}${'t'.padStart(8)}${'false-merge rate'.padStart(19)}${'contradictions merged'.padStart(24)}`,
  );
  for (const target of [0.25, 0.5, 0.75, 0.9]) {
    const r = bestThreshold(same, notSame, contradiction, target);
    console.log(
      `  ${pct(target).padEnd(18)}${fmt(r.threshold).padStart(8)}${pct(r.falseMerge).padStart(19)}${pct(r.contradictionsMerged).padStart(24)}`,
    );
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const usage =
    error instanceof EvalUsageError
      ? '\nusage: npm run eval:distance -- [--split dev|heldout] [--concurrency N] [--data DIR]'
      : '';
  console.error(`eval:distance: ${(error as Error).message}${usage}`);
  process.exitCode = 1;
});
