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
const VALUE_FLAGS: Record<string, string> = {
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
};

export function parseArgs(argv: readonly string[], switches: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const settings: Record<string, string> = {};
  const on = new Set<string>();
  for (let i = 0; i < argv.length; i += 1) {
    const word = argv[i] ?? '';
    if (!word.startsWith('--')) {
      positionals.push(word);
      continue;
    }
    const [name = '', inline] = word.slice(2).split(/=(.*)/s, 2);
    if (switches.includes(name)) {
      on.add(name);
      continue;
    }
    const setting = VALUE_FLAGS[name];
    if (!setting) throw new UsageError(`unknown option --${name}`);
    if (inline === undefined) i += 1;
    const value = inline ?? argv[i];
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    settings[setting] = value;
  }
  return { positionals, settings, switches: on };
}
