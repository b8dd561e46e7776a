import type { PlanExpectations } from './catalogue.js';
import type { Plan } from './explain.js';

/** Tables holding per-user data: a sequential scan of one of them reads every user's rows. */
const USER_TABLES = ['memories', 'journal', 'memory_links'];

/** The vector index of the CockroachDB DDL (sql/cockroach/0001_init.sql). */
export const VECTOR_INDEX = 'memories@memories_embedding';
/** The inverted index of the lexical arm (sql/cockroach/0002_lexical.sql). */
export const LEXICAL_INDEX = 'memories@memories_lexemes';

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim();

const PARAM = String.raw`\$\d+(?:::\w+)?`;
const COLUMN = (name: string) => String.raw`(?:\w+\.)?${name}`;
const EQUALITY = new RegExp(`^(${COLUMN('region')}|${COLUMN('user_id')}|${COLUMN('kind')}) = ${PARAM}$`);
const TUPLE_IN = new RegExp(
  String.raw`^\(${COLUMN('region')}, ${COLUMN('user_id')}, ${COLUMN('kind')}\) IN \(\(${PARAM}, ${PARAM}, ${PARAM}\)(?:, \(${PARAM}, ${PARAM}, ${PARAM}\))*\)$`,
);
const ANN = /FROM memories(?: AS \w+)? WHERE ((?:(?!FROM ).)+?) ORDER BY (?:\w+\.)?embedding <=> \$\d+::vector LIMIT/g;
const LEXICAL = /FROM memories(?: AS \w+)? WHERE ((?:(?!FROM |\)).)+?\)(?:(?!FROM ).)*?) AND (?:\w+\.)?lexemes @@ (\S+)/g;
const CONSTANT_TSQUERY = /^\$\d+::tsquery\)?$/;

/** True when a WHERE clause pins the whole (region, user, kind) prefix by equality or a tuple IN, and holds nothing else. */
function pinsPrefixOnly(where: string): boolean {
  if (TUPLE_IN.test(where)) return true;
  const terms = where.split(' AND ');
  const columns = terms.map((t) => EQUALITY.exec(t)?.[1]?.replace(/^\w+\./, ''));
  const complete = ['region', 'user_id', 'kind'].every((c) => columns.filter((x) => x === c).length === 1);
  return complete && !columns.includes(undefined) && terms.length === 3;
}

/**
 * The prefix rule, checked on the SQL text itself so that it holds on every engine: each ANN
 * read of memories filters on the whole vector-index prefix (region, user, kind) by equality or by
 * a tuple IN over the whole prefix, and on nothing else, since any other predicate turns
 * CockroachDB's vector index off. PostgreSQL plans cannot show this, so the text must.
 */
export function prefixProblems(sql: string): string[] {
  const text = squash(sql);
  const reads = [...text.matchAll(ANN)];
  if (reads.length === 0) return ['no ANN read of memories (FROM memories WHERE … ORDER BY embedding <=> $n::vector LIMIT …)'];
  return reads
    .map(([, where = '']) => where)
    .filter((where) => !pinsPrefixOnly(where))
    .map(
      (where) =>
        `ANN read filters on "${where}": only region, user_id and kind by equality (or a tuple IN over all three) may appear`,
    );
}

/**
 * The same rule for the lexical arm: its read of memories pins the whole prefix and adds only
 * `lexemes @@ $n::tsquery`, a placeholder cast that a custom plan turns into the constant
 * CockroachDB's inverted index needs.
 */
export function lexicalProblems(sql: string): string[] {
  const text = squash(sql);
  const reads = [...text.matchAll(LEXICAL)];
  if (reads.length === 0) return ['no lexical read of memories (FROM memories WHERE … AND lexemes @@ $n::tsquery)'];
  const problems: string[] = [];
  for (const [, where = '', query = ''] of reads) {
    if (!pinsPrefixOnly(where))
      problems.push(`lexical read filters on "${where}": only the (region, user_id, kind) prefix may appear`);
    if (!CONSTANT_TSQUERY.test(query)) problems.push(`lexical read matches "${query}": expected a $n::tsquery placeholder`);
  }
  return problems;
}

function cockroachProblems(expect: PlanExpectations, plan: Plan): string[] {
  const text = plan.lines.join('\n');
  const problems: string[] = [];
  if (expect.vectorSearch && !(/•\s*vector search/.test(text) && text.includes(VECTOR_INDEX))) {
    problems.push(`no "vector search" on ${VECTOR_INDEX}`);
  }
  if (expect.lexicalSearch && !text.includes(LEXICAL_INDEX)) problems.push(`no scan of ${LEXICAL_INDEX}`);
  if (expect.vectorMutation && !/vector mutation search/.test(text)) problems.push('no "vector mutation search"');
  if (!expect.fullScanAllowed && /FULL SCAN/.test(text)) problems.push('a FULL SCAN');
  return problems;
}

function postgresProblems(expect: PlanExpectations, plan: Plan): string[] {
  const problems: string[] = [];
  const wanted = typeof expect.postgresIndex === 'string' ? [expect.postgresIndex] : (expect.postgresIndex ?? []);
  for (const index of wanted.filter((i) => !plan.indexes.includes(i))) {
    problems.push(`does not use ${index} (uses ${plan.indexes.join(', ') || 'no index'})`);
  }
  const userScans = plan.seqScans.filter((t) => USER_TABLES.includes(t));
  if (!expect.fullScanAllowed && !expect.regionBatch && userScans.length > 0) {
    problems.push(`a sequential scan of ${[...new Set(userScans)].join(', ')}`);
  }
  return problems;
}

/** What is wrong with one statement's plan (and, for ANN reads, its text); empty when all holds. */
export function planProblems(sql: string, expect: PlanExpectations, plan: Plan): string[] {
  const shape = [...(expect.vectorSearch ? prefixProblems(sql) : []), ...(expect.lexicalSearch ? lexicalProblems(sql) : [])];
  return [...shape, ...(plan.engine === 'cockroach' ? cockroachProblems(expect, plan) : postgresProblems(expect, plan))];
}
