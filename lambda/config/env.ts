import { type DatabaseRegions, DEFAULT_HASH_BUCKETS, HASH_BUCKETS, PGLITE_BUFFERS_MB, type SqlEngine } from './database.js';
import { certificateFile, tlsConnection } from './database-tls.js';
import type { CurationRules } from '../memory/model.js';
import { TEXT_LANGUAGES, type TextLanguage } from '../memory/lexical.js';
import { RECALL_RANKINGS, type RecallRanking } from '../memory/policy/ranking.js';
import { DEFAULT_RULES } from '../memory/policy/kinds.js';
import { LOOPBACK_HOSTS, type OriginPolicy } from '../http/origin.js';
import type { OAuthRateLimits } from '../auth/oauth-limits.js';
import { parseCuration, readCurationFile } from './curation-file.js';
import { formatRateLimits, parseRateLimits } from './oauth-limits.js';
import { DEFAULT_OAUTH_RATE_LIMITS } from '../auth/oauth-limits.js';
import { type EmbedderConfig, type JudgeConfig, readProviders } from './providers.js';
import { DEFAULT_DATA_DIR, DEFAULT_REGION } from './defaults.js';
import { ConfigError } from './errors.js';
import { type SettingReport, Settings } from './settings.js';

export type { BedrockConfig, EmbedderConfig, JudgeConfig, OpenAiConfig, RetryConfig } from './providers.js';
export { novaMicroProfile } from './providers.js';

export type DatabaseConfig =
  | {
      readonly kind: 'pglite';
      readonly dataDir: string;
      /**
       * Shared buffers of the database in the data folder (NAABA_PGLITE_BUFFERS_MB); when not set,
       * sized to the folder's data each time it opens (`buffersForData`, decision 0155).
       */
      readonly buffersMb?: number | undefined;
    }
  | {
      readonly kind: 'url';
      readonly url: string;
      /** The CA bundle from NAABA_DATABASE_CA_FILE; with a secret the CA travels in the secret. */
      readonly ca?: string | undefined;
      readonly pool: PoolConfig;
      readonly regions: DatabaseRegions | undefined;
      /** CockroachDB: buckets of the hash-sharded indexes a migration creates (NAABA_HASH_BUCKETS). */
      readonly hashBuckets: number;
    }
  | {
      readonly kind: 'secret';
      readonly secretId: string;
      readonly pool: PoolConfig;
      readonly regions: DatabaseRegions | undefined;
      readonly hashBuckets: number;
    };

export interface PoolConfig {
  readonly engine: SqlEngine | undefined;
  readonly maxConnections: number;
  readonly statementTimeoutMs: number;
}

export interface RuntimeConfig {
  /** The region this endpoint serves; keys of other regions are refused. */
  readonly region: string;
  readonly listen: { readonly host: string; readonly port: number };
  readonly dataDir: string;
  /**
   * How the person who started this local server runs naaba (`npx naaba`, `naaba`, the tarball's
   * `npx --package=…` line), for the lines it shows; set by `naaba serve`, absent elsewhere.
   */
  readonly commandLine?: readonly string[];
  readonly database: DatabaseConfig;
  readonly embedder: EmbedderConfig;
  readonly judge: JudgeConfig;
  readonly rules: CurationRules;
  /** The curation config file, or `defaults`. */
  readonly rulesSource: string;
  /** How recall finds memories: the lexical arm's text language and which arms run. */
  readonly recall: { readonly language: TextLanguage; readonly ranking: RecallRanking };
  /** Which Host and Origin headers the MCP endpoint accepts (DNS rebinding protection). */
  readonly origins: OriginPolicy;
  readonly logLevel: string;
  /**
   * Sweep batches, and how often the local server sweeps on its own (`everySeconds`, 0 = never;
   * in AWS the EventBridge schedule does it).
   */
  readonly sweep: { readonly batchSize: number; readonly maxBatches: number; readonly everySeconds: number };
  /** OAuth sign-in: requests per client address to register, authorize, token and revoke (decision 0064). */
  readonly oauth: { readonly limits: OAuthRateLimits };
  /**
   * How long one `/api/import` call runs before it starts no new step and answers how far it got
   * (0: one step per call); the page and `naaba import` send the same file again until it is complete.
   */
  readonly importCallSeconds: number;
}

