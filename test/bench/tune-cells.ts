/**
 * `npm run tune:cells -- [--size 5000] [--questions 150] [--embedder local|sentence]`: how much of
 * the exact vector arm an inverted-file index (cells) would keep, measured in memory before
 * building one (decision 0078). One partition of `size` LoCoMo turns (dev and held out, as
 * bench:partition fills it) is split into √size cells by k-means (centroids seeded with random
 * turns, three refinements); a query then reads only the turns of its `probes` nearest cells. For
 * each number of probes it prints the share of the partition read and how many of the exact 50
 * nearest (the arm's depth) and exact 10 nearest the probed cells still hold. Deterministic: the
 * seed is fixed.
 */
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { SentenceEmbedder } from '../../lambda/adapters/local/sentence-embedder.js';
import { choice, parseOptions, positiveInteger } from '../eval/cli.js';
import { DEFAULT_DATA_DIR } from '../eval/data.js';
import { loadLocomo } from './locomo-data.js';
import { dot } from './replicas.js';

const options = parseOptions(process.argv.slice(2), ['size', 'questions', 'embedder']);
const size = positiveInteger(options, 'size', 5000);
const asked = positiveInteger(options, 'questions', 150);
const embedder =
  choice(options, 'embedder', ['local', 'sentence'] as const, 'local') === 'sentence'
    ? new SentenceEmbedder()
    : new LocalEmbedder(256);

const conversations = [...loadLocomo(DEFAULT_DATA_DIR, 'dev'), ...loadLocomo(DEFAULT_DATA_DIR, 'heldout')];
const turns = conversations.flatMap((c) => c.turns.map((t) => t.content));
const questions = conversations.flatMap((c) => c.questions.map((q) => q.text));
const picked = Array.from({ length: asked }, (_, i) => questions[Math.floor((i * questions.length) / asked)] ?? '');

/** A small deterministic generator (mulberry32), so every run seeds the same cells. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const nearest = (centroids: readonly number[][], v: readonly number[]) =>
  centroids.reduce((best, c, i) => (dot(c, v) > dot(centroids[best] ?? [], v) ? i : best), 0);

async function main(): Promise<void> {
  const started = Date.now();
  const vectors: number[][] = [];
  for (let i = 0; i < size; i += 1) {
    const content = turns[i % turns.length] ?? '';
    vectors.push(await embedder.embed(i < turns.length ? content : `${content} (${i})`));
    if ((i + 1) % 1000 === 0)
      process.stderr.write(`  ${i + 1} of ${size} turns embedded (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
  const cells = Math.round(Math.sqrt(size));
  const next = random(19);
  let centroids = Array.from({ length: cells }, () => [...(vectors[Math.floor(next() * size)] ?? [])]);
  let cellOf = vectors.map((v) => nearest(centroids, v));
  for (let round = 0; round < 3; round += 1) {
    centroids = centroids.map((old, c) => {
      const members = vectors.filter((_, i) => cellOf[i] === c);
      if (members.length === 0) return old;
      const mean = old.map((_, j) => members.reduce((sum, m) => sum + (m[j] ?? 0), 0) / members.length);
      const norm = Math.hypot(...mean) || 1;
      return mean.map((x) => x / norm);
    });
    cellOf = vectors.map((v) => nearest(centroids, v));
  }
  const counts = centroids.map((_, c) => cellOf.filter((x) => x === c).length);
  console.log(
    `tune:cells  ${embedder.name}  ${size} turns in one partition, ${cells} cells (smallest ${Math.min(...counts)}, largest ${Math.max(...counts)}), ${asked} LoCoMo questions`,
  );
  console.log('\n| cells probed | share of the partition read | exact 50 nearest kept | exact 10 nearest kept |');
  console.log('| ---: | ---: | ---: | ---: |');
  const queries = await Promise.all(picked.map((q) => embedder.embed(q)));
  for (const probes of [4, 8, 12, 16, 24, 32]) {
    let read = 0;
    let kept50 = 0;
    let kept10 = 0;
    for (const q of queries) {
      const exact = vectors
        .map((v, i) => ({ i, s: dot(v, q) }))
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .map((x) => x.i);
      const probed = new Set(
        centroids
          .map((c, i) => ({ i, s: dot(c, q) }))
          .sort((a, b) => b.s - a.s)
          .slice(0, probes)
          .map((x) => x.i),
      );
      read += cellOf.filter((c) => probed.has(c)).length / size;
      kept50 += exact.slice(0, 50).filter((i) => probed.has(cellOf[i] ?? -1)).length / 50;
      kept10 += exact.slice(0, 10).filter((i) => probed.has(cellOf[i] ?? -1)).length / 10;
    }
    const pct = (x: number) => `${((100 * x) / queries.length).toFixed(1)} %`;
    console.log(`| ${probes} | ${pct(read)} | ${pct(kept50)} | ${pct(kept10)} |`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
