import type { SqlEngine } from '../../lambda/adapters/pg/sql-client.js';
import { FORGET_IDS } from '../../lambda/adapters/pg/statements/curation/forget-ids.js';
import { NEIGHBOURS } from '../../lambda/adapters/pg/statements/curation/neighbours.js';
import { RECALL } from '../../lambda/adapters/pg/statements/recall/recall.js';
import { FUSION, LEXICAL } from '../../lambda/memory/policy/ranking.js';

/** The texts of runtime statements as a store sends them, for tests of the plan rules on the SQL itself. */

const scope = { region: 'eu-central-1', userId: '00000000-0000-4000-8000-000000000001' };
const KINDS = ['fact', 'session', 'event'];

/** Recall's text over `kinds` kinds, the first `ttlKinds` of them with a TTL, with or without the lexical arm. */
export function recallText(
  kinds: number,
  ttlKinds: number,
  lexical: boolean,
  touch = true,
  engine: SqlEngine = 'cockroach',
): string {
  return RECALL.query(
    {
      scope,
      embedding: '[1,0]',
      terms: lexical ? ['market'] : [],
      kinds: KINDS.slice(0, kinds).map((kind, i) => ({ kind, expiredBefore: i < ttlKinds ? new Date(0) : null })),
      candidates: 50,
      depth: 50,
      limit: 10,
      now: new Date(0),
      fusion: { ...FUSION, farthest: 2 },
      lexical: LEXICAL,
      touch,
    },
    engine,
  ).text;
}

/** The duplicate check's read. */
export const NEIGHBOURS_TEXT = NEIGHBOURS.query(
  {
    scope,
    kind: 'fact',
    embedding: '[1,0]',
    fingerprint: 'f',
    expiredBefore: null,
    candidates: 1,
    judged: 1,
    terms: ['t'],
    wordsRead: 50,
  },
  'cockroach',
).text;

/** Forgetting by id, with `ttlKinds` kinds that have a TTL. */
export const forgetIdsText = (ttlKinds: number) =>
  FORGET_IDS.query(
    { scope, ids: [], expiry: KINDS.slice(0, ttlKinds).map((kind) => ({ kind, expiredBefore: new Date(0) })) },
    'postgres',
  ).text;
