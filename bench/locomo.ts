/**
 * `npm run bench:locomo -- --split dev|heldout [--k 10] [--language neutral|english]
 * [--turns-per-memory N|MIN-MAX] [--nonsense 30] [--embedder local|sentence]`: how often recall finds a question's evidence,
 * through the real local endpoint and the MCP SDK client. Each LoCoMo conversation gets its own
 * key (its own user); every turn is remembered as an `event` (ceiling raised so nothing is
 * evicted), or, with `--turns-per-memory`, every group of that many consecutive turns of a
 * session (long memories; a question's evidence is then the memories holding its turns), in
 * order, with its session as origin; every category 1–4 question is recalled with `limit` k. The
 * same memories are searched five ways (NAABA_RECALL_RANKING = vector, lexical, hybrid; and
 * hybrid-no-following and hybrid-no-floor for what the following memories add and the relevance
 * floor costs) and compared with plain BM25 over the same
 * memories, computed in the same run. recall_all@n: all the evidence is among the first n;
 * recall_any@n: some is. `--nonsense` invented-word queries per conversation (none of their terms
 * stored) measure the relevance floor: how many come back empty. Tune on dev only
 * (../shared/README.md); held out is the check.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TEXT_LANGUAGES } from '../lambda/memory/lexical.js';
import type { RecallRanking } from '../lambda/memory/policy/ranking.js';
import { choice, EvalUsageError, parseOptions, pool, positiveInteger, Progress } from '../test/eval/cli.js';
import { DEFAULT_DATA_DIR } from '../test/eval/data.js';
import { freshDatabase } from '../test/support/database.js';
import { call, connect, startTestEndpoint } from '../test/support/endpoint.js';
import { Bm25 } from './bm25.js';
import { type Conversation, loadLocomo, parseTurnsPerMemory, type Turn } from './locomo-data.js';
import { nonsenseQueries } from './nonsense.js';

const options = parseOptions(process.argv.slice(2), [
  'split',
  'k',
  'language',
  'concurrency',
  'data',
  'turns-per-memory',
  'nonsense',
  'embedder',
]);
const split = choice(options, 'split', ['dev', 'heldout'] as const, 'dev');
const k = positiveInteger(options, 'k', 10);
const language = choice(options, 'language', TEXT_LANGUAGES, 'neutral');
const concurrency = positiveInteger(options, 'concurrency', 4);
const nonsense = positiveInteger(options, 'nonsense', 30);
/** The endpoint's embedder (NAABA_EMBEDDER): the offline lexical one, or the sentence encoder (decision 0079). */
const embedder = choice(options, 'embedder', ['local', 'sentence'] as const, 'local');
const perMemory = parseTurnsPerMemory(options.get('turns-per-memory') ?? '1');
if (k < 5 || k > 50) throw new EvalUsageError('--k must be from 5 to 50 (the recall limit)');
if (!perMemory) throw new EvalUsageError('--turns-per-memory must be N or MIN-MAX, from 1 to 50');

const CURATION = JSON.stringify({ kinds: { event: { ceiling: 100_000, ttl: null } } });
const METHODS = ['vector', 'lexical', 'hybrid-no-following', 'hybrid', 'hybrid-no-floor', 'bm25'] as const;
type Method = (typeof METHODS)[number];

/** For each question, in order: the turn ids a method returned, best first. */
type Answers = Map<Method, string[][]>;

/** Per method: how many nonsense queries came back with no memory at all. */
type Empties = Map<Method, number>;

interface Scored {
  all5: number;
  any5: number;
  allK: number;
  anyK: number;
  n: number;
}

/** A turn's (or a long memory's) session, as LoCoMo names it: "D3" of "D3:7" and of "D3:7..D3:9". */
const sessionOf = (id: string) => id.split(':')[0] ?? id;

/**
 * Every memory of a conversation, its session as origin (as an agent storing a conversation would
 * pass it), each session in order so that what follows a memory in its origin is the next turn;
 * sessions are remembered `concurrency` at a time.
 */
