import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../lib/bundling.js';

/**
 * The curation rules are stated once, in lambda/memory/policy/, and the statements take them from
 * there through sql/policy.ts (`predicate`, `orderBy`, and the rules of counts and flags over
 * `SQL`). This test reads the statements' sources and fails when one writes a rule again by hand:
 * a column condition of the policy, a policy input compared or counted with by hand, or a number
 * the policy exports.
 */

const PG = join(REPO_ROOT, 'lambda', 'adapters', 'pg');
const POLICY = join(REPO_ROOT, 'lambda', 'memory', 'policy');

/** The statements and the fragments they share; sql/policy.ts is the renderer itself. */
function sources(): { file: string; text: string }[] {
  const statements = readdirSync(join(PG, 'statements'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
    .map((f) => `statements/${f}`);
  return [...statements, 'sql/fragments.ts', 'sql/postings.ts']
    .sort()
    .map((file) => ({ file, text: code(readFileSync(join(PG, file), 'utf8')) }));
}

/** Source without its comments (TypeScript and SQL), which may name a rule in words. */
const code = (source: string) =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/^\s*\/\/.*$/gm, ' ')
    .replace(/--[^\n`]*/g, ' ');

const RULE_INPUT = String.raw`\$\{p\.(?:pinLimit|ceiling|fusion\.farthest|fusion\.followerPlaces)\}(?:::\w+)?`;
const OPERATOR = String.raw`(?:<=|>=|<>|<|>|=|\+|-|\*)`;

/** What a statement must not write by hand, each with the rule (policy/…) that states it. */
const HAND_WRITTEN: readonly { readonly rule: string; readonly pattern: RegExp }[] = [
  { rule: 'pinned (condition.ts): use predicate(pinned | not(pinned))', pattern: /\bNOT\s+(?:\w+\.)?pinned\b/ },
  {
    rule: 'pinned (condition.ts): use predicate(pinned)',
    pattern: /\b(?:AND|WHERE|OR)\s+(?:\w+\.)?pinned\s*(?:\)|AND\b|OR\b|$)/m,
  },
  { rule: 'pinned after a change (pins.ts pinnedAfterIn)', pattern: /\b(?:\w+\.)?pinned\s+OR\b/ },
  { rule: 'superseded (supersession.ts): use predicate(SUPERSEDED)', pattern: /superseded_by\s+IS\s+(?:NOT\s+)?NULL/ },
  { rule: 'useful since the cutoff (expiry.ts LIVE / EXPIRED)', pattern: /last_useful_at\s*(?:<=|>=|<|>)/ },
  {
    rule: 'the expires flag (expiry.ts inExpiryIndexIn / expiresAfterIn)',
    pattern: /\bexpires\s*=(?!\s*\$\{(?:expression\(|marks\}))/,
  },
  { rule: 'the ceiling’s excess (eviction.ts excessIn)', pattern: /GREATEST\(\s*0\s*,/ },
  { rule: 'the followers’ share (recency.ts keptPlacesIn)', pattern: /\bfloor\([^)]*\$\{p\.(?:fusion\.followerPlaces|limit)\}/ },
  {
    rule: 'a policy input compared or counted with by hand',
    pattern: new RegExp(`${OPERATOR}\\s*${RULE_INPUT}|${RULE_INPUT}\\s*${OPERATOR}`),
  },
  {
    rule: 'a ceiling compared by hand (eviction.ts fitsWithoutEvictionIn)',
    pattern: /\w+\.ceiling\s*(?:<=|>=|<|>)|(?:<=|>=|<|>)\s*\w+\.ceiling\b/,
  },
];

/** Where a statement writes what looks like a rule but is not one: each with why, and each must still be found. */
const NOT_RULES: readonly { readonly file: string; readonly rule: string; readonly why: string }[] = [
  {
    file: 'statements/transfer/import-memories.ts',
    rule: 'superseded (supersession.ts): use predicate(SUPERSEDED)',
    why: 'a write guard on the column: an import marks only a row that holds no mark, and keeps one whose replacement is gone as it is',
  },
];

/** The numbers the policy exports (constants and the fields of its constant objects), but those a statement needs for itself. */
async function policyNumbers(): Promise<Map<number, string>> {
  const numbers = new Map<number, string>();
  const visit = (value: unknown, path: string) => {
    if (typeof value === 'number') numbers.set(value, numbers.get(value) ?? path);
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) visit(inner, `${path}.${key}`);
    }
  };
  for (const file of readdirSync(POLICY).filter((f) => f.endsWith('.ts'))) {
    const module: Record<string, unknown> = await import(`../../lambda/memory/policy/${file.replace(/\.ts$/, '.js')}`);
    for (const [name, value] of Object.entries(module)) visit(value, `${file}:${name}`);
  }
  // 0, 1 and 2 are SQL's own (a count's start, a step, an ordinal in GROUP BY); a rule that needs one gets it from `SQL.constant`.
  for (const structural of [0, 1, 2]) numbers.delete(structural);
  return numbers;
}

/** Numbers a statement writes that the policy also exports by coincidence: each with why, and each must still be found. */
const COINCIDENCES: readonly { readonly file: string; readonly literal: string; readonly why: string }[] = [
  {
    file: 'statements/recall/recall-arms.ts',
    literal: '0.5',
    why: 'BM25’s inverse document frequency, ln(1 + (N − df + 0.5) / (df + 0.5)), not FUSION.vectorWeight',
  },
  { file: 'statements/page/writers.ts', literal: '3', why: 'the third column of `ORDER BY 3 DESC`, not JUDGED_CANDIDATES' },
  {
    file: 'statements/schema/stale-statistics.ts',
    literal: '1.2',
    why: 'a fifth beyond the last ANALYZE’s pages, not LEXICAL.k1',
  },
];

function findings(): { file: string; rule: string; text: string }[] {
  return sources().flatMap(({ file, text }) =>
    HAND_WRITTEN.flatMap(({ rule, pattern }) => {
      const found = text.match(pattern);
      return found ? [{ file, rule, text: found[0].trim() }] : [];
    }),
  );
}

/** A statement's source written with `$<name>` for each `${name}` placeholder (a string literal may not hold the latter). */
const source = (written: string) => written.replace(/\$<([\w.]+)>/g, (_, name: string) => `$${'{'}${name}}`);

describe('every rule generated from memory/policy, none restated in a statement', () => {
  test('no statement writes a rule’s column condition or arithmetic by hand', () => {
    const written = findings().filter((f) => !NOT_RULES.some((n) => n.file === f.file && n.rule === f.rule));
    expect(written).toEqual([]);
  });

  test('each place that looks like a rule but is not is still there (the list does not outlive its reason)', () => {
    const found = findings();
    for (const n of NOT_RULES)
      expect({ ...n, found: found.some((f) => f.file === n.file && f.rule === n.rule) }).toEqual({ ...n, found: true });
  });

  test('no statement writes a number the policy exports', async () => {
    const numbers = await policyNumbers();
    expect(numbers.size).toBeGreaterThan(20);
    const written = sources().flatMap(({ file, text }) =>
      [...text.matchAll(/(?<![\w.$[])\d+(?:\.\d+)?(?:e-?\d+)?(?![\w.])/g)]
        .map((m) => m[0])
        .filter((literal) => numbers.has(Number(literal)))
        .filter((literal) => !COINCIDENCES.some((c) => c.file === file && c.literal === literal))
        .map((literal) => `${file}: ${literal} (${numbers.get(Number(literal))})`),
    );
    expect(written).toEqual([]);
    for (const c of COINCIDENCES) {
      const text = sources().find((s) => s.file === c.file)?.text ?? '';
      expect({ ...c, found: new RegExp(`(?<![\\w.])${c.literal.replace('.', '\\.')}(?![\\w.])`).test(text) }).toEqual({
        ...c,
        found: true,
      });
    }
  });

  // The patterns are only worth their silence if they catch what used to be written: the forms the statements held before issue 49.
  test.each([
    ['the pin limit', 'AND user_id = $<userId>::uuid AND pinned) < $<p.pinLimit>::int4) AS pin_ok'],
    ['the pin limit of a set', 'OR NOT EXISTS (SELECT 1 FROM target WHERE NOT pinned)'],
    ['an import’s pins', 'SELECT p.adding = 0 OR p.have + p.adding <= $<p.pinLimit>::int4 FROM pins AS p'],
    ['the ceiling’s excess', 'SELECT GREATEST(0, (SELECT count(*) FROM live_rows) + 1 - $<p.ceiling>::int4) AS n'],
    ['an import’s ceilings', 'WHERE r.adding > 0 AND r.have + r.adding > r.ceiling'],
    ['the floor', 'SELECT id, part, distance <= $<p.fusion.farthest>::float8 AS related FROM vector_arm'],
    [
      'the followers’ share',
      'LIMIT $<p.limit>::int4 - CAST(floor($<p.fusion.followerPlaces>::float8 * $<p.limit>::int4) AS INT4)',
    ],
    ['the expires flag', 'expires = m.expires AND NOT excluded.pinned,'],
    ['the expires flag when marked', 'UPDATE memories AS m SET expires = true'],
    ['pinned after a restatement', 'pinned = m.pinned OR excluded.pinned,'],
    ['liveness', 'WHERE (k.pinned OR k.last_useful_at >= $<p.cutoff>::timestamptz)'],
    ['supersession', 'AND m.superseded_by IS NOT NULL'],
  ])('the hand-written form of %s is caught', (_, written) => {
    expect(HAND_WRITTEN.some(({ pattern }) => pattern.test(code(source(written))))).toBe(true);
  });
});
