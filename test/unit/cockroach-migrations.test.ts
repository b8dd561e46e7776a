import { readdirSync, readFileSync } from 'node:fs';
import {
  type DatabaseRegions,
  MigrationError,
  migrate,
  RewriteRefusedError,
  rewriteOf,
  splitStatements,
} from '../../lambda/adapters/pg/schema/migrate.js';
import type { Query, SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { FILES, schemaAfter } from '../support/cockroach-schema.js';

/**
 * The CockroachDB DDL cannot run here (no cluster). These tests pin down, on the text and through
 * the migration runner, the properties the plans rely on (docs/index-compatibility.md); the DDL
 * itself is accepted or refused only by `npm run test:store -- --url` on a cluster.
 */
const DDL = readFileSync(new URL('../../sql/cockroach/0001_init.sql', import.meta.url), 'utf8');
const code = (statement: string) =>
  statement
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n');
const statements = splitStatements(DDL).map(code);
const table = (name: string) => {
  const found = statements.find((s) => s.includes(`CREATE TABLE IF NOT EXISTS ${name} (`));
  if (!found) throw new Error(`no CREATE TABLE for ${name}`);
  return found;
};
/** Key column lists of PRIMARY KEY, [UNIQUE] INDEX and VECTOR INDEX clauses. */
const keys = (ddl: string) => [...ddl.matchAll(/(?:PRIMARY KEY|INDEX \w+) \(([^)]*)\)/g)].map((m) => m[1] ?? '');

describe('sql/cockroach/0001_init.sql', () => {
  test('every statement can run again (a stopped migration is completed by re-running it)', () => {
    expect(statements).toHaveLength(6);
    for (const s of statements) expect(s).toMatch(/CREATE TABLE IF NOT EXISTS|ON CONFLICT \(name\) DO NOTHING/);
  });

  test.each(['memories', 'memory_links', 'journal'])(
    '%s lives in its region: REGIONAL BY ROW AS region, region leading every key',
    (name) => {
      const ddl = table(name);
      expect(ddl).toMatch(/region\s+crdb_internal_region NOT NULL/);
      expect(ddl).toMatch(/LOCALITY REGIONAL BY ROW AS region;$/);
      const lists = keys(ddl);
      expect(lists.length).toBeGreaterThan(1);
      for (const list of lists) expect(list.trim()).toMatch(/^region,/);
    },
  );

  test('memories: the cosine vector index over (region, user_id, kind), embedding NOT NULL, no other index with that prefix', () => {
    const ddl = table('memories');
    expect(ddl).toContain('VECTOR INDEX memories_embedding (region, user_id, kind, embedding vector_cosine_ops)');
    expect(ddl).toMatch(/embedding\s+VECTOR\(\{\{embedding_dimensions\}\}\) NOT NULL/);
    const full = keys(ddl).filter((k) => /^region, user_id, kind\b/.test(k.trim()));
    expect(full).toEqual(['region, user_id, kind, embedding vector_cosine_ops', 'region, user_id, kind']);
    expect(ddl).toContain('UNIQUE INDEX memories_fingerprint (region, fingerprint, user_id, kind)');
  });

  test.each(['api_keys', 'naaba_settings'])('%s is GLOBAL', (name) => {
    expect(table(name)).toMatch(/LOCALITY GLOBAL;$/);
  });
});

describe('sql/cockroach/0002_lexical.sql', () => {
  const lexical = splitStatements(readFileSync(new URL('../../sql/cockroach/0002_lexical.sql', import.meta.url), 'utf8')).map(
    code,
  );

  test('every statement can run again', () => {
    expect(lexical).toHaveLength(3);
    for (const s of lexical) expect(s).toMatch(/IF NOT EXISTS|ON CONFLICT \(name\) DO NOTHING/);
  });

  test('lexemes are NOT NULL, and the inverted index leads with the whole (region, user_id, kind) prefix', () => {
    expect(lexical[0]).toMatch(/ADD COLUMN IF NOT EXISTS lexemes TSVECTOR NOT NULL DEFAULT ''::TSVECTOR/);
    expect(lexical[1]).toMatch(
      /CREATE INVERTED INDEX IF NOT EXISTS memories_lexemes ON memories \(region, user_id, kind, lexemes\)/,
    );
  });
});

