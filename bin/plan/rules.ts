import type { PlanExpectations } from '../../lambda/adapters/pg/sql/statement.js';
import type { Plan } from './explain.js';

/** Tables holding per-user data: a sequential scan of one of them reads every user's rows. */
const USER_TABLES = [
  'memories',
  'journal',
  'memory_links',
  'memory_terms',
  'memory_partition_terms',
  'memory_partitions',
  'memory_cells',
];

/** The vector index of the CockroachDB DDL (sql/cockroach/0001_init.sql). */
export const VECTOR_INDEX = 'memories@memories_embedding';
/**
 * The lexical arm's postings in ranking order, a term's flagged ones in a span of their own: all it
 * reads of a term past the depth (sql/cockroach/0023_term_ranked.sql, decision 0160).
 */
export const LEXICAL_INDEX = 'memory_terms@memory_terms_ranked';
/** What follows a recalled memory in its origin, read by place (sql/cockroach/0009_origin_sequence.sql). */
export const FOLLOWING_INDEX = 'memories@memories_origin_seq';
/** The same index by its PostgreSQL name. */
const FOLLOWING_PG_INDEX = 'memories_origin_seq';
/** PostgreSQL's vector arm: a partition's memories by cell, and those without one (sql/postgres/0011_vector_cells.sql). */
const CELLS_INDEX = 'memories_cell';
/** What the lexical arm reads with the (region, user, kind) prefix pinned: kept counts, document frequencies, postings. */
const LEXICAL_TABLES = ['memory_partitions', 'memory_partition_terms', 'memory_terms'];

const squash = (sql: string) => sql.replace(/\s+/g, ' ').trim();

const PARAM = String.raw`\$\d+(?:::\w+)?`;
const COLUMN = (name: string) => String.raw`(?:\w+\.)?${name}`;
const EQUALITY = new RegExp(`^(${COLUMN('region')}|${COLUMN('user_id')}|${COLUMN('kind')}) = ${PARAM}$`);
const TUPLE_IN = new RegExp(
  String.raw`^\(${COLUMN('region')}, ${COLUMN('user_id')}, ${COLUMN('kind')}\) IN \(\(${PARAM}, ${PARAM}, ${PARAM}\)(?:, \(${PARAM}, ${PARAM}, ${PARAM}\))*\)$`,
);
const ANN = /FROM memories(?: AS \w+)? WHERE ((?:(?!FROM ).)+?) ORDER BY (?:\w+\.)?embedding <=> \$\d+::vector LIMIT/g;
/** A read of `table` under an alias, maybe joined with the term weights, and its WHERE clause up to the next keyword. */
const lexicalRead = (table: string) =>
  new RegExp(
    String.raw`FROM ${table} AS (\w+)(?: JOIN lex_weights AS \w+ ON [^()]*?)? WHERE ((?:(?! GROUP | AND \w+\.term ).)+?\)\))`,
    'g',
  );

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
 * The same rule for the lexical arm: each of its reads of kept statistics and postings pins the
 * whole (region, user_id, kind) prefix by a tuple IN, so that each is a range of its primary key
 * in one user's partitions and never anyone else's (decision 0056).
 */
export function lexicalProblems(sql: string): string[] {
  const text = squash(sql);
  const problems: string[] = [];
  for (const table of LEXICAL_TABLES) {
    const reads = [...text.matchAll(lexicalRead(table))];
    if (reads.length === 0)
      problems.push(`no lexical read of ${table} (FROM ${table} AS x WHERE (x.region, x.user_id, x.kind) IN …)`);
    for (const [, , where = ''] of reads) {
      if (!TUPLE_IN.test(where))
        problems.push(`lexical read of ${table} filters on "${where}": only the (region, user_id, kind) prefix`);
    }
  }
  return problems;
}

/**
 * What follows a hit must be read by place (decision 0082): a lookup join into
 * `memories_origin_seq` whose key includes `origin_seq`. Read by (user, origin, kind) alone, a
 * lookup join cannot stop after a few rows per hit, and each hit would read its whole origin.
 */
function followingProblems(lines: readonly string[]): string[] {
  const reads = lines.flatMap((l, at) => (l.includes(`table: ${FOLLOWING_INDEX}`) ? [at] : []));
  if (reads.length === 0) return [`no read of ${FOLLOWING_INDEX}`];
  const byPlace = (at: number) => {
    const node = lines.slice(at + 1);
    const end = node.findIndex((l) => l.includes('•'));
    // The key by equality: origin_seq among the equality's columns, or `origin_seq =` in a lookup condition.
    return (end < 0 ? node : node.slice(0, end)).some(
      (l) => /equality:.*\borigin_seq\b/.test(l) || /lookup condition:.*\borigin_seq = /.test(l),
    );
  };
  return reads.every(byPlace) ? [] : [`${FOLLOWING_INDEX} is not read by place (no lookup on origin_seq)`];
}

