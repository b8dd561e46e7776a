/**
 * `npm run tune:variants -- [--embedder local|sentence]`: the recall variants issue 20 lists as worth
 * measuring, on the in-memory replicas of the two arms over the LoCoMo development split only
 * (one turn per memory), against the ranking in force (reciprocal rank fusion with the relevance
 * floor, `fuse` in replicas.ts). recall_all@10 overall and for multi-hop questions:
 *
 * - result diversification (maximal marginal relevance over the fused 50: each next pick trades
 *   its fused rank against its cosine similarity to what is already picked, weight λ);
 * - pseudo-relevance feedback in the lexical arm (the words that at least two of the arm's first
 *   three memories share, not in the query, added to it, the arm run again, then fused);
 * - neighbouring memories (turns of a hit's session near it, as if the agent had stored the
 *   session as their origin, scored at a share of the hit's fused score): the next two at 0.6 is
 *   what recall now does (decision 0081).
 *
 * Time words are not measured: LoCoMo's turns carry no dates (docs/benchmarks.md).
 */
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { SentenceEmbedder } from '../lambda/adapters/local/sentence-embedder.js';
import { canonicalText } from '../lambda/memory/canonical.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import { FUSION } from '../lambda/memory/policy/ranking.js';
import { choice, parseOptions } from '../test/eval/cli.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { loadLocomo } from './locomo-data.js';
import { best, dot, followingScores, fuse, fusedScores, LexicalReplica, VectorReplica } from './replicas.js';

const options = parseOptions(process.argv.slice(2), ['embedder']);
const embedder =
  choice(options, 'embedder', ['local', 'sentence'] as const, 'local') === 'sentence'
    ? new SentenceEmbedder()
    : new LocalEmbedder(256);

/** One question as every variant sees it: both arms' answers and what it takes to rerank them. */
interface Asked {
  readonly category: number;
  readonly evidence: readonly string[];
  readonly vector: { id: string; distance: number }[];
  readonly lexical: string[];
  readonly expanded: string[];
  readonly vectors: ReadonlyMap<string, number[]>;
  /** Each memory's place in the conversation (the order it was written in) and its length in terms. */
  readonly written: ReadonlyMap<string, { order: number; length: number }>;
}

const analyzer = new LexicalAnalyzer();
const words = (text: string) => new Set(canonicalText(text).split(' ').filter(Boolean));

/** The query plus the words at least two of the lexical arm's first three memories share and the query lacks. */
function expandedQuery(query: string, lexical: readonly string[], content: Map<string, string>): string {
  const asked = words(query);
  const seen = new Map<string, number>();
  for (const id of lexical.slice(0, 3)) for (const w of words(content.get(id) ?? '')) seen.set(w, (seen.get(w) ?? 0) + 1);
  const extra = [...seen].filter(([w, n]) => n >= 2 && !asked.has(w)).map(([w]) => w);
  return [query, ...extra].join(' ');
}

/** Maximal marginal relevance over a ranked list: relevance is 1 at the first rank, falling linearly. */
function diversified(ranked: readonly string[], vectors: ReadonlyMap<string, number[]>, lambda: number): string[] {
  const pool = ranked.slice(0, FUSION.depth);
  const relevance = new Map(pool.map((id, i) => [id, 1 - i / pool.length]));
  const picked: string[] = [];
  while (picked.length < Math.min(10, pool.length)) {
    let best = '';
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const id of pool) {
      if (picked.includes(id)) continue;
      const v = vectors.get(id) ?? [];
      const redundancy = Math.max(0, ...picked.map((p) => dot(v, vectors.get(p) ?? [])));
      const score = lambda * (relevance.get(id) ?? 0) - (1 - lambda) * redundancy;
      if (score > bestScore) [best, bestScore] = [id, score];
    }
    picked.push(best);
  }
  return picked;
}