describe('sql/cockroach/0003_oauth.sql', () => {
  const oauth = splitStatements(readFileSync(new URL('../../sql/cockroach/0003_oauth.sql', import.meta.url), 'utf8')).map(code);
  const created = (name: string) => oauth.find((s) => s.includes(`CREATE TABLE IF NOT EXISTS ${name} (`)) ?? '';

  test('every statement can run again', () => {
    expect(oauth).toHaveLength(5);
    for (const s of oauth) expect(s).toMatch(/IF NOT EXISTS|DROP NOT NULL/);
  });

  test.each(['oauth_clients', 'oauth_tokens'])('%s is GLOBAL, like the keys every region reads', (name) => {
    expect(created(name)).toMatch(/LOCALITY GLOBAL;$/);
  });

  test('codes live in their region: REGIONAL BY ROW AS region, region leading every key', () => {
    const ddl = created('oauth_codes');
    expect(ddl).toMatch(/region\s+crdb_internal_region NOT NULL/);
    expect(ddl).toMatch(/LOCALITY REGIONAL BY ROW AS region;$/);
    for (const list of keys(ddl)) expect(list.trim()).toMatch(/^region,/);
  });
});

describe('sql/cockroach/0005_oauth_abuse.sql', () => {
  const abuse = splitStatements(readFileSync(new URL('../../sql/cockroach/0005_oauth_abuse.sql', import.meta.url), 'utf8')).map(
    code,
  );

  test('every statement can run again', () => {
    expect(abuse).toHaveLength(10);
    for (const s of abuse) expect(s).toMatch(/IF NOT EXISTS/);
  });

  test('request windows are counted in their region: REGIONAL BY ROW AS region, region leading every key', () => {
    const ddl = abuse.find((s) => s.includes('CREATE TABLE IF NOT EXISTS oauth_rate_limits (')) ?? '';
    expect(ddl).toMatch(/region\s+crdb_internal_region NOT NULL/);
    expect(ddl).toMatch(/LOCALITY REGIONAL BY ROW AS region;$/);
    const lists = keys(ddl);
    expect(lists).toHaveLength(2);
    for (const list of lists) expect(list.trim()).toMatch(/^region,/);
  });

  test('the one-form-one-code index leads with region, so its uniqueness is checked in the region only', () => {
    expect(abuse).toContain('CREATE UNIQUE INDEX IF NOT EXISTS oauth_codes_form ON oauth_codes (region, form_sha256);');
  });
});

describe('sql/cockroach/0004_partitions.sql', () => {
  const partitions = splitStatements(
    readFileSync(new URL('../../sql/cockroach/0004_partitions.sql', import.meta.url), 'utf8'),
  ).map(code);
  const created = (name: string) => partitions.find((s) => s.includes(`CREATE TABLE IF NOT EXISTS ${name} (`)) ?? '';

  test('every statement can run again', () => {
    for (const s of partitions) expect(s).toMatch(/IF NOT EXISTS|ON CONFLICT \((name|region, user_id, kind)\) DO NOTHING/);
  });

  test.each(['memory_partitions', 'memory_terms', 'memory_partition_terms'])(
    '%s lives in its region: REGIONAL BY ROW AS region, region leading every key',
    (name) => {
      const ddl = created(name);
      expect(ddl).toMatch(/region\s+crdb_internal_region NOT NULL/);
      expect(ddl).toMatch(/LOCALITY REGIONAL BY ROW AS region;$/);
      for (const list of keys(ddl)) expect(list.trim()).toMatch(/^region,/);
    },
  );

  test('time-ordered indexes are hash-sharded and never list the region (it is added implicitly, engine-facts §8.1)', () => {
    const sharded = partitions.filter((s) => /USING HASH/.test(s));
    expect(sharded.map((s) => /CREATE INDEX IF NOT EXISTS (\w+)/.exec(s)?.[1])).toEqual([
      'memories_expiring',
      'journal_at',
      'oauth_codes_expiring',
      'oauth_tokens_expiring',
      'oauth_clients_registered',
    ]);
    for (const s of sharded) expect(/\(([^)]*)\) USING HASH/.exec(s)?.[1]).not.toMatch(/\bregion\b/);
  });

  test('the expiry index holds only memories that can expire', () => {
    expect(partitions.find((s) => s.includes('memories_expiring'))).toMatch(/WHERE expires;$/);
  });

  test('every hash-sharded index takes its bucket count from the migration runner (NAABA_HASH_BUCKETS)', () => {
    for (const s of partitions.filter((s) => /USING HASH/.test(s))) expect(s).toContain('WITH (bucket_count = {{hash_buckets}})');
  });
});