type Source = Readonly<Record<string, string | undefined>>;

/** The only reader of `process.env` in the project. */
export function environment(): Source {
  return { ...process.env };
}

function readDatabase(s: Settings, dataDir: string): DatabaseConfig {
  const url = s.string('NAABA_DATABASE_URL', undefined, { secret: true });
  const secretId = s.string('NAABA_DATABASE_SECRET_ID');
  const ca = readDatabaseCa(s, url, secretId);
  if (!url && !secretId) {
    const { min, max } = PGLITE_BUFFERS_MB;
    return { kind: 'pglite', dataDir, buffersMb: s.optionalInteger('NAABA_PGLITE_BUFFERS_MB', min, max) };
  }
  const engine = s.string('NAABA_DB_ENGINE');
  if (engine !== undefined && engine !== 'postgres' && engine !== 'cockroach') {
    s.problems.push(`NAABA_DB_ENGINE="${engine}": expected postgres or cockroach`);
  }
  const pool: PoolConfig = {
    engine: engine === 'postgres' || engine === 'cockroach' ? engine : undefined,
    maxConnections: s.integer('NAABA_DB_POOL_MAX', 2, 1, 20),
    statementTimeoutMs: s.integer('NAABA_DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
  };
  const regions = readRegions(s);
  // Read for migrations only; at most the cluster's node count (docs/deployment.md, "Hash-sharded indexes").
  const hashBuckets = s.integer('NAABA_HASH_BUCKETS', DEFAULT_HASH_BUCKETS, HASH_BUCKETS.min, HASH_BUCKETS.max);
  return url
    ? { kind: 'url', url, ca, pool, regions, hashBuckets }
    : { kind: 'secret', secretId: secretId ?? '', pool, regions, hashBuckets };
}

/**
 * NAABA_DATABASE_CA_FILE: PEM certificates of the authority that signed the database's
 * certificate, for NAABA_DATABASE_URL (a secret carries its own in its "ca" field). The URL's TLS
 * is checked here too, so `naaba check` names a URL that start-up would refuse.
 */
function readDatabaseCa(s: Settings, url: string | undefined, secretId: string | undefined): string | undefined {
  const file = s.string('NAABA_DATABASE_CA_FILE');
  if (file !== undefined && !url) {
    s.problems.push(
      secretId
        ? `NAABA_DATABASE_CA_FILE is for NAABA_DATABASE_URL: with a secret, put the CA in the secret's "ca" field`
        : 'NAABA_DATABASE_CA_FILE is set, but no NAABA_DATABASE_URL',
    );
    return undefined;
  }
  try {
    const ca = file === undefined ? undefined : certificateFile(file, 'NAABA_DATABASE_CA_FILE');
    if (url) tlsConnection(url, ca);
    return ca;
  } catch (error) {
    s.problems.push((error as Error).message);
    return undefined;
  }
}

/**
 * NAABA_DB_REGIONS: the CockroachDB database's regions, primary first (`eu-central-1,us-east-1`).
 * Read for migrations only; each must be a region of the cluster (SHOW REGIONS FROM CLUSTER).
 */
function readRegions(s: Settings): DatabaseRegions | undefined {
  const text = s.string('NAABA_DB_REGIONS');
  if (text === undefined) return undefined;
  const names = text.split(',').map((r) => r.trim());
  const bad = names.filter((r) => !/^[a-z0-9][a-z0-9._-]{0,62}$/.test(r));
  if (bad.length > 0 || new Set(names).size !== names.length) {
    s.problems.push(`NAABA_DB_REGIONS="${text}": distinct region names (lowercase letters, digits, . _ -), primary first`);
    return undefined;
  }
  const [primary = '', ...others] = names;
  return { primary, others };
}

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * NAABA_ALLOWED_HOSTS: host names the MCP endpoint answers to, loopback by default (`*` for any:
 * what the CDK stack sets, API Gateway routing only its own domains). NAABA_ALLOWED_ORIGINS:
 * browser origins trusted besides the endpoint's own.
 */
function readOrigins(s: Settings, listenHost: string): OriginPolicy {
  const own = ['0.0.0.0', '::', ...LOOPBACK_HOSTS].includes(listenHost) ? [] : [listenHost];
  const hosts = s.string('NAABA_ALLOWED_HOSTS', [...LOOPBACK_HOSTS, ...own].join(','));
  const origins = list(s.string('NAABA_ALLOWED_ORIGINS'));
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      s.problems.push(`NAABA_ALLOWED_ORIGINS: "${origin}" is not an origin such as https://app.example.com`);
    }
  }
  return {
    allowedHosts: hosts.trim() === '*' ? 'any' : list(hosts).map((h) => h.replace(/^\[(.*)\]$/, '$1').toLowerCase()),
    allowedOrigins: origins,
  };
}

