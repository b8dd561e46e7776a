/**
 * `npm run tune:length`: the tuning behind decision 0057, reproducible. In memory (no database),
 * over the LoCoMo development split only, with short memories (one turn each) and long ones
 * (`--turns-per-memory` consecutive turns each): the lexical arm's replica (the neutral analyzer's
 * terms with their frequencies, a memory's length the sum of them, the very common terms left
 * out, as `recallSql` scores) for a grid of term-frequency saturation k1 and length normalisation
 * b, against plain BM25 over the same memories. `npm run bench:locomo` measures the chosen
 * setting through the real endpoint; held-out data is never used to choose (../shared/README.md).
 */
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { LEXICAL, type LexicalScoring } from '../lambda/memory/policy/ranking.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { Bm25 } from './bm25.js';
import { type Conversation, loadLocomo, parseTurnsPerMemory } from './locomo-data.js';
import { fuse, LexicalReplica, VectorReplica } from './replicas.js';

function allAt10(conversations: readonly Conversation[], rank: (c: number, query: string) => string[]): string {
  let hits = 0;
  let n = 0;
  conversations.forEach((c, i) => {
    for (const q of c.questions) {
      const top = new Set(rank(i, q.text).slice(0, 10));
      hits += Number(q.evidence.every((e) => top.has(e)));
      n += 1;
    }
  });
  return `${((100 * hits) / n).toFixed(1)}`;
}

const K1 = [0, 0.3, 0.6, 0.9, 1.2, 2];
const B = [0, 0.25, 0.5, 0.75, 1];
const DEFAULT_SIZES = ['1', '5', '1-10', '1-20'];
const HALF = [25, 50, 100, 200, 400];
const SHORT = [0, 50];
const SCALED: [number, number][] = [
  [0.9, 0.5],
  [1.2, 0.5],
  [1.2, 0.75],
];
const HYBRID: [number, number][] = [
  [0, 0],
  [0.3, 0],
  [0.3, 0.25],
  [0.6, 0.25],
  [0.6, 0.5],
  [0.9, 0.5],
  [1.2, 0.75],
];

/** k1 and b as given, whatever the memories' length (no short length and a half length of 0 scale by 1). */
const fixed = (k1: number, b: number): LexicalScoring => ({ ...LEXICAL, k1, b, shortLength: 0, halfLength: 0 });
const scaled = (k1: number, b: number, shortLength: number, halfLength: number): LexicalScoring => ({
  ...LEXICAL,
  k1,
  b,
  shortLength,
  halfLength,
});

async function main(): Promise<void> {
  const embedder = new LocalEmbedder(256);
  const sizes = process.argv.slice(2).filter((a) => a !== '--');
  for (const size of sizes.length > 0 ? sizes : DEFAULT_SIZES) {
    const per = parseTurnsPerMemory(size);
    if (!per) throw new Error(`turns per memory must be N or MIN-MAX, not ${size}`);
    const conversations = loadLocomo(DEFAULT_DATA_DIR, 'dev', per);
    const memories = conversations.reduce((n, c) => n + c.turns.length, 0);
    const lexical = conversations.map((c) => new LexicalReplica(c.turns));
    const bm25 = conversations.map((c) => new Bm25(c.turns.map((t) => ({ id: t.id, text: t.content }))));
    const vectors = await Promise.all(conversations.map((c) => VectorReplica.of(c.turns, embedder)));
    const nearest = await Promise.all(
      conversations.map((c, i) => Promise.all(c.questions.map(async (q) => (await vectors[i]?.search(q.text)) ?? []))),
    );
    const asked = conversations.map((c) => new Map(c.questions.map((q, j) => [q.text, j])));
    const vectorOf = (i: number, q: string) => nearest[i]?.[asked[i]?.get(q) ?? -1] ?? [];
    const hybrid = (scoring: LexicalScoring) =>
      allAt10(conversations, (i, q) => fuse(vectorOf(i, q), lexical[i]?.search(q, scoring) ?? []));
    const averages = lexical.map((r) => r.average.toFixed(0)).join(', ');
    console.log(`\n## turns per memory ${size}: ${memories} memories, average length in terms per conversation ${averages}\n`);
    console.log(
      `plain BM25 ${allAt10(conversations, (i, q) => bm25[i]?.search(q, 10) ?? [])} %, vector arm alone ${allAt10(conversations, (i, q) => vectorOf(i, q).map((h) => h.id))} %`,
    );
    console.log(
      `in force (k1 ${LEXICAL.k1}, b ${LEXICAL.b}, short length ${LEXICAL.shortLength}, half length ${LEXICAL.halfLength}): lexical arm ${allAt10(conversations, (i, q) => lexical[i]?.search(q) ?? [])} %, hybrid ${hybrid(LEXICAL)} %\n`,
    );
    console.log(`| lexical arm alone, fixed k1 and b | ${B.map((b) => `b = ${b}`).join(' | ')} |`);
    console.log(`| --- | ${B.map(() => '---:').join(' | ')} |`);
    for (const k1 of K1) {
      const cells = B.map((b) =>
        k1 === 0 && b > 0 ? '—' : allAt10(conversations, (i, q) => lexical[i]?.search(q, fixed(k1, b)) ?? []),
      );
      console.log(`| k1 = ${k1} | ${cells.join(' | ')} |`);
    }
    console.log(`\n| hybrid, fixed k1 and b | ${HYBRID.map(([k1, b]) => `${k1}, ${b}`).join(' | ')} |`);
    console.log(`| --- | ${HYBRID.map(() => '---:').join(' | ')} |`);
    console.log(`| recall_all@10 % | ${HYBRID.map(([k1, b]) => hybrid(fixed(k1, b))).join(' | ')} |`);
    console.log(
      `\n| hybrid, k1 and b scaled by excess / (excess + half), excess = average - short | ${HALF.map((h) => `half ${h}`).join(' | ')} |`,
    );
    console.log(`| --- | ${HALF.map(() => '---:').join(' | ')} |`);
    for (const short of SHORT)
      for (const [k1, b] of SCALED)
        console.log(
          `| short ${short}, k1 ${k1}, b ${b} | ${HALF.map((half) => hybrid(scaled(k1, b, short, half))).join(' | ')} |`,
        );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