describe('after every migration (decision 0098)', () => {
  const schema = schemaAfter(FILES);
  const index = (table: string, name: string) => schema.get(table)?.indexes.get(name);

  test("a user's memories are one span: the key leads with (region, user_id, kind), and (region, id) stays unique for the links", () => {
    expect(schema.get('memories')?.primaryKey).toBe('region, user_id, kind, id');
    expect(index('memories', 'memories_id')).toEqual({ columns: 'region, id', unique: true, where: undefined, hashed: false });
    expect(index('memories', 'memories_user_kind')).toBeUndefined();
    expect(index('memories', 'memories_origin')).toBeUndefined();
  });

  test("the remember's read of its partition needs no index join: memories_partition stores what it reads", () => {
    const ddl = readFileSync(new URL('../../sql/cockroach/0011_memories_by_user.sql', import.meta.url), 'utf8');
    expect(ddl).toContain(
      'CREATE INDEX IF NOT EXISTS memories_partition ON memories (region, user_id, kind) STORING (pinned, last_useful_at, fingerprint);',
    );
  });

  // What each region-wide batch reads by its key, so that a batch costs its size (maintenance/*, oauth/delete-*).
  test.each<[string, string, string, string | undefined, boolean]>([
    ['memories', 'memories_id', 'region, id', undefined, false], // mark-expiring's walk and the passages walk (decision 0119)
    ['memories', 'memories_expiring', 'kind, last_useful_at', 'expires', true], // sweep-expired
    ['journal', 'journal_at', 'at', undefined, true], // trim-journal
    ['memory_partition_terms', 'memory_partition_terms_empty', 'region, df', 'df <= 0', false], // clear-empty-terms
    ['memory_partition_terms', 'memory_partition_terms_stale', 'region', 'stale', false], // stale-terms (the ranking's batch)
    ['memories', 'memories_superseded', 'region, kind, superseded_at', 'superseded_at IS NOT NULL', false], // sweep-superseded
    ['oauth_codes', 'oauth_codes_expiring', 'expires_at', undefined, true],
    ['oauth_tokens', 'oauth_tokens_expiring', 'expires_at', undefined, true],
    ['oauth_clients', 'oauth_clients_expiry', 'expires_at', undefined, false],
    ['oauth_rate_limits', 'oauth_rate_limits_window', 'region, window_start', undefined, false],
  ])('%s@%s (%s) exists', (table, name, columns, where, hashed) => {
    expect(index(table, name)).toMatchObject({ columns, where, hashed });
  });
});

describe('sql/cockroach/0014_term_cut.sql (decision 0101)', () => {
  const cut = splitStatements(readFileSync(new URL('../../sql/cockroach/0014_term_cut.sql', import.meta.url), 'utf8')).map(code);

  test('every statement can run again', () => {
    for (const s of cut) expect(s).toMatch(/IF NOT EXISTS/);
  });

  test('the flagged postings have an index of their own, region first, holding them and nothing else', () => {
    expect(cut).toContain(
      'CREATE INDEX IF NOT EXISTS memory_terms_best ON memory_terms (region, user_id, kind, term, tf DESC, dl) WHERE best;',
    );
    expect(cut).toContain(
      'CREATE INDEX IF NOT EXISTS memory_partition_terms_stale ON memory_partition_terms (region) WHERE stale;',
    );
  });

  test('older code keeps working: every new column has a default or may be NULL, and what it leaves is unflagged or marked', () => {
    const columns = cut.filter((s) => s.includes('ADD COLUMN'));
    for (const s of columns) expect(s).toMatch(/DEFAULT|(INT4|UUID);$/);
    expect(columns.find((s) => s.includes(' best BOOL'))).toMatch(/DEFAULT false;$/);
    expect(columns.find((s) => s.includes(' stale BOOL'))).toMatch(/DEFAULT true;$/);
  });
});

/** A CockroachDB stand-in that answers the runner's questions and records what it is told to run. */
class CockroachDouble implements SqlClient {
  readonly engine = 'cockroach' as const;
  readonly ran: string[] = [];

  constructor(
    private readonly version: string,
    private readonly regions: { region: string; primary: boolean }[],
    private readonly applied: string[] = [],
    /** The tables that hold rows, for the runner's check before a rewrite (decision 0152). */
    private readonly populated: readonly string[] = [],
  ) {}