/** NAABA_OAUTH_RATE_LIMITS, over the defaults of decision 0064. */
function readRateLimits(s: Settings): OAuthRateLimits {
  const { limits, problems } = parseRateLimits(s.string('NAABA_OAUTH_RATE_LIMITS', formatRateLimits(DEFAULT_OAUTH_RATE_LIMITS)));
  s.problems.push(...problems);
  return limits;
}

/** Curation rules from a file (NAABA_CONFIG), inline JSON (NAABA_CURATION, as Lambda gets them) or the defaults. */
function readRules(s: Settings): { rules: CurationRules; rulesSource: string } {
  const file = s.string('NAABA_CONFIG');
  const inline = file ? undefined : s.string('NAABA_CURATION');
  const source = file ?? (inline ? 'NAABA_CURATION' : 'defaults');
  try {
    if (file) return { rules: readCurationFile(file), rulesSource: source };
    if (inline) return { rules: parseCuration(inline, 'NAABA_CURATION'), rulesSource: source };
  } catch (error) {
    s.problems.push((error as Error).message);
  }
  return { rules: DEFAULT_RULES, rulesSource: source };
}

/** Reads every setting, and every problem with them, without connecting to anything. */
export function describeConfig(
  env: Source,
  flags: Source = {},
  flagNames: Readonly<Record<string, string>> = {},
): { config: RuntimeConfig; report: SettingReport[]; problems: string[] } {
  const s = new Settings(env, flags, flagNames);
  const dataDir = s.string('NAABA_DATA_DIR', DEFAULT_DATA_DIR);
  const region = s.string('NAABA_REGION', DEFAULT_REGION);
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(region))
    s.problems.push(`${s.given('NAABA_REGION', region)}: lowercase letters, digits and dashes`);
  const listen = { host: s.string('NAABA_HOST', '127.0.0.1'), port: s.integer('NAABA_PORT', 8000, 0, 65535) };
  const config: RuntimeConfig = {
    region,
    listen,
    dataDir,
    database: readDatabase(s, dataDir),
    ...readProviders(s),
    ...readRules(s),
    recall: {
      language: s.choice('NAABA_TEXT_LANGUAGE', TEXT_LANGUAGES, 'neutral'),
      ranking: s.choice('NAABA_RECALL_RANKING', RECALL_RANKINGS, 'hybrid'),
    },
    origins: readOrigins(s, listen.host),
    logLevel: s.choice('NAABA_LOG_LEVEL', ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'], 'INFO'),
    sweep: {
      batchSize: s.integer('NAABA_SWEEP_BATCH', 500, 1, 10_000),
      maxBatches: s.integer('NAABA_SWEEP_MAX_BATCHES', 200, 1, 100_000),
      everySeconds: s.integer('NAABA_SWEEP_EVERY_SECONDS', 30, 0, 86_400),
    },
    oauth: { limits: readRateLimits(s) },
    importCallSeconds: s.integer('NAABA_IMPORT_CALL_SECONDS', 6, 0, 20),
  };
  return { config, report: s.report, problems: s.problems };
}

/** The configuration in force, or a ConfigError naming every problem. */
export function loadConfig(
  env: Source = environment(),
  flags: Source = {},
  flagNames: Readonly<Record<string, string>> = {},
): RuntimeConfig {
  const { config, problems } = describeConfig(env, flags, flagNames);
  if (problems.length > 0) throw new ConfigError(`configuration problems:\n  ${problems.join('\n  ')}`);
  return config;
}