async function remember(conversation: Conversation, client: Client): Promise<Map<string, string[]>> {
  const turnsOf = new Map<string, string[]>();
  const progress = new Progress(`remember ${conversation.id}`, conversation.turns.length);
  const sessions = new Map<string, Turn[]>();
  for (const turn of conversation.turns) sessions.set(sessionOf(turn.id), [...(sessions.get(sessionOf(turn.id)) ?? []), turn]);
  let done = 0;
  await pool([...sessions], concurrency, async ([session, turns]) => {
    for (const turn of turns) {
      const origin = `${conversation.id} session ${session}`;
      const result = await call<{ id: string }>(client, 'remember', { content: turn.content, kind: 'event', origin });
      if (result.isError) throw new Error(`remember failed for ${conversation.id} ${turn.id}`);
      const id = result.structuredContent.id;
      turnsOf.set(id, [...(turnsOf.get(id) ?? []), turn.id]);
      progress.update(++done);
    }
  });
  return turnsOf;
}

/** Each query's recalled memories as the turn ids (memory ids with long memories) they hold; merged ones hold several. */
async function recallAll(client: Client, queries: readonly string[], turnsOf: Map<string, string[]>): Promise<string[][]> {
  return pool(queries, concurrency, async (query) => {
    const result = await call<{ memories: { id: string }[] }>(client, 'recall', { query, kinds: ['event'], limit: k });
    if (result.isError) throw new Error('recall failed');
    // A memory that holds no known turn still counts, so that a nonsense query's answer is never empty by accident.
    return result.structuredContent.memories.flatMap((m) => turnsOf.get(m.id) ?? [m.id]);
  });
}

function score(found: readonly string[], evidence: readonly string[], n: number): [boolean, boolean] {
  const top = new Set(found.slice(0, n));
  return [evidence.every((e) => top.has(e)), evidence.some((e) => top.has(e))];
}

function tally(conversations: readonly Conversation[], answers: Answers, method: Method, category?: number): Scored {
  const out: Scored = { all5: 0, any5: 0, allK: 0, anyK: 0, n: 0 };
  let offset = 0;
  const found = answers.get(method) ?? [];
  for (const c of conversations) {
    c.questions.forEach((q, i) => {
      if (category !== undefined && q.category !== category) return;
      const got = found[offset + i] ?? [];
      const [all5, any5] = score(got, q.evidence, 5);
      const [allK, anyK] = score(got, q.evidence, k);
      out.all5 += Number(all5);
      out.any5 += Number(any5);
      out.allK += Number(allK);
      out.anyK += Number(anyK);
      out.n += 1;
    });
    offset += c.questions.length;
  }
  return out;
}