  async query<R>({ text }: Query): Promise<R[]> {
    if (text.includes('version()')) return [{ version: this.version }] as R[];
    if (text.includes('current_database()')) return [{ name: 'naaba' }] as R[];
    if (text.includes('SHOW REGIONS FROM DATABASE')) return this.regions as R[];
    const counted = /^SELECT EXISTS \(SELECT 1 FROM "(\w+)"\) AS found$/.exec(text);
    if (counted) return [{ found: this.populated.includes(counted[1] ?? '') }] as R[];
    if (text.startsWith('SELECT version, requires FROM naaba_migrations'))
      return this.applied.map((version) => ({ version, requires: null })) as R[];
    // A backfill batch's bounds (decision 0154), set before its statement.
    if (/^SET LOCAL (lock_timeout|statement_timeout) = '\d+ms'$/.test(text)) return [] as R[];
    // A backfill step's batch (decision 0099): recorded like a statement, and nothing left to do.
    if (text.startsWith('WITH step AS (')) {
      this.ran.push(text);
      return [{ changed: 0 }] as R[];
    }
    throw new Error(`unexpected query: ${text}`);
  }

  async exec(script: string): Promise<void> {
    this.ran.push(script);
  }

  async close(): Promise<void> {}
}

/** Every CockroachDB migration file, in order, and how many statements each holds. */
const MIGRATIONS = readdirSync(new URL('../../sql/cockroach/', import.meta.url))
  .filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n))
  .sort();
const statementsOf = (file: string) =>
  splitStatements(readFileSync(new URL(`../../sql/cockroach/${file}`, import.meta.url), 'utf8')).length;

const V25_4 = 'CockroachDB CCL v25.4.2 (x86_64-pc-linux-gnu, built 2025/12/01 00:00:00, go1.23.12)';
const regions: DatabaseRegions = { primary: 'eu-central-1', others: ['us-east-1', 'ap-southeast-2'] };

describe('migrating CockroachDB', () => {
  test('makes the database multi-region first, then applies one statement at a time, and records the file', async () => {
    const db = new CockroachDouble(V25_4, []);
    expect(await migrate(db, { embeddingDimensions: 1024, regions })).toEqual(MIGRATIONS);
    expect(MIGRATIONS.slice(0, 4)).toEqual(['0001_init.sql', '0002_lexical.sql', '0003_oauth.sql', '0004_partitions.sql']);
    const [table, primary, addUs, addAp, ...rest] = db.ran;
    expect(table).toContain('CREATE TABLE IF NOT EXISTS naaba_migrations');
    expect([primary, addUs, addAp]).toEqual([
      'ALTER DATABASE "naaba" SET PRIMARY REGION "eu-central-1"',
      'ALTER DATABASE "naaba" ADD REGION IF NOT EXISTS "us-east-1"',
      'ALTER DATABASE "naaba" ADD REGION IF NOT EXISTS "ap-southeast-2"',
    ]);
    // One statement at a time, then the file's record, file after file.
    expect(rest).toHaveLength(MIGRATIONS.reduce((n, file) => n + statementsOf(file) + 1, 0));
    expect(rest.some((s) => /\bBEGIN\b/.test(code(s)))).toBe(false);
    expect(rest.find((s) => s.includes('memories ('))).toContain('VECTOR(1024) NOT NULL');
    let at = -1;
    for (const file of MIGRATIONS) {
      at += statementsOf(file) + 1;
      expect(rest[at]).toMatch(
        new RegExp(`^INSERT INTO naaba_migrations \\(version, applied_at(, requires)?\\) VALUES \\('${file}', now\\(\\)`),
      );
    }
  });

  test("fills each hash-sharded index's bucket count from the settings, and refuses one CockroachDB would", async () => {
    const db = new CockroachDouble(V25_4, []);
    await migrate(db, { embeddingDimensions: 1024, regions, hashBuckets: 9 });
    const sharded = db.ran.filter((s) => /USING HASH/.test(s));
    expect(sharded).toHaveLength(5);
    for (const s of sharded) expect(s).toContain('WITH (bucket_count = 9)');
    for (const hashBuckets of [1, 2049, 2.5]) {
      const refused = new CockroachDouble(V25_4, []);
      await expect(migrate(refused, { embeddingDimensions: 1024, regions, hashBuckets })).rejects.toThrow(
        /hash bucket count .*: expected an integer from 2 to 2048/,
      );
      expect(refused.ran.filter((s) => s.includes('CREATE TABLE IF NOT EXISTS memories'))).toEqual([]);
    }
  });

  test('adds only missing regions and leaves an applied file alone', async () => {
    const db = new CockroachDouble(
      V25_4,
      [
        { region: 'eu-central-1', primary: true },
        { region: 'us-east-1', primary: false },
      ],
      MIGRATIONS,
    );
    expect(await migrate(db, { embeddingDimensions: 1024, regions })).toEqual([]);
    expect(db.ran.slice(1)).toEqual(['ALTER DATABASE "naaba" ADD REGION IF NOT EXISTS "ap-southeast-2"']);
  });

  test.each<[string, CockroachDouble, DatabaseRegions | undefined, RegExp]>([
    ['a release before v25.4', new CockroachDouble('CockroachDB CCL v25.3.4 (x86_64)', []), regions, /v25\.4 or newer/],
    [
      'a database that is not multi-region, without NAABA_DB_REGIONS',
      new CockroachDouble(V25_4, []),
      undefined,
      /NAABA_DB_REGIONS/,
    ],
    [
      'another primary region than configured',
      new CockroachDouble(V25_4, [{ region: 'us-east-1', primary: true }]),
      regions,
      /primary region us-east-1/,
    ],
  ])('refuses %s, before any table is created', async (_label, db, wanted, message) => {
    await expect(migrate(db, { embeddingDimensions: 1024, regions: wanted })).rejects.toThrow(MigrationError);
    await expect(migrate(db, { embeddingDimensions: 1024, regions: wanted })).rejects.toThrow(message);
    expect(db.ran.filter((s) => s.includes('CREATE TABLE IF NOT EXISTS memories'))).toEqual([]);
  });
});

