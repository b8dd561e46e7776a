/**
 * `npm run bench:longmem -- [--limit N] [--k 10] [--engine postgres|pglite] [--tune yes] [--data DIR]`:
 * how often recall finds the evidence of long chats, on the LongMemEval-S development subset
 * (../shared/data/longmemeval-s-dev: 100 questions, each with its own haystack of about 50
 * sessions and 500 turns, many of hundreds of words; read at run time, never shipped). Each
 * question is its own user: every turn becomes an `event` memory (ceiling raised so nothing is
 * evicted), session by session in order with the session as origin, a turn past the content limit
 * split into parts that each count as evidence, stored in bulk as remember would store them (see
 * `store`). The question is then recalled through the memory service with `limit` k five ways
 * (NAABA_RECALL_RANKING = vector, lexical, hybrid-no-following, hybrid, hybrid-no-floor) and
 * compared with plain BM25 over the same memories, and the tables are emptied for the next one.
 * Prints recall_all@k, recall_any@k and NDCG@k (binary relevance) per method, overall and per
 * question type, with 95 % intervals (Wilson for the shares, the normal one for NDCG), and hybrid −
 * BM25 paired per question. The store is a throwaway PostgreSQL 15 + pgvector cluster (`--engine
 * pglite`: PGlite in process, about twice as slow). `--limit N` runs the first N questions, types
 * interleaved, for quick runs (20 take about a fifth of the 9–12 minutes of the whole set on this
 * machine); `--tune yes` adds hybrid under other scoring constants over the same stored memories
 * (decision 0109); `--passages yes` replays the lexical arm in memory instead, over the same memories,
 * under ways of scoring a long memory by its passages (longmem-passages.ts, decision 0115), with no
 * database (about a minute). Tune on this set only; the rest of LongMemEval is the held-out check and is never
 * brought into the project.
 */
import { randomUUID } from 'node:crypto';
import { LocalEmbedder } from '../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../lambda/adapters/local/judge.js';
import { PgSqlClient } from '../lambda/adapters/pg/pg-client.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';
import type { SqlClient } from '../lambda/adapters/pg/sql-client.js';
import { sqlMemoryStores } from '../lambda/adapters/pg/stores/sql-memory-stores.js';
import { fingerprint } from '../lambda/memory/canonical.js';
import { LexicalAnalyzer } from '../lambda/memory/lexical.js';
import type { CurationRules, Principal, Scope } from '../lambda/memory/model.js';
import { FUSION, type Fusion, LEXICAL, type LexicalScoring, type RecallRanking } from '../lambda/memory/policy/ranking.js';
import { memoryServices } from '../lambda/memory/services.js';
import { systemClock } from '../lambda/ports/clock.js';
import type { MemoryStores } from '../lambda/ports/memory-stores.js';
import type { ImportedMemory } from '../lambda/ports/transfer-store.js';
import { choice, EvalUsageError, parseOptions, positiveInteger, Progress } from '../test/eval/cli.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { freshDatabase } from '../test/support/database.js';
import { startPostgres } from '../test/support/pg-server.js';
import { Bm25 } from './bm25.js';
import { type LongQuestion, loadLongMemEval } from './longmem-data.js';
import { PASSAGE_VARIANTS, rankByPassages } from './longmem-passages.js';

const options = parseOptions(process.argv.slice(2), ['limit', 'k', 'data', 'engine', 'tune', 'passages']);
const tune = choice(options, 'tune', ['no', 'yes'] as const, 'no') === 'yes';
const passages = choice(options, 'passages', ['no', 'yes'] as const, 'no') === 'yes';
const engine = choice(options, 'engine', ['postgres', 'pglite'] as const, 'postgres');
const k = positiveInteger(options, 'k', 10);
const limit = positiveInteger(options, 'limit', 100);
if (k < 5 || k > 50) throw new EvalUsageError('--k must be from 5 to 50 (the recall limit)');