const pct = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`);

async function main(): Promise<void> {
  const conversations = loadLocomo(options.get('data') ?? DEFAULT_DATA_DIR, split, perMemory);
  const questions = conversations.reduce((n, c) => n + c.questions.length, 0);
  console.log(
    `bench:locomo  split=${split}  conversations=${conversations.map((c) => c.id).join(',')}  memories=${conversations.reduce((n, c) => n + c.turns.length, 0)}  turns per memory=${options.get('turns-per-memory') ?? '1'}  questions=${questions} (categories 1-4)  nonsense=${nonsense * conversations.length}  k=${k}  text language=${language}  embedder=${embedder}`,
  );
  const sql = await freshDatabase(embedder === 'sentence' ? 512 : 256);
  const env = (ranking: RecallRanking) => ({
    NAABA_EMBEDDER: embedder,
    NAABA_CURATION: CURATION,
    NAABA_TEXT_LANGUAGE: language,
    NAABA_RECALL_RANKING: ranking,
  });
  const answers: Answers = new Map(METHODS.map((m) => [m, []]));
  const empties: Empties = new Map(METHODS.map((m) => [m, 0]));
  const invented = conversations.map((c) =>
    nonsenseQueries(
      c.turns.map((t) => t.content),
      nonsense,
    ),
  );
  const ingest = await startTestEndpoint({ sql, env: env('hybrid') });
  const users: { conversation: Conversation; nonsense: string[]; token: string; turnsOf: Map<string, string[]> }[] = [];
  try {
    for (const [i, conversation] of conversations.entries()) {
      const key = await ingest.issueKey(`locomo-${conversation.id}`);
      const client = await connect(ingest.mcpUrl, key.token, { name: 'naaba-bench-locomo', version: '1.0.0' });
      const turnsOf = await remember(conversation, client);
      users.push({ conversation, nonsense: invented[i] ?? [], token: key.token, turnsOf });
      await client.close();
    }
  } finally {
    await ingest.close();
  }
  for (const ranking of ['vector', 'lexical', 'hybrid-no-following', 'hybrid', 'hybrid-no-floor'] as const) {
    const endpoint = await startTestEndpoint({ sql, env: env(ranking) });
    try {
      for (const user of users) {
        const client = await connect(endpoint.mcpUrl, user.token, { name: 'naaba-bench-locomo', version: '1.0.0' });
        const asked = user.conversation.questions.map((q) => q.text);
        answers.get(ranking)?.push(...(await recallAll(client, asked, user.turnsOf)));
        const none = (await recallAll(client, user.nonsense, user.turnsOf)).filter((found) => found.length === 0).length;
        empties.set(ranking, (empties.get(ranking) ?? 0) + none);
        await client.close();
      }
    } finally {
      await endpoint.close();
    }
    process.stderr.write(`recalled ${questions} questions (${ranking})\n`);
  }
  for (const c of conversations) {
    const bm25 = new Bm25(c.turns.map((t) => ({ id: t.id, text: t.content })));
    answers.get('bm25')?.push(...c.questions.map((q) => bm25.search(q.text, k)));
  }
  for (const [i, c] of conversations.entries()) {
    const bm25 = new Bm25(c.turns.map((t) => ({ id: t.id, text: t.content })));
    const none = (invented[i] ?? []).filter((q) => bm25.search(q, k).length === 0).length;
    empties.set('bm25', (empties.get('bm25') ?? 0) + none);
  }
  await sql.close();
  report(conversations, answers, empties);
}

const CATEGORY: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

function report(conversations: readonly Conversation[], answers: Answers, empties: Empties): void {
  const label: Record<Method, string> = {
    vector: 'naaba vector arm only',
    lexical: 'naaba lexical arm only',
    hybrid: 'naaba hybrid (the default ranking)',
    'hybrid-no-following': 'naaba hybrid without the following memories',
    'hybrid-no-floor': 'naaba hybrid without the relevance floor',
    bm25: 'BM25 baseline (same memories)',
  };
  const asked = nonsense * conversations.length;
  console.log(`\n| ${split} | recall_all@5 | recall_any@5 | recall_all@${k} | recall_any@${k} | nonsense returning nothing |`);
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const m of METHODS) {
    const s = tally(conversations, answers, m);
    const empty = `${empties.get(m) ?? 0}/${asked} (${pct(empties.get(m) ?? 0, asked)})`;
    console.log(
      `| ${label[m]} | ${pct(s.all5, s.n)} | ${pct(s.any5, s.n)} | ${pct(s.allK, s.n)} | ${pct(s.anyK, s.n)} | ${empty} |`,
    );
  }
  const categories = [1, 2, 3, 4].filter((cat) => tally(conversations, answers, 'bm25', cat).n > 0);
  console.log(
    `\n| recall_all@${k} by category | ${categories.map((c) => `${c} ${CATEGORY[c]} (n=${tally(conversations, answers, 'bm25', c).n})`).join(' | ')} |`,
  );
  console.log(`| --- | ${categories.map(() => '---:').join(' | ')} |`);
  for (const m of METHODS) {
    console.log(
      `| ${label[m]} | ${categories
        .map((c) => {
          const s = tally(conversations, answers, m, c);
          return pct(s.allK, s.n);
        })
        .join(' | ')} |`,
    );
  }
}

main().catch((error) => {
  console.error(error instanceof EvalUsageError ? `bench:locomo: ${error.message}` : error);
  process.exitCode = 1;
});
