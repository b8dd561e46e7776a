import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import { ExactOnlyJudge } from '../../lambda/adapters/local/judge.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { param, sql } from '../../lambda/adapters/pg/sql/template.js';
import { KindFullError, PinLimitError } from '../../lambda/memory/errors.js';
import { Sweeper } from '../../lambda/memory/maintenance/sweeper.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { CurationRules, Principal } from '../../lambda/memory/model.js';
import { LEXICAL, POSTING_CUT } from '../../lambda/memory/policy/ranking.js';
import { type MemoryServices, memoryServices } from '../../lambda/memory/services.js';
import type { MemoryStores } from '../../lambda/ports/memory-stores.js';
import { ManualClock } from '../support/clock.js';
import { CurationModel, type ModelLine } from './curation-model.js';
import { storedVector } from '../../lambda/adapters/in-memory/state.js';
import { fingerprint } from '../../lambda/memory/canonical.js';
import type { JudgeOutcome } from '../../lambda/memory/model.js';
import type { Judge } from '../../lambda/ports/judge.js';

/**
 * The reference model against the real store: random sequences of remember, recall, forget, pin and unpin,
 * the clock moving and the sweeper, each run on the memory service over a real SQL engine and on
 * the model, compared after every step — which memories live, the counts, the next-to-go order and
 * every journal line (rule, kind, time, age, recall count). fast-check shrinks a failing sequence
 * and prints it.
 */

/** Small ceilings and TTLs so that every rule fires within a few steps. */
export const MODEL_RULES: CurationRules = {
  kinds: {
    note: { ceiling: 3, ttlSeconds: null },
    session: { ceiling: 3, ttlSeconds: 5 },
    log: { ceiling: 4, ttlSeconds: 8, dedup: false },
    // Only updates of one fact are remembered here, and the judge calls any two of them contradicting.
    status: { ceiling: 3, ttlSeconds: null, supersededGraceSeconds: 6 },
  },
  pinLimit: 2,
  journalRetentionSeconds: 20,
};
const KINDS = Object.keys(MODEL_RULES.kinds);
const USERS = ['alice', 'bob'] as const;
type User = (typeof USERS)[number];

/** A few claims, and spellings of each that are exact restatements of it. */
const PHRASES = [
  'the sky is blue',
  'water boils at 100 degrees',
  'my cat is called Tom',
  'the meeting moved to Friday',
  'Ouagadougou is the capital',
];
/** Versions of one fact: the test's judge says any two that differ contradict (the `status` kind holds only these). */
const UPDATES = [
  'the office is in Lyon',
  'the office moved to Paris',
  'the office is now in Nantes',
  'the office is back in Lyon',
];
const UPDATE_PRINTS = new Set(UPDATES.map(fingerprint));
const isUpdate = (text: string) => UPDATE_PRINTS.has(fingerprint(text));
/** Two different versions of the fact contradict; anything else is as the offline judge says. */
const contradicts = (existing: string, incoming: string) =>
  isUpdate(existing) && isUpdate(incoming) && fingerprint(existing) !== fingerprint(incoming);

/** The offline judge, except that it calls two different versions of the `status` fact contradicting. */
class UpdateJudge implements Judge {
  readonly name = 'model-updates';
  private readonly offline = new ExactOnlyJudge();
  async compare(existing: string, incoming: string): Promise<JudgeOutcome> {
    return contradicts(existing, incoming) ? 'contradicts' : this.offline.compare();
  }
}

const SPELLINGS: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => s.toUpperCase(),
  (s) => `${s}!`,
  (s) => s.replace('a', 'à'),
];

const T0 = Date.parse('2026-01-01T00:00:00Z');
const QUERIES = [...PHRASES, ...UPDATES];

interface Real {
  readonly service: MemoryServices;
  readonly sweeper: Sweeper;
  readonly clock: ManualClock;
  readonly principals: Record<User, Principal>;
  readonly region: string;
}

interface World {
  readonly model: CurationModel;
  /** Every id ever stored per user, so that forget can name removed and expired ones too. */
  readonly ids: Record<User, string[]>;
}

const CLIENT = { name: 'model', version: '1' };

type Command = fc.AsyncCommand<World, Real>;

class Mismatch extends Error {
  override name = 'Mismatch';
}

function same(what: string, actual: unknown, expected: unknown): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Mismatch(`${what}\n  real:  ${a}\n  model: ${e}`);
}

const lineKey = (l: ModelLine) =>
  `${new Date(l.at).toISOString()} ${l.kind} ${l.rule} age ${l.ageSeconds} recalled ${l.recallCount}`;