const DIMENSIONS = 256;
const REGION = 'eu-central-1';
const RULES: CurationRules = {
  kinds: { event: { ceiling: 100_000, ttlSeconds: null, dedup: false } },
  pinLimit: 50,
  journalRetentionSeconds: 86_400,
};
const embedder = new LocalEmbedder(DIMENSIONS);
const analyzer = new LexicalAnalyzer();
const RANKINGS = ['vector', 'lexical', 'hybrid-no-following', 'hybrid', 'hybrid-no-floor'] as const;
const METHODS = [...RANKINGS, 'bm25'] as const;
type Method = (typeof METHODS)[number];
const LABEL: Record<Method, string> = {
  vector: 'naaba vector arm only',
  lexical: 'naaba lexical arm only',
  'hybrid-no-following': 'naaba hybrid without the following memories',
  hybrid: 'naaba hybrid (the default ranking)',
  'hybrid-no-floor': 'naaba hybrid without the relevance floor',
  bm25: 'BM25 baseline (same memories)',
};

/**
 * `--tune yes`: hybrid recall under other scoring constants, each over the same stored memories
 * (recall is cheap once they are stored): what decision 0109 weighed.
 */
const VARIANTS: { name: string; fusion?: Partial<Fusion>; lexical?: Partial<LexicalScoring> }[] = [
  { name: 'in force' },
  {
    name: 'as before decision 0109 (b 0.75, half length 100, no vector fade)',
    lexical: { b: 0.75, halfLength: 100, vectorFade: 0 },
  },
  { name: 'half length 100', lexical: { halfLength: 100 } },
  { name: 'b 0.75', lexical: { b: 0.75 } },
  { name: 'vector fade 0', lexical: { vectorFade: 0 } },
  { name: 'vector fade 0.5', lexical: { vectorFade: 0.5 } },
  { name: 'half length 10', lexical: { halfLength: 10 } },
  { name: 'k1 0.9', lexical: { k1: 0.9 } },
  { name: 'k1 1.6', lexical: { k1: 1.6 } },
  { name: 'short length 100', lexical: { shortLength: 100 } },
  { name: 'common share 0.5', lexical: { commonShare: 0.5 } },
  { name: 'fusion k 30', fusion: { k: 30 } },
  { name: 'following 0', fusion: { following: 0 } },
  { name: 'following fade 0 (as before decision 0120)', lexical: { followingFade: 0 } },
  { name: 'following fade 0.5', lexical: { followingFade: 0.5 } },
  { name: 'following fade 0, fusion k 30', lexical: { followingFade: 0 }, fusion: { k: 30 } },
];

/** One question's verdict for one method. */
interface Scored {
  readonly all: number;
  readonly any: number;
  readonly ndcg: number;
}