/** The same on PostgreSQL: every scan of `memories_origin_seq` has `origin_seq = …` in its index condition. */
function postgresFollowingProblems(lines: readonly string[]): string[] {
  const reads = lines.filter((l) => l.includes(`using ${FOLLOWING_PG_INDEX} `));
  return reads.every((l) => /\(origin_seq = /.test(l))
    ? []
    : [`${FOLLOWING_PG_INDEX} is not read by place (no origin_seq = … in its index condition)`];
}

/**
 * The vector arm by cells on PostgreSQL (decision 0083): every scan of `memories_cell` has the
 * cell in its index condition, so that a partition with cells is read a few cells at a time; and
 * no read of `memories_user_kind`, which would bring the whole partition.
 */
function postgresCellsProblems(plan: Plan): string[] {
  const reads = plan.lines.filter((l) => l.includes(`using ${CELLS_INDEX} `));
  const problems = reads.every((l) => /\(cell = /.test(l))
    ? []
    : [`${CELLS_INDEX} is not read by cell (no cell = … in its index condition)`];
  if (plan.indexes.includes('memories_user_kind')) problems.push('the vector arm reads memories_user_kind: the whole partition');
  return problems;
}

/** The index whose span of a term with `best = true` holds its flagged postings and nothing else (sql/postgres/0026_term_ranked.sql). */
const FLAGGED_PG_INDEX = 'memory_terms_ranked';
/** A read of the flagged span: that index, with `best = true` in its index condition. */
const flaggedRead = (line: string) => line.includes(`using ${FLAGGED_PG_INDEX} `) && /\bbest = true\b/.test(line);

/**
 * The lexical bound on PostgreSQL (decisions 0101, 0160): every read of `memory_terms` is either of
 * the flagged postings (the `best = true` span of `memory_terms_ranked`, which holds at most
 * `POSTING_CUT.flagged` per term and partition) or sits under a gate on the term's kept frequency
 * (`df <= …`, so that it reads at most that many), whatever the LIMIT above it.
 */
function postgresLexicalProblems(lines: readonly string[]): string[] {
  const depth = (line: string) => line.length - line.trimStart().length;
  const gated = (at: number) => {
    for (let i = at - 1, below = depth(lines[at] ?? ''); i >= 0; i -= 1) {
      const line = lines[i] ?? '';
      if (depth(line) >= below) continue;
      if (/\bif .*\bdf <= /.test(line)) return true;
      below = depth(line);
    }
    return false;
  };
  const reads = lines.flatMap((l, at) => (/ on memory_terms\b/.test(l) ? [at] : []));
  if (!reads.some((at) => flaggedRead(lines[at] ?? '')))
    return [`no read of the flagged postings (${FLAGGED_PG_INDEX}, best = true)`];
  return reads
    .filter((at) => !flaggedRead(lines[at] ?? '') && !gated(at))
    .map((at) => `memory_terms read past the flagged postings with no gate on the kept frequency: ${lines[at]?.trim()}`);
}

function cockroachProblems(expect: PlanExpectations, plan: Plan): string[] {
  const text = plan.lines.join('\n');
  const problems: string[] = [];
  if (expect.vectorSearch && !(/•\s*vector search/.test(text) && text.includes(VECTOR_INDEX))) {
    problems.push(`no "vector search" on ${VECTOR_INDEX}`);
  }
  if (expect.lexicalSearch && !text.includes(LEXICAL_INDEX)) problems.push(`no read of ${LEXICAL_INDEX}`);
  if (expect.followingRead) problems.push(...followingProblems(plan.lines));
  if (expect.vectorMutation && !/vector mutation search/.test(text)) problems.push('no "vector mutation search"');
  if (!expect.fullScanAllowed && /FULL SCAN/.test(text)) problems.push('a FULL SCAN');
  for (const index of [expect.cockroachIndex ?? []].flat()) {
    if (!text.includes(`table: ${index}`)) problems.push(`no read of ${index}`);
  }
  if (expect.noIndexJoin && /•\s*index join/.test(text)) problems.push('an index join: rows read by key from another span');
  return problems;
}

/** Nodes that read all of their input before giving a row: under a LIMIT, the scan below reads past the batch. */
const BLOCKING = new Set(['Sort', 'Hash', 'HashAggregate', 'GroupAggregate', 'Aggregate', 'Materialize']);
const depthOf = (line: string) => (line.length - line.trimStart().length) / 2;
/** A plan line's node type: what comes before its index, relation and condition. */
const nodeType = (line: string) => line.trim().replace(/ (using|on|by) .*$/, '');
const USER_SCAN = new RegExp(`\\bon (${USER_TABLES.join('|')})\\b`);
/** A scan of a table (not of a CTE, a subquery or a function). */
const isTableScan = (line: string) => /Scan$/.test(nodeType(line)) && / on \w+/.test(line);

/**
 * A region-wide batch on PostgreSQL (decision 0098): a LIMIT that an index scan feeds directly, in
 * the order it wants, so that the scan stops after the batch; no sequential scan of a per-user table
 * (that reads the whole region), no blocking node between the LIMIT and the scan (a sort or a hash
 * below a LIMIT reads every matching row of the region first), and no filter on the scan (the rows
 * it discards, of other kinds or users, are read too).
 */
function postgresBatchProblems(plan: Plan): string[] {
  const problems: string[] = [];
  let limited = false;
  plan.lines.forEach((line, at) => {
    if (nodeType(line) !== 'Limit') return;
    const depth = depthOf(line);
    const end = plan.lines.findIndex((l, i) => i > at && depthOf(l) <= depth);
    const below = plan.lines.slice(at + 1, end < 0 ? undefined : end);
    if (below.some(isTableScan)) limited = true;
    for (const scan of below.filter((l) => isTableScan(l) && USER_SCAN.test(l) && / filter /.test(l))) {
      problems.push(
        `a filter on ${USER_SCAN.exec(scan)?.[1]} under a LIMIT: the rows it discards are read too, up to the whole region`,
      );
    }
    below.forEach((l, i) => {
      if (!BLOCKING.has(nodeType(l))) return;
      const inner = below.slice(i + 1).findIndex((x) => depthOf(x) <= depthOf(l));
      const under = below.slice(i + 1, inner < 0 ? undefined : i + 1 + inner);
      if (under.some((x) => isTableScan(x) && USER_SCAN.test(x)))
        problems.push(`a ${nodeType(l)} under a LIMIT: the batch's scan reads past it`);
    });
  });
  if (!limited) problems.push('no LIMIT over a table scan: the batch is not bounded');
  return problems;
}

/**
 * An index scan run again for each row of its outer side (its condition names another relation's
 * column) must not also carry a list of constants: PostgreSQL sorts the list again at every
 * rescan, so n rows against a list of n cost n² (decision 0158: 220 ms for one 8 KB memory). A
 * list of booleans holds two values at most, whatever the data (a posting's flag looked up both
 * ways, decision 0167), so it is not one.
 */
function postgresRescannedListProblems(lines: readonly string[]): string[] {
  const list = / by .*= ANY \('\{[^}]*\}'::(?!boolean\[\])/;
  return lines
    .filter((l) => isTableScan(l) && list.test(l) && / by .*= \(?[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*\)/.test(l))
    .map((l) => `a scan run per outer row with a list in its condition, sorted again each time: ${l.trim().slice(0, 160)}`);
}

function postgresProblems(expect: PlanExpectations, plan: Plan): string[] {
  const problems: string[] = [];
  const named = typeof expect.postgresIndex === 'string' ? [expect.postgresIndex] : (expect.postgresIndex ?? []);
  const wanted = [...named, ...(expect.followingRead ? [FOLLOWING_PG_INDEX] : [])];
  for (const index of wanted.filter((i) => !plan.indexes.includes(i))) {
    problems.push(`does not use ${index} (uses ${plan.indexes.join(', ') || 'no index'})`);
  }
  if (expect.followingRead && plan.indexes.includes(FOLLOWING_PG_INDEX)) problems.push(...postgresFollowingProblems(plan.lines));
  if (expect.cellsRead) problems.push(...postgresCellsProblems(plan));
  if (expect.lexicalSearch) problems.push(...postgresLexicalProblems(plan.lines));
  problems.push(...postgresRescannedListProblems(plan.lines));
  const userScans = plan.seqScans.filter((t) => USER_TABLES.includes(t));
  if (!expect.fullScanAllowed && userScans.length > 0) {
    problems.push(`a sequential scan of ${[...new Set(userScans)].join(', ')}`);
  }
  if (expect.regionBatch && !expect.fullScanAllowed) problems.push(...postgresBatchProblems(plan));
  return problems;
}

/** What is wrong with one statement's plan (and, for ANN reads, its text); empty when all holds. */
export function planProblems(sql: string, expect: PlanExpectations, plan: Plan): string[] {
  const shape = [...(expect.vectorSearch ? prefixProblems(sql) : []), ...(expect.lexicalSearch ? lexicalProblems(sql) : [])];
  return [...shape, ...(plan.engine === 'cockroach' ? cockroachProblems(expect, plan) : postgresProblems(expect, plan))];
}
