/**
 * `npm run tune:cells -- [--size 5000] [--questions 150] [--embedder local|sentence]`: how much of
 * the exact vector arm an inverted-file index (cells) would keep, measured in memory before
 * building one (decision 0078). One partition of `size` LoCoMo turns (dev and held out, as
 * bench:partition fills it) is split into √size cells by k-means (centroids seeded with random
 * turns, three refinements); a query then reads only the turns of its `probes` nearest cells. For
 * each number of probes it prints the share of the partition read and how many of the exact 50
 * nearest (the arm's depth) and exact 10 nearest the probed cells still hold, and what recall
 * would return: hybrid recall_all@10 of the development split's questions over the same partition
 * (the lexical arm, fusion with the floor and the following memories as recall computes them, in
 * memory), the vector arm exact or reading only the probed cells. Deterministic: the seed is fixed.
 */
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { SentenceEmbedder } from '../lambda/adapters/local/sentence-embedder.js';
import { choice, parseOptions, positiveInteger } from '../test/eval/cli.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { loadLocomo } from './locomo-data.js';
import { dot, followingScores, fusedScores, LexicalReplica, best } from './replicas.js';
import { FUSION } from '../lambda/memory/policy/ranking.js';

const options = parseOptions(process.argv.slice(2), ['size', 'questions', 'embedder']);
const size = positiveInteger(options, 'size', 5000);
const asked = positiveInteger(options, 'questions', 150);
const embedder =
  choice(options, 'embedder', ['local', 'sentence'] as const, 'local') === 'sentence'
    ? new SentenceEmbedder()
    : new LocalEmbedder(256);

const development = loadLocomo(DEFAULT_DATA_DIR, 'dev');
const conversations = [...development, ...loadLocomo(DEFAULT_DATA_DIR, 'heldout')];
// A turn's id names its conversation and session, so that what follows it stays in its session.
const turns = conversations.flatMap((c) => c.turns.map((t) => ({ id: `${c.id}:${t.id}`, content: t.content })));
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
  const memories: { id: string; content: string }[] = [];
  for (let i = 0; i < size; i += 1) {
    const turn = turns[i % turns.length] ?? { id: '', content: '' };
    // Past the corpus, turns come again as fillers: never evidence, followed by nothing.
    const memory = i < turns.length ? turn : { id: `filler-${i}`, content: `${turn.content} (${i})` };
    memories.push(memory);
    vectors.push(await embedder.embed(memory.content));
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
  const queries = await Promise.all(picked.map((q) => embedder.embed(q)));
  const recalls = await hybridRecalls(memories, vectors, centroids, cellOf);
  console.log(
    `\n| cells probed | share of the partition read | exact 50 nearest kept | exact 10 nearest kept | hybrid recall_all@10, ${recalls.asked} dev questions |`,
  );
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  console.log(`| all (the exact arm) | 100.0 % | 100.0 % | 100.0 % | ${recalls.at(centroids.length)} |`);
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
    console.log(`| ${probes} | ${pct(read)} | ${pct(kept50)} | ${pct(kept10)} | ${recalls.at(probes)} |`);
  }
}

/**
 * Hybrid recall over the partition for the development questions whose evidence it holds: per
 * number of probes, the share of them with all their evidence among the first ten.
 */
async function hybridRecalls(
  memories: readonly { id: string; content: string }[],
  vectors: readonly number[][],
  centroids: readonly number[][],
  cellOf: readonly number[],
): Promise<{ asked: number; at: (probes: number) => string }> {
  const held = new Set(memories.map((m) => m.id));
  const lexical = new LexicalReplica(memories);
  const asked: { evidence: string[]; similarity: number[]; cells: number[]; lexical: string[] }[] = [];
  for (const c of development)
    for (const q of c.questions) {
      const evidence = q.evidence.map((e) => `${c.id}:${e}`);
      if (!evidence.every((e) => held.has(e))) continue;
      const v = await embedder.embed(q.text);
      const cells = centroids
        .map((centroid, i) => ({ i, s: dot(centroid, v) }))
        .sort((a, b) => b.s - a.s)
        .map((x) => x.i);
      asked.push({ evidence, similarity: vectors.map((m) => dot(m, v)), cells, lexical: lexical.search(q.text) });
    }
  return {
    asked: asked.length,
    at(probes) {
      const found = asked.filter((a) => {
        const probed = new Set(a.cells.slice(0, probes));
        const vector = memories
          .map((m, i) => ({ id: m.id, distance: 1 - (a.similarity[i] ?? 0), cell: cellOf[i] ?? -1 }))
          .filter((m) => probed.has(m.cell))
          .sort((x, y) => x.distance - y.distance || (x.id < y.id ? -1 : 1))
          .slice(0, FUSION.depth);
        const fused = fusedScores(vector, a.lexical, embedder.unrelatedBeyond);
        const top = best([...followingScores(fused, FUSION.followingShare, [1, 2])]).slice(0, 10);
        return a.evidence.every((e) => top.some(([id]) => id === e));
      });
      return `${((100 * found.length) / Math.max(asked.length, 1)).toFixed(1)} %`;
    },
  };
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