/** Pieces found, best first (a memory that absorbed a restatement holds several), scored against the evidence. */
export function scoreFound(found: readonly string[], evidence: readonly string[], n: number): Scored {
  const top = found.slice(0, n);
  const wanted = new Set(evidence);
  let dcg = 0;
  top.forEach((id, i) => {
    if (wanted.delete(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(evidence.length, n); i += 1) ideal += 1 / Math.log2(i + 2);
  const held = new Set(top);
  return {
    all: Number(evidence.every((e) => held.has(e))),
    any: Number(evidence.some((e) => held.has(e))),
    ndcg: ideal === 0 ? 0 : dcg / ideal,
  };
}

/** Wilson's 95 % interval of a share, in percent. */
function wilson(part: number, n: number): [number, number] {
  if (n === 0) return [0, 0];
  const z = 1.96;
  const p = part / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return [100 * (centre - half), 100 * (centre + half)];
}

/** A mean with its normal 95 % half-width. */
function meanInterval(xs: readonly number[]): { mean: number; half: number } {
  const n = xs.length;
  const mean = xs.reduce((s, x) => s + x, 0) / Math.max(n, 1);
  const variance = n > 1 ? xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : 0;
  return { mean, half: 1.96 * Math.sqrt(variance / Math.max(n, 1)) };
}

const share = (xs: readonly number[]) => {
  const part = xs.reduce((s, x) => s + x, 0);
  const [low, high] = wilson(part, xs.length);
  return `${((100 * part) / Math.max(xs.length, 1)).toFixed(1)} % [${low.toFixed(0)}–${high.toFixed(0)}]`;
};
const ndcgText = (xs: readonly number[]) => {
  const { mean, half } = meanInterval(xs);
  return `${mean.toFixed(3)} ± ${half.toFixed(3)}`;
};

/** Memories per import statement. */
const IMPORT_BATCH = 100;

/**
 * Every piece of the question's haystack stored session by session in order, with the session as
 * origin, through the store's import in bulk: the rows, postings, partition statistics, flagged
 * postings and places in the origin a `remember` of each would write (the write path is not what is
 * measured here, and one remember at a time would take hours on this machine). A piece equal to one
 * already stored is absorbed by it, as remember merges an exact restatement.
 */
async function store(stores: MemoryStores, scope: Scope, question: LongQuestion): Promise<Map<string, string[]>> {
  const piecesOf = new Map<string, string[]>();
  const idOf = new Map<string, string>();
  const memories: ImportedMemory[] = [];
  const start = Date.now() - 86_400_000;
  for (const session of question.sessions) {
    for (const piece of session.pieces) {
      const print = fingerprint(piece.content);
      const known = idOf.get(print);
      const id = known ?? randomUUID();
      piecesOf.set(id, [...(piecesOf.get(id) ?? []), piece.id]);
      if (known) continue;
      idOf.set(print, id);
      const at = new Date(start + memories.length);
      memories.push({
        id,
        kind: 'event',
        content: piece.content,
        fingerprint: print,
        embedding: await embedder.embed(piece.content),
        frequencies: analyzer.frequencies(piece.content),
        passages: analyzer.passages(piece.content),
        pinned: false,
        expires: false,
        createdAt: at,
        lastUsefulAt: at,
        recallCount: 0,
        restatements: 0,
        source: { agent: 'bench', client: 'naaba-bench-longmem/1.0.0', origin: `session ${session.id}` },
        restatedBy: [],
      });
    }
  }
  for (let i = 0; i < memories.length; i += IMPORT_BATCH) {
    const result = await stores.transfer.importMemories({
      scope,
      kinds: [{ kind: 'event', expiredBefore: null, ceiling: RULES.kinds.event?.ceiling ?? 0 }],
      pinLimit: RULES.pinLimit,
      memories: memories.slice(i, i + IMPORT_BATCH),
      links: [],
      journal: [],
    });
    if (result.status !== 'imported') throw new Error(`import refused for question ${question.id}`);
  }
  return piecesOf;
}

/** A throwaway PostgreSQL 15 + pgvector cluster (the default: the import and recall run beside the bench's own work), or PGlite in process. */
async function openEngine(): Promise<{ sql: SqlClient; stop: () => Promise<void> }> {
  if (engine === 'pglite') {
    const sql = await freshDatabase(DIMENSIONS);
    return { sql, stop: () => sql.close() };
  }
  const server = await startPostgres();
  const sql = await PgSqlClient.connect({ url: server.url, maxConnections: 2, statementTimeoutMs: 120_000 });
  await migrate(sql, { embeddingDimensions: DIMENSIONS });
  return {
    sql,
    stop: async () => {
      await sql.close();
      await server.stop();
    },
  };
}

/** Set once the run is stopped by hand: the calls then in flight fail, and that is not worth a report. */
let stopping = false;

async function main(): Promise<void> {
  const questions = loadLongMemEval(options.get('data') ?? `${DEFAULT_DATA_DIR}/longmemeval-s-dev`)
    .filter((q) => q.evidence.length > 0)
    .slice(0, limit);
  const pieces = questions.reduce((n, q) => n + q.sessions.reduce((m, s) => m + s.pieces.length, 0), 0);
  console.log(
    `bench:longmem  LongMemEval-S dev  questions=${questions.length}  memories=${pieces}  k=${k}  embedder=local  store=${engine}`,
  );
  if (passages) {
    const bm25 = questions.map((q) => {
      const documents = q.sessions.flatMap((s) => s.pieces.map((p) => ({ id: p.id, text: p.content })));
      return scoreFound(new Bm25(documents).search(q.text, k), q.evidence, k);
    });
    reportVariants(
      questions,
      bm25,
      PASSAGE_VARIANTS.map((variant) => ({
        name: `lexical arm in memory, ${variant.name}`,
        scores: questions.map((q) => scoreFound(rankByPassages(q, variant), q.evidence, k)),
      })),
    );
    return;
  }
  const { sql, stop } = await openEngine();
  // Stopped by hand (a quick run cut short): the throwaway cluster goes too.
  const interrupted = () => {
    stopping = true;
    void stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const stores = sqlMemoryStores(sql);
  const service = (ranking: RecallRanking) =>
    memoryServices({ stores, embedder, judge: new ExactOnlyJudge(), clock: systemClock, rules: RULES, ranking });
  const services = new Map(RANKINGS.map((r) => [r, service(r)]));
  const variants = (tune ? VARIANTS : []).map((v) => ({
    name: v.name,
    services: memoryServices({
      stores,
      embedder,
      judge: new ExactOnlyJudge(),
      clock: systemClock,
      rules: RULES,
      scoring: { fusion: { ...FUSION, ...v.fusion }, lexical: { ...LEXICAL, ...v.lexical } },
    }),
    scores: [] as Scored[],
  }));
  const diagnostics: Scored[] = [];
  const scores = new Map<Method, Scored[]>(METHODS.map((m) => [m, []]));
  const progress = new Progress('remember and recall', pieces);
  const started = Date.now();
  let done = 0;
  try {
    for (const question of questions) {
      const principal: Principal = { userId: randomUUID(), region: REGION, agent: 'bench', keyId: randomUUID() };
      const piecesOf = await store(stores, { region: REGION, userId: principal.userId }, question);
      // As a running server's statistics timer would (lambda/composition.ts), before the first recall.
      if (sql instanceof PgliteSqlClient) await sql.refreshStatistics();
      else await sql.exec('ANALYZE memories, memory_terms, memory_partition_terms, memory_partitions');
      done += question.sessions.reduce((m, s) => m + s.pieces.length, 0);
      progress.update(done, question.id);
      for (const ranking of RANKINGS) {
        const recalled = await services
          .get(ranking)
          ?.curation.recall(principal, { query: question.text, kinds: ['event'], limit: k });
        const found = (recalled ?? []).flatMap((m) => piecesOf.get(m.id) ?? [m.id]);
        scores.get(ranking)?.push(scoreFound(found, question.evidence, k));
      }
      for (const variant of variants) {
        const recalled = await variant.services.curation.recall(principal, { query: question.text, kinds: ['event'], limit: k });
        variant.scores.push(
          scoreFound(
            recalled.flatMap((m) => piecesOf.get(m.id) ?? [m.id]),
            question.evidence,
            k,
          ),
        );
      }
      const documents = question.sessions.flatMap((s) => s.pieces.map((p) => ({ id: p.id, text: p.content })));
      const bm25 = new Bm25(documents);
      if (tune) {
        // What the lexical arm's terms (words and their 5-character prefixes) do to plain BM25.
        const naabaTerms = new Bm25(documents, {
          terms: (text) => [...analyzer.frequencies(text)].flatMap(([t, n]) => Array<string>(n).fill(t)),
        });
        diagnostics.push(scoreFound(naabaTerms.search(question.text, k), question.evidence, k));
      }
      scores.get('bm25')?.push(scoreFound(bm25.search(question.text, k), question.evidence, k));
      // The next question starts from empty tables (quicker than forgetting, and the same to recall).
      await sql.exec(
        'TRUNCATE memory_links, memories, memory_terms, memory_partition_terms, memory_partitions, memory_cells, journal',
      );
    }
  } finally {
    await stop();
  }
  process.stderr.write(`${questions.length} questions in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  report(questions, scores);
  if (variants.length > 0)
    reportVariants(questions, scores.get('bm25') ?? [], [
      { name: 'BM25 over the lexical arm’s terms', scores: diagnostics },
      ...variants,
    ]);
}

/** Hybrid under each variant: recall_all@k and NDCG@k, overall and per type, next to BM25's. */
function reportVariants(
  questions: readonly LongQuestion[],
  bm25: readonly Scored[],
  variants: readonly { name: string; scores: Scored[] }[],
) {
  const types = [...new Set(questions.map((q) => q.type))].sort();
  const cell = (xs: readonly Scored[], type?: string) => {
    const chosen = xs.filter((_, i) => type === undefined || questions[i]?.type === type);
    const all = (100 * chosen.reduce((n, x) => n + x.all, 0)) / Math.max(chosen.length, 1);
    const ndcg = chosen.reduce((n, x) => n + x.ndcg, 0) / Math.max(chosen.length, 1);
    return `${all.toFixed(1)} / ${ndcg.toFixed(3)}`;
  };
  console.log(
    `\n| hybrid variant: recall_all@${k} / NDCG@${k} | all (n=${questions.length}) | ${types.map((t) => t).join(' | ')} |`,
  );
  console.log(`| --- | ---: | ${types.map(() => '---:').join(' | ')} |`);
  for (const row of [{ name: 'BM25 baseline', scores: bm25 }, ...variants])
    console.log(`| ${row.name} | ${cell(row.scores)} | ${types.map((t) => cell(row.scores, t)).join(' | ')} |`);
}

function report(questions: readonly LongQuestion[], scores: Map<Method, Scored[]>): void {
  const of = (m: Method, type?: string) =>
    (scores.get(m) ?? []).filter((_, i) => type === undefined || questions[i]?.type === type);
  console.log(`\n| all types (n=${questions.length}) | recall_all@${k} | recall_any@${k} | NDCG@${k} |`);
  console.log('| --- | ---: | ---: | ---: |');
  for (const m of METHODS) {
    const s = of(m);
    console.log(
      `| ${LABEL[m]} | ${share(s.map((x) => x.all))} | ${share(s.map((x) => x.any))} | ${ndcgText(s.map((x) => x.ndcg))} |`,
    );
  }
  const types = [...new Set(questions.map((q) => q.type))].sort();
  for (const [metric, name] of [
    ['all', `recall_all@${k}`],
    ['ndcg', `NDCG@${k}`],
  ] as const) {
    console.log(`\n| ${name} by type | ${types.map((t) => `${t} (n=${of('bm25', t).length})`).join(' | ')} |`);
    console.log(`| --- | ${types.map(() => '---:').join(' | ')} |`);
    for (const m of METHODS) {
      const cells = types.map((t) => {
        const xs = of(m, t).map((x) => x[metric]);
        return metric === 'all' ? share(xs) : ndcgText(xs);
      });
      console.log(`| ${LABEL[m]} | ${cells.join(' | ')} |`);
    }
  }
  // Paired per question: the interval of the mean difference says whether a gap is more than noise.
  console.log(`\n| hybrid − BM25, paired | recall_all@${k} (points) | NDCG@${k} |`);
  console.log('| --- | ---: | ---: |');
  for (const type of [undefined, ...types]) {
    const h = of('hybrid', type);
    const b = of('bm25', type);
    const all = meanInterval(h.map((x, i) => 100 * (x.all - (b[i]?.all ?? 0))));
    const ndcg = meanInterval(h.map((x, i) => x.ndcg - (b[i]?.ndcg ?? 0)));
    console.log(
      `| ${type ?? 'all types'} (n=${h.length}) | ${all.mean.toFixed(1)} ± ${all.half.toFixed(1)} | ${ndcg.mean.toFixed(3)} ± ${ndcg.half.toFixed(3)} |`,
    );
  }
}

main().catch((error) => {
  if (stopping) return;
  console.error(error instanceof EvalUsageError ? `bench:longmem: ${error.message}` : error);
  process.exitCode = 1;
});
