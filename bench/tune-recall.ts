/**
 * `npm run tune:recall`: the tuning behind decisions 0038 and 0039, reproducible. In memory (no
 * database), over the LoCoMo development split only: replicas of recall's two arms — the lexical
 * arm's BM25 over the caller's partition, the offline embedder's exact cosine ranking — and their
 * reciprocal rank fusion, for the variants that were weighed. `npm run bench:locomo` measures
 * the chosen one through the real endpoint; held-out data is never used to choose (../shared/README.md).
 */
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { canonicalText } from '../lambda/memory/canonical.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { Bm25 } from './bm25.js';
import { type Conversation, loadLocomo } from './locomo-data.js';

type Terms = (text: string) => string[];
type Ranker = (query: string) => Promise<string[]>;

const words: Terms = (text) => [
  ...new Set(
    canonicalText(text)
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean),
  ),
];
const analyzers: Record<string, Terms> = {
  'words only': words,
  'neutral (words + 5-character prefixes)': (t) => new LexicalAnalyzer('neutral').terms(t),
  'english (stop words, Porter stems)': (t) => new LexicalAnalyzer('english').terms(t),
};

/** The lexical arm's replica over one conversation's turns: BM25 with the given terms, `b`, and counting or not. */
function lexical(c: Conversation, terms: Terms, b: number, counts: boolean): Ranker {
  const bm25 = new Bm25(
    c.turns.map((t) => ({ id: t.id, text: t.content })),
    counts ? { b } : { b, terms, presenceOnly: true },
  );
  return async (query) => bm25.search(query);
}

async function vector(c: Conversation, embedder: LocalEmbedder): Promise<Ranker> {
  const vectors = await Promise.all(c.turns.map((t) => embedder.embed(t.content)));
  return async (query) => {
    const q = await embedder.embed(query);
    return c.turns
      .map((t, i) => ({ id: t.id, s: (vectors[i] ?? []).reduce((sum, x, j) => sum + x * (q[j] ?? 0), 0) }))
      .sort((x, y) => y.s - x.s || (x.id < y.id ? -1 : 1))
      .map((d) => d.id);
  };
}

function fuse(lists: { ids: string[]; weight: number }[], depth: number, k: number): string[] {
  const scores = new Map<string, number>();
  for (const l of lists) {
    for (const [i, id] of l.ids.slice(0, depth).entries()) scores.set(id, (scores.get(id) ?? 0) + l.weight / (k + i + 1));
  }
  return [...scores.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map((e) => e[0]);
}

const conversations = loadLocomo(DEFAULT_DATA_DIR, 'dev');
const questions = conversations.reduce((n, c) => n + c.questions.length, 0);

/** recall_all@10 over the dev questions, in percent. */
async function allAt10(make: (c: Conversation) => Promise<Ranker>): Promise<string> {
  let hits = 0;
  for (const c of conversations) {
    const rank = await make(c);
    for (const q of c.questions) {
      const top = new Set((await rank(q.text)).slice(0, 10));
      if (q.evidence.every((e) => top.has(e))) hits += 1;
    }
  }
  return `${((100 * hits) / questions).toFixed(1)} %`;
}

async function main(): Promise<void> {
  console.log(`tune:recall  LoCoMo dev (${questions} questions, categories 1-4), recall_all@10, in memory\n`);
  console.log('| lexical ranking, words only | b = 0.75 | b = 0.3 | b = 0 |\n| --- | ---: | ---: | ---: |');
  for (const counts of [true, false]) {
    const cells = [];
    for (const b of [0.75, 0.3, 0])
      cells.push(counts && b !== 0.75 ? '—' : await allAt10(async (c) => lexical(c, words, b, counts)));
    console.log(`| ${counts ? 'term frequency counted (plain BM25)' : 'presence only'} | ${cells.join(' | ')} |`);
  }
  const embedder = new LocalEmbedder(256);
  const cache = new Map<string, Ranker>();
  const vectorOf = async (c: Conversation) => {
    const found = cache.get(c.id) ?? (await vector(c, embedder));
    cache.set(c.id, found);
    return found;
  };
  console.log(`\nvector arm alone (${embedder.name}): ${await allAt10(vectorOf)}`);
  console.log('\n| analyzer (b = 0, presence only) | lexical arm alone | hybrid (depth 50, k 10, vector weight 0.5) |');
  console.log('| --- | ---: | ---: |');
  for (const [name, terms] of Object.entries(analyzers)) {
    const alone = await allAt10(async (c) => lexical(c, terms, 0, false));
    const hybrid = await allAt10(async (c) => {
      const [l, v] = [lexical(c, terms, 0, false), await vectorOf(c)];
      return async (q) =>
        fuse(
          [
            { ids: await l(q), weight: 1 },
            { ids: await v(q), weight: 0.5 },
          ],
          50,
          10,
        );
    });
    console.log(`| ${name} | ${alone} | ${hybrid} |`);
  }
  console.log('\n| fusion, neutral analyzer: depth, k | vector weight 0.35 | 0.5 | 0.7 |\n| --- | ---: | ---: | ---: |');
  const neutral = analyzers['neutral (words + 5-character prefixes)'] ?? words;
  for (const depth of [30, 50]) {
    for (const k of [10, 20, 40]) {
      const cells = [];
      for (const weight of [0.35, 0.5, 0.7]) {
        cells.push(
          await allAt10(async (c) => {
            const [l, v] = [lexical(c, neutral, 0, false), await vectorOf(c)];
            return async (q) =>
              fuse(
                [
                  { ids: await l(q), weight: 1 },
                  { ids: await v(q), weight },
                ],
                depth,
                k,
              );
          }),
        );
      }
      console.log(`| ${depth}, ${k} | ${cells.join(' | ')} |`);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