describe('a migration that rewrites a populated table (issue 51, decision 0152)', () => {
  const before = MIGRATIONS.filter((f) => f < '0011');
  const rewriting = (file: string) => readFileSync(new URL(`../../sql/cockroach/${file}`, import.meta.url), 'utf8');
  const regionsThere = [
    { region: 'eu-central-1', primary: true },
    { region: 'us-east-1', primary: false },
    { region: 'ap-southeast-2', primary: false },
  ];

  test.each(MIGRATIONS)(
    '%s declares a rewrite if it changes a primary key or builds a vector index on an existing table',
    (file) => {
      const text = code(rewriting(file));
      const rewrites = /ALTER PRIMARY KEY|CREATE VECTOR INDEX|ADD VECTOR INDEX/i.test(text);
      expect({ file, declared: rewriteOf(rewriting(file)) !== undefined }).toEqual({ file, declared: rewrites });
    },
  );

  test('0011 declares what it rewrites: the primary key of memories and every index', () => {
    expect(rewriteOf(rewriting('0011_memories_by_user.sql'))).toEqual({
      table: 'memories',
      what: 'its primary key, and with it every index of the table, the vector index included',
    });
  });

  test('refused while memories holds rows, in one line naming the file and what it rewrites; nothing of it runs', async () => {
    const db = new CockroachDouble(V25_4, regionsThere, before, ['memories']);
    const refused = migrate(db, { embeddingDimensions: 1024, regions });
    await expect(refused).rejects.toThrow(RewriteRefusedError);
    const error = await migrate(new CockroachDouble(V25_4, regionsThere, before, ['memories']), {
      embeddingDimensions: 1024,
      regions,
    }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(
      /^refused 0011_memories_by_user\.sql: it rewrites memories \(its primary key, .*vector index included\) and memories holds rows; .*--allow-rewrite/,
    );
    expect((error as Error).message).not.toContain('\n');
    expect(db.ran.filter((s) => s.includes('ALTER PRIMARY KEY') || s.includes('0011_memories_by_user.sql'))).toEqual([]);
  });

  test('applied with allowRewrite on a populated table, and without it on an empty one', async () => {
    for (const [populated, allowRewrite] of [
      [['memories'], true],
      [[], false],
    ] as const) {
      const db = new CockroachDouble(V25_4, regionsThere, before, [...populated]);
      const applied = await migrate(db, { embeddingDimensions: 1024, regions, allowRewrite });
      expect(applied[0]).toBe('0011_memories_by_user.sql');
      expect(db.ran.some((s) => s.includes('ALTER TABLE memories ALTER PRIMARY KEY USING COLUMNS'))).toBe(true);
    }
  });
});
