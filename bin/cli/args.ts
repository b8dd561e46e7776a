import { parseArgs as parseWords } from 'node:util';

/** Parsed command line: positional words, and flags as the environment variables they stand for. */
export interface ParsedArgs {
  readonly positionals: string[];
  /** `--port 9000` becomes `{ NAABA_PORT: '9000' }`, so flags override the environment by name. */
  readonly settings: Record<string, string>;
  readonly switches: Set<string>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Flags that take a value, and the setting each stands for. */
export const VALUE_FLAGS = {
  port: 'NAABA_PORT',
  host: 'NAABA_HOST',
  data: 'NAABA_DATA_DIR',
  region: 'NAABA_REGION',
  config: 'NAABA_CONFIG',
  url: 'NAABA_DATABASE_URL',
  endpoint: 'NAABA_ENDPOINT_URL',
  'db-regions': 'NAABA_DB_REGIONS',
  'hash-buckets': 'NAABA_HASH_BUCKETS',
  'runtime-roles': 'NAABA_DB_RUNTIME_ROLES',
  language: 'NAABA_TEXT_LANGUAGE',
  embedder: 'NAABA_EMBEDDER',
  user: 'user',
  batch: 'batch',
  file: 'file',
  issue: 'issue',
  kind: 'kind',
} as const;

export type ValueFlag = keyof typeof VALUE_FLAGS;

/** Each setting a flag stands for, spelt as the flag (`NAABA_PORT` as `--port`), for problems to name what was typed. */
export const FLAG_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(VALUE_FLAGS).map(([flag, setting]) => [setting, `--${flag}`]),
);
export type Switch = 'json' | 'probe' | 'check' | 'contract' | 'allow-rewrite' | 'write';

/** What one command accepts: the flags it reads, the switches it turns on. */
export interface CommandOptions {
  readonly values: readonly ValueFlag[];
  readonly switches: readonly Switch[];
}

/** Whether the words ask for help (`--help` or `-h` before any `--`), whatever else they hold. */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((w) => w === '--help' || w === '-h');
}

/** The flag a parse error names, as the person typed it. */
function flagNamed(message: string): string {
  return /'(-[^' ]+)/.exec(message)?.[1] ?? 'an option';
}

function parseError(error: unknown, options: CommandOptions): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  const message = (error as Error).message;
  const known = [...options.values.map((v) => `--${v}`), ...options.switches.map((s) => `--${s}`)];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const list = known.length > 0 ? `its options: ${known.join(', ')}` : 'it takes no options';
    return new UsageError(`unknown option ${flagNamed(message)} (${list})`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = flagNamed(message).split('=')[0] ?? '';
    const takesValue = options.values.some((v) => `--${v}` === flag);
    return new UsageError(takesValue ? `${flag} needs a value (--${flag.slice(2)} VALUE)` : `${flag} takes no value`);
  }
  return new UsageError(message.split('\n')[0] ?? 'the command line could not be read');
}

/**
 * Reads one command's words with Node's own parser (`node:util` parseArgs, strict): a flag the
 * command does not take is an error naming it, never ignored.
 */
export function parseArgs(argv: readonly string[], options: CommandOptions): ParsedArgs {
  const spec = Object.fromEntries([
    ...options.values.map((v) => [v, { type: 'string' }] as const),
    ...options.switches.map((s) => [s, { type: 'boolean' }] as const),
  ]);
  let parsed: ReturnType<typeof parseWords>;
  try {
    parsed = parseWords({ args: [...argv], options: spec, strict: true, allowPositionals: true });
  } catch (error) {
    throw parseError(error, options);
  }
  const settings: Record<string, string> = {};
  const on = new Set<string>();
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === true) on.add(name);
    if (typeof value !== 'string') continue;
    if (value === '') throw new UsageError(`--${name} needs a value`);
    settings[VALUE_FLAGS[name as ValueFlag]] = value;
  }
  return { positionals: parsed.positionals, settings, switches: on };
}