/** Which turns of a hit's session come with it, as steps from the hit: recall builds the next two (decision 0081). */
const NEIGHBOURHOODS: [string, number[]][] = [
  ['the turns before and after', [-1, 1]],
  ['the next turn', [1]],
  ['the next two turns', [1, 2]],
  ['two turns either side', [-2, -1, 1, 2]],
];

/** The fused ranking with the neighbours of {@link followingScores}. */
const withNeighbours = (scored: readonly [string, number][], share: number, steps: readonly number[]): string[] =>
  best([...followingScores(scored, share, steps)]).map(([id]) => id);

/**
 * Session diversity over what recall returns now (the next two at 0.6): the first ten picked one
 * by one, each candidate's score multiplied by `decay` for every memory of its session already
 * picked, so that hits from other sessions (where a multi-hop question's other evidence lies)
 * can come up. With `followersExempt`, a turn one or two after a picked one is not decayed.
 */
function sessionDiverse(scored: readonly [string, number][], decay: number, followersExempt: boolean): string[] {
  const turn = (id: string) => /^D(\d+):(\d+)$/.exec(id);
  const pool = [...followingScores(scored, FUSION.followingShare, [1, 2])];
  const picked: string[] = [];
  while (picked.length < Math.min(10, pool.length)) {
    let chosen = '';
    let chosenScore = Number.NEGATIVE_INFINITY;
    for (const [id, score] of pool) {
      if (picked.includes(id)) continue;
      const at = turn(id);
      const same = picked.filter((p) => turn(p)?.[1] === at?.[1]);
      const follows = followersExempt && same.some((p) => [1, 2].includes(Number(at?.[2]) - Number(turn(p)?.[2])));
      const s = follows ? score : score * decay ** same.length;
      if (s > chosenScore) [chosen, chosenScore] = [id, s];
    }
    picked.push(chosen);
  }
  return picked;
}

/**
 * The next two at 0.6, where the first 10 − `places` memories the arms ranked keep their place and
 * the other places go to the best of the rest (decision 0113, policy/recency.ts); a memory the
 * arms ranked among the first ten keeps its better score, as in the statement.
 */
function boundedFollowers(scored: readonly [string, number][], places: number): string[] {
  const kept = new Set(scored.slice(0, 10 - places).map(([id]) => id));
  const all = best([...followingScores(scored.slice(0, 10), FUSION.followingShare, [1, 2])]);
  return best([...all.filter(([id]) => kept.has(id)), ...all.filter(([id]) => !kept.has(id))].slice(0, 10)).map(([id]) => id);
}

/**
 * The newer-first rule over a ranking's first ten (policy/recency.ts): two statements (at most
 * `FUSION.statementTerms` terms) within `distance` of each other are on one subject, and the later
 * written takes the earlier's score when its own is at least `ratio` of it (0: always).
 */
function newerFirst(a: Asked, ranked: readonly [string, number][], distance: number, ratio: number): string[] {
  const top = ranked.slice(0, 10);
  const at = (id: string) => a.written.get(id) ?? { order: 0, length: 0 };
  const scored = top.map(([id, score]): [string, number] => [
    id,
    Math.max(
      score,
      ...top
        .filter(
          ([o, s]) =>
            at(o).order < at(id).order &&
            score >= ratio * s &&
            Math.max(at(o).length, at(id).length) <= FUSION.statementTerms &&
            1 - dot(a.vectors.get(o) ?? [], a.vectors.get(id) ?? []) <= distance,
        )
        .map(([, s]) => s),
    ),
  ]);
  return scored.sort((x, y) => y[1] - x[1] || at(y[0]).order - at(x[0]).order).map(([id]) => id);
}

/** {@link boundedFollowers}' ranking with its scores. */
function boundedScored(scored: readonly [string, number][], places: number): [string, number][] {
  const kept = new Set(scored.slice(0, 10 - places).map(([id]) => id));
  const all = best([...followingScores(scored.slice(0, 10), FUSION.followingShare, [1, 2])]);
  return best([...all.filter(([id]) => kept.has(id)), ...all.filter(([id]) => !kept.has(id))].slice(0, 10));
}