/** Everything observable of one user compared with the model: live memories, counts, next to go, journal. */
async function compare(world: World, real: Real, user: User): Promise<void> {
  const { model } = world;
  const principal = real.principals[user];
  const page = await real.service.page.browse(principal, { limit: 100 });
  same(
    `${user}: live memories`,
    page.memories
      .map((m) => ({
        id: m.id,
        kind: m.kind,
        pinned: m.pinned,
        created: m.createdAt.getTime(),
        useful: m.lastUsefulAt.getTime(),
        recalls: m.recallCount,
        restatements: m.restatements,
        supersededBy: m.supersededBy,
      }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    model
      .live(user)
      .map((m) => ({
        id: m.id,
        kind: m.kind,
        pinned: m.pinned,
        created: m.createdAt,
        useful: m.lastUsefulAt,
        recalls: m.recallCount,
        restatements: m.restatements,
        supersededBy: model.isSuperseded(user, m) ? m.supersededBy : null,
      }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  );
  const overview = await real.service.page.overview(principal);
  same(
    `${user}: counts per kind and pinned`,
    { kinds: overview.kinds.map((k) => [k.kind, k.count, k.pinned]), pinned: overview.pinned },
    {
      kinds: KINDS.map((k) => [k, model.live(user, [k]).length, model.live(user, [k]).filter((m) => m.pinned).length]),
      pinned: model.live(user).filter((m) => m.pinned).length,
    },
  );
  const next = await real.service.page.nextToGo(principal, 50);
  same(
    `${user}: next to go, per kind`,
    next.map((k) => [k.kind, k.evictNext.map((m) => m.id)]),
    KINDS.map((k) => [k, model.evictionOrder(user, k).map((m) => m.id)]),
  );
  const lines: ModelLine[] = [];
  let cursor: string | undefined;
  do {
    const journal = await real.service.page.journal(principal, cursor);
    lines.push(...journal.lines.map((l) => ({ ...l, at: l.at.getTime() })));
    cursor = journal.nextCursor;
  } while (cursor);
  same(`${user}: journal lines`, lines.map(lineKey).sort(), model.journal(user).map(lineKey).sort());
}

const FLAGGED = param('flagged', POSTING_CUT.flagged);
const DEPTH = param('depth', LEXICAL.postingsPerTerm);

/**
 * What the store keeps on write must equal what it would count on read: per partition, memories
 * and total length; per partition and term, the document frequency and the flagged postings (how
 * many, never past the bound, exactly those at or before a known cut, and a term whose flagged
 * ones may miss its best marked for ranking: decision 0101); every posting's memory exists; one
 * posting per (memory, term), and each memory's frequencies and length are its postings' (what
 * finds them again on PostgreSQL, decision 0167).
 */
const KEPT_STATISTICS = sql`
SELECT
  (SELECT count(*) FROM memory_partitions AS p
    WHERE p.kind <> '' AND (p.memories, p.term_total) <> (
      SELECT count(*), COALESCE(sum(m.term_count), 0) FROM memories AS m
       WHERE m.region = p.region AND m.user_id = p.user_id AND m.kind = p.kind))::int4 AS bad_partitions,
  (SELECT count(*) FROM (SELECT region, user_id, kind FROM memories GROUP BY 1, 2, 3) AS m
    WHERE NOT EXISTS (SELECT 1 FROM memory_partitions AS p
                       WHERE (p.region, p.user_id, p.kind) = (m.region, m.user_id, m.kind)))::int4 AS missing_partitions,
  (SELECT count(*) FROM memory_partition_terms AS d
    WHERE d.df <> (SELECT count(*) FROM memory_terms AS t
                    WHERE (t.region, t.user_id, t.kind, t.term) = (d.region, d.user_id, d.kind, d.term)))::int4 AS bad_frequencies,
  (SELECT count(*) FROM (SELECT DISTINCT region, user_id, kind, term FROM memory_terms) AS t
    WHERE NOT EXISTS (SELECT 1 FROM memory_partition_terms AS d
                       WHERE (d.region, d.user_id, d.kind, d.term) = (t.region, t.user_id, t.kind, t.term)))::int4 AS missing_frequencies,
  (SELECT count(*) FROM memory_terms AS t
    WHERE NOT EXISTS (SELECT 1 FROM memories AS m WHERE m.region = t.region AND m.id = t.memory_id AND t.term = ANY(m.terms)))::int4 AS stray_postings,
  (SELECT count(*) FROM memories AS m, unnest(m.terms) AS u(term)
    WHERE NOT EXISTS (SELECT 1 FROM memory_terms AS t
                       WHERE (t.region, t.user_id, t.kind, t.term, t.memory_id) = (m.region, m.user_id, m.kind, u.term, m.id)))::int4 AS missing_postings,
  (SELECT count(*) FROM memory_partition_terms AS d
    WHERE d.best <> (SELECT count(*) FROM memory_terms AS t
                      WHERE (t.region, t.user_id, t.kind, t.term) = (d.region, d.user_id, d.kind, d.term) AND t.best)
       OR d.best > ${FLAGGED}::int4)::int4 AS bad_flag_counts,
  (SELECT count(*) FROM memory_terms AS t JOIN memory_partition_terms AS d
       ON (d.region, d.user_id, d.kind, d.term) = (t.region, t.user_id, t.kind, t.term)
    WHERE d.cut_id IS NOT NULL AND t.best <> ((-t.tf, t.dl, t.memory_id) <= (-d.cut_tf, d.cut_dl, d.cut_id)))::int4 AS off_cut,
  (SELECT count(*) FROM memory_partition_terms AS d
    WHERE NOT d.stale AND d.df > ${DEPTH}::int4
      AND (d.best < ${DEPTH}::int4 OR (d.cut_id IS NULL AND d.df > d.best)))::int4 AS unmarked,
  (SELECT count(*) FROM (SELECT 1 FROM memory_terms GROUP BY region, user_id, kind, term, memory_id HAVING count(*) > 1) AS t)::int4 AS twice_posted,
  (SELECT count(*) FROM memories AS m
    WHERE m.term_tfs IS NULL OR cardinality(m.term_tfs) <> cardinality(m.terms)
       OR EXISTS (SELECT 1 FROM unnest(m.terms, m.term_tfs) AS u(term, tf)
                   WHERE NOT EXISTS (SELECT 1 FROM memory_terms AS t
                                      WHERE (t.region, t.user_id, t.kind, t.term, t.memory_id, t.tf, t.dl)
                                          = (m.region, m.user_id, m.kind, u.term, m.id, u.tf, m.term_count))))::int4 AS untallied`;

async function compareAll(world: World, real: Real): Promise<void> {
  for (const user of USERS) await compare(world, real, user);
}

/** The kept statistics against a recount: once a sequence is over (a drift stays, so it shows then too). */
export async function statisticsHold(sql: SqlClient): Promise<void> {
  const [kept] = await sql.query<Record<string, number>>(KEPT_STATISTICS);
  same('kept statistics against a recount', kept, {
    bad_partitions: 0,
    missing_partitions: 0,
    bad_frequencies: 0,
    missing_frequencies: 0,
    stray_postings: 0,
    missing_postings: 0,
    bad_flag_counts: 0,
    off_cut: 0,
    unmarked: 0,
    twice_posted: 0,
    untallied: 0,
  });
}

class Remember implements Command {
  constructor(
    readonly user: User,
    readonly kind: string,
    readonly phrase: number,
    readonly spelling: number,
    readonly pinned: boolean | undefined,
  ) {}
  check = () => true;
  private get content(): string {
    const phrases = this.kind === 'status' ? UPDATES : PHRASES;
    return (SPELLINGS[this.spelling] ?? String)(phrases[this.phrase % phrases.length] ?? '');
  }
  async run(world: World, real: Real): Promise<void> {
    const expected = world.model.remember(this.user, this.kind, this.content, this.pinned);
    let id = '';
    try {
      const result = await real.service.curation.remember(real.principals[this.user], CLIENT, {
        content: this.content,
        kind: this.kind,
        pinned: this.pinned,
      });
      id = result.id;
      if (expected.outcome !== 'kind_full')
        same(
          'remember pin',
          [result.pinned, result.pinLimitReached !== undefined],
          [expected.pinned, expected.pinLimitReached === true],
        );
      if (expected.outcome === 'stored') {
        same('remember outcome', [result.outcome, result.evicted], ['stored', expected.evicted]);
        world.ids[this.user].push(id);
      } else if (expected.outcome === 'superseded') {
        same(
          'remember outcome',
          [result.outcome, result.supersedes, result.evicted],
          ['superseded', expected.supersedes, expected.evicted],
        );
        world.ids[this.user].push(id);
      } else if (expected.outcome === 'merged') {
        same(
          'remember outcome',
          [result.outcome, result.mergedInto, result.supersedes ?? null],
          ['merged', expected.into, expected.supersedes ?? null],
        );
      } else same('remember outcome', result.outcome, expected.outcome);
    } catch (error) {
      const got = error instanceof KindFullError ? 'kind_full' : undefined;
      if (got === undefined) throw error;
      same('remember outcome', got, expected.outcome);
    }
    world.model.applyRemember(this.user, this.kind, this.content, expected, id);
    await compareAll(world, real);
  }
  toString = () =>
    `remember(${this.user}, ${this.kind}, ${JSON.stringify(this.content)}${this.pinned === undefined ? '' : `, pinned: ${this.pinned}`})`;
}

class Recall implements Command {
  constructor(
    readonly user: User,
    readonly kinds: readonly string[] | undefined,
    readonly phrase: number,
  ) {}
  check = () => true;
  async run(world: World, real: Real): Promise<void> {
    const query = QUERIES[this.phrase % QUERIES.length] ?? '';
    const got = await real.service.curation.recall(real.principals[this.user], { query, kinds: this.kinds, limit: 20 });
    // Superseded memories are left out of recall: only current ones may come back.
    const live = world.model.current(this.user, this.kinds);
    const ids = got.map((m) => m.id);
    const foreign = ids.filter((id) => !live.some((m) => m.id === id));
    if (foreign.length > 0)
      throw new Mismatch(`recall returned memories that are not live for ${this.user}: ${foreign.join(', ')}`);
    if (new Set(ids).size !== ids.length) throw new Mismatch('recall returned a memory twice');
    const exact = live.filter((m) => m.fingerprint === world.model.fingerprintOf(query));
    const missing = exact.filter((m) => !ids.includes(m.id));
    if (missing.length > 0) throw new Mismatch(`recall of its exact text missed live memories ${missing.map((m) => m.id)}`);
    world.model.recalled(this.user, ids);
    await compareAll(world, real);
  }
  toString = () =>
    `recall(${this.user}, ${this.kinds ? `[${this.kinds.join(', ')}]` : 'all kinds'}, ${JSON.stringify(QUERIES[this.phrase % QUERIES.length])})`;
}

class ForgetIds implements Command {
  constructor(
    readonly user: User,
    readonly picks: readonly number[],
    readonly stranger: boolean,
  ) {}
  check = () => true;
  async run(world: World, real: Real): Promise<void> {
    const known = [...world.ids.alice, ...world.ids.bob];
    const ids = [
      ...new Set([
        ...this.picks.flatMap((p) => (known.length > 0 ? [known[p % known.length] ?? ''] : [])),
        ...(this.stranger ? [randomUUID()] : []),
      ]),
    ];
    if (ids.length === 0) return;
    const result = await real.service.curation.forget(real.principals[this.user], { ids });
    same('forget by ids: deleted', [...result.deleted].sort(), world.model.forgetIds(this.user, ids).sort());
    await compareAll(world, real);
  }
  toString = () => `forgetIds(${this.user}, picks ${this.picks.join('/')}${this.stranger ? ' + an unknown id' : ''})`;
}

class ForgetAll implements Command {
  constructor(
    readonly user: User,
    readonly kind: string | undefined,
  ) {}
  check = () => true;
  async run(world: World, real: Real): Promise<void> {
    const result = await real.service.curation.forget(real.principals[this.user], { all: true, kind: this.kind });
    const expected = world.model.forgetAll(this.user, this.kind);
    same('forget all', [result.count, result.journalLinesRemoved], [expected.count, expected.journalLinesRemoved]);
    await compareAll(world, real);
  }
  toString = () => `forgetAll(${this.user}${this.kind ? `, ${this.kind}` : ''})`;
}

class SetPinned implements Command {
  constructor(
    readonly user: User,
    readonly pick: number,
    readonly pinned: boolean,
  ) {}
  check = () => true;
  async run(world: World, real: Real): Promise<void> {
    const known = [...world.ids.alice, ...world.ids.bob];
    const id = known.length > 0 ? (known[this.pick % known.length] ?? randomUUID()) : randomUUID();
    const expected = world.model.setPinned(this.user, id, this.pinned);
    let got: string;
    try {
      const result = await real.service.page.setPinned(real.principals[this.user], id, this.pinned);
      got = result === undefined ? 'gone' : result.changed ? 'changed' : 'unchanged';
    } catch (error) {
      if (!(error instanceof PinLimitError)) throw error;
      got = 'pin_limit';
    }
    same(`${this.pinned ? 'pin' : 'unpin'} outcome`, got, expected);
    await compareAll(world, real);
  }
  toString = () => `${this.pinned ? 'pin' : 'unpin'}(${this.user}, pick ${this.pick})`;
}

class Advance implements Command {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(world: World, real: Real): Promise<void> {
    real.clock.advance(this.seconds);
    world.model.now += this.seconds * 1000;
    await compareAll(world, real);
  }
  toString = () => `advance(${this.seconds} s)`;
}

class Sweep implements Command {
  check = () => true;
  async run(world: World, real: Real): Promise<void> {
    await real.sweeper.run(real.region, { batchSize: 2, maxBatches: 100 });
    world.model.sweep();
    await compareAll(world, real);
  }
  toString = () => 'sweep()';
}

/** Mostly one user, so that a partition fills; the other is there to prove nothing crosses over. */
const user = fc.constantFrom<User>('alice', 'alice', 'alice', 'bob');
const kind = fc.constantFrom(...KINDS);

/** A quarter of remembers ask for a pin, so that the pin limit is met; an eighth unpin what they restate. */
const remember = fc
  .tuple(user, kind, fc.nat(Math.max(PHRASES.length, UPDATES.length) - 1), fc.nat(SPELLINGS.length - 1), fc.nat(7))
  .map(([u, k, p, s, pin]) => new Remember(u, k, p, s, pin < 2 ? true : pin === 2 ? false : undefined));

/** The operations, weighted so that partitions fill, expire and get swept within a short sequence. */
export const commands = fc.commands(
  [
    remember,
    remember,
    remember,
    remember,
    fc
      .tuple(user, fc.option(fc.subarray(KINDS, { minLength: 1 }), { nil: undefined }), fc.nat(PHRASES.length - 1))
      .map(([u, ks, p]) => new Recall(u, ks, p)),
    fc
      .tuple(user, fc.option(fc.subarray(KINDS, { minLength: 1 }), { nil: undefined }), fc.nat(QUERIES.length - 1))
      .map(([u, ks, p]) => new Recall(u, ks, p)),
    fc.tuple(user, fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([u, p, s]) => new ForgetIds(u, p, s)),
    fc.tuple(user, fc.option(kind, { nil: undefined, freq: 2 })).map(([u, k]) => new ForgetAll(u, k)),
    fc.tuple(user, fc.nat(), fc.boolean()).map(([u, p, pin]) => new SetPinned(u, p, pin)),
    fc.integer({ min: 1, max: 7 }).map((s) => new Advance(s)),
    fc.integer({ min: 1, max: 7 }).map((s) => new Advance(s)),
    fc.constant(new Sweep()),
  ],
  { maxCommands: 50, size: 'max' },
);

export interface ModelCheckOptions {
  /** The stores under test: the in-memory reference, or SQL over a migrated database. */
  readonly stores: MemoryStores;
  /** With SQL stores, their client: the kept statistics are checked against a recount after each sequence. */
  readonly sql?: SqlClient;
  /** Empties the naaba tables (between sequences). */
  readonly reset: () => Promise<void>;
  /** The region the rows are written for (CockroachDB: one of the database's regions). */
  readonly region: string;
  readonly runs: number;
  readonly seed?: number | undefined;
  readonly embeddingDimensions: number;
}

/** Runs `runs` random sequences against the stores; throws with the shrunk sequence on a mismatch. Empties the tables after. */
export async function checkCurationModel(options: ModelCheckOptions): Promise<void> {
  const { stores } = options;
  const embedder = new LocalEmbedder(options.embeddingDimensions);
  // Every text a remember can write, with its stored vector: the model finds the nearest memory a judge is asked about.
  const texts = [...PHRASES, ...UPDATES].flatMap((p) => SPELLINGS.map((spell) => spell(p)));
  const vectors = new Map(await Promise.all(texts.map(async (t) => [t, storedVector(await embedder.embed(t))] as const)));
  try {
    await fc.assert(
      fc.asyncProperty(commands, async (cmds) => {
        await options.reset();
        const clock = new ManualClock(T0);
        const service = memoryServices({ stores, embedder, judge: new UpdateJudge(), clock, rules: MODEL_RULES });
        const principals = Object.fromEntries(
          USERS.map((u) => [u, { userId: randomUUID(), region: options.region, agent: `${u}-agent`, keyId: randomUUID() }]),
        ) as Record<User, Principal>;
        const real: Real = {
          service,
          sweeper: new Sweeper(stores.maintenance, MODEL_RULES, clock, new LexicalAnalyzer()),
          clock,
          principals,
          region: options.region,
        };
        const world: World = { model: new CurationModel(MODEL_RULES, T0, vectors, contradicts), ids: { alice: [], bob: [] } };
        await fc.asyncModelRun(() => ({ model: world, real }), cmds);
        if (options.sql) await statisticsHold(options.sql);
      }),
      { numRuns: options.runs, seed: options.seed },
    );
  } finally {
    // Leaves the database as it found it: other suites check what made the stored memories.
    await options.reset();
  }
}