async function main(): Promise<void> {
  const conversations = loadLocomo(DEFAULT_DATA_DIR, 'dev');
  const asked: Asked[] = [];
  for (const c of conversations) {
    const content = new Map(c.turns.map((t) => [t.id, t.content]));
    const lexical = new LexicalReplica(c.turns);
    const written = new Map(
      c.turns.map((t, order) => [
        t.id,
        { order, length: [...analyzer.frequencies(t.content).values()].reduce((x, y) => x + y, 0) },
      ]),
    );
    const replica = await VectorReplica.of(c.turns, embedder);
    for (const q of c.questions) {
      const l = lexical.search(q.text);
      asked.push({
        category: q.category,
        evidence: q.evidence,
        vector: await replica.search(q.text),
        lexical: l,
        expanded: lexical.search(expandedQuery(q.text, l, content)),
        vectors: replica.vectors,
        written,
      });
    }
    process.stderr.write(`  ${c.id}: ${c.questions.length} questions\n`);
  }
  const floor = embedder.unrelatedBeyond;
  const variants: [string, (a: Asked) => string[]][] = [
    ['the ranking in force (fusion with the floor)', (a) => fuse(a.vector, a.lexical, floor)],
    ...[0.9, 0.8, 0.7].map((lambda): [string, (a: Asked) => string[]] => [
      `diversified, λ = ${lambda}`,
      (a) => diversified(fuse(a.vector, a.lexical, floor), a.vectors, lambda),
    ]),
    ['lexical arm with pseudo-relevance feedback', (a) => fuse(a.vector, a.expanded, floor)],
    ...[0.9, 0.8, 0.6].flatMap((decay): [string, (a: Asked) => string[]][] => [
      [
        `next two at 0.6, sessions decayed by ${decay}`,
        (a) => sessionDiverse(fusedScores(a.vector, a.lexical, floor), decay, false),
      ],
      [
        `next two at 0.6, sessions decayed by ${decay}, followers exempt`,
        (a) => sessionDiverse(fusedScores(a.vector, a.lexical, floor), decay, true),
      ],
    ]),
    ...[2, 3, 4, 5, 6, 7, 10].map((places): [string, (a: Asked) => string[]] => [
      `next two at 0.6, at most ${places} of the ten`,
      (a) => boundedFollowers(fusedScores(a.vector, a.lexical, floor), places),
    ]),
    ...[0, 0.5, 0.7, 0.8, 0.9].map((ratio): [string, (a: Asked) => string[]] => [
      `at most 4 of the ten, newer first within ${floor}, at ${ratio} of the older's score`,
      (a) => newerFirst(a, boundedScored(fusedScores(a.vector, a.lexical, floor), 4), floor, ratio),
    ]),
    ...NEIGHBOURHOODS.flatMap(([name, steps]) =>
      [0.4, 0.5, 0.6, 0.7, 0.8].map((share): [string, (a: Asked) => string[]] => [
        `${name} at ${share} of the hit`,
        (a) => withNeighbours(fusedScores(a.vector, a.lexical, floor), share, steps),
      ]),
    ),
  ];
  const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;
  const multiHop = asked.filter((a) => a.category === 1);
  console.log(`tune:variants  ${embedder.name}  LoCoMo dev, ${asked.length} questions (${multiHop.length} multi-hop)`);
  console.log('\n| variant | recall_all@10 | multi-hop recall_all@10 | recall_all@5 |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, rank] of variants) {
    const within = (n: number) => (a: Asked) => {
      const top = new Set(rank(a).slice(0, n));
      return a.evidence.every((e) => top.has(e));
    };
    const found = within(10);
    console.log(
      `| ${name} | ${pct(asked.filter(found).length, asked.length)} | ${pct(multiHop.filter(found).length, multiHop.length)} | ${pct(asked.filter(within(5)).length, asked.length)} |`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
