import type { Switch, ValueFlag } from './args.js';
import { docPath } from './docs.js';

/**
 * What `naaba COMMAND --help` says besides the usage: what the command does, and what each option
 * it takes means. Options mean the same everywhere unless a command says otherwise.
 */

type Option = ValueFlag | Switch;

/** The meaning of each option, as most commands read it. */
const MEANING: Readonly<Record<Option, string>> = {
  port: 'the port naaba serve listens on (8000; 0 picks a free one)',
  host: 'the address naaba serve listens on (127.0.0.1)',
  data: 'the local data folder (.naaba): the embedded database, and the running server’s note',
  url: 'a PostgreSQL or CockroachDB URL to use instead of the local data folder',
  region: 'the region: the one the server serves, or a key is issued for (local)',
  config: 'a curation file: each kind’s ceiling and expiry, the pin limit',
  embedder: 'local (offline, lexical, the default) or sentence (offline, semantic; an optional install)',
  language: 'neutral (the default) or english: how words are stemmed for recall',
  endpoint: 'a region’s MCP URL (https://…/mcp, the stack output McpUrl)',
  'db-regions': 'CockroachDB: the database’s regions, primary first',
  'hash-buckets': 'CockroachDB: buckets of each hash-sharded index a migration creates (16)',
  'runtime-roles': 'against a server: the role each function is granted its statements to (none: no grants)',
  user: 'a user id (naaba list-keys shows each key’s): the key is that user’s, so it shares that user’s memories',
  batch: 'how many rows each step writes',
  file: 'the file to use',
  issue: 'make a new key of this NAME',
  kind: 'only the memories of this kind',
  json: 'print JSON instead of text',
  probe: 'also make one real call to each configured provider',
  check: 'only report what would be migrated; change nothing',
  contract: 'also run the contracting steps (after every function runs the new release)',
  'allow-rewrite': 'also run a migration that rewrites a table holding rows (once the rewrite is planned)',
  write: 'write the configuration (the token is then never printed) instead of printing it',
};

interface CommandHelp {
  /** What the command does, in a sentence or two. */
  readonly about: string;
  /** Meanings this command gives an option otherwise than {@link MEANING}. */
  readonly own?: Partial<Record<Option, string>>;
  /** The document (under docs/) that says more. */
  readonly doc?: string;
}

const HELP: Readonly<Record<string, CommandHelp>> = {
  serve: {
    about:
      'Runs the MCP endpoint and the memory page on this machine, over the embedded database in the data folder (created on the first start), until Ctrl-C. It prints the URL and the next step.',
  },
  'issue-key': {
    about:
      'Makes a key and prints its token once (only its SHA-256 is kept), with the URL to give an MCP client. Without --user the key is the first of a new user, with memories of its own.',
    own: {
      endpoint: 'the region’s deployed MCP URL to print with the key (https://…/mcp)',
      port: 'the local server’s port, for the URL it prints',
      host: 'the local server’s address, for the URL it prints',
    },
  },
  'revoke-key': { about: 'Revokes a key (list-keys shows each key id): its token stops working at once.' },
  'list-keys': { about: 'Lists every key: its id, region, whether it is active, its user and its name.' },
  check: {
    about:
      'Shows the configuration in force and where each value came from (flag, environment, default), and what is missing. Connects to nothing unless --probe.',
  },
  embed: { about: 'Embeds one text with the embedder in force and prints its provider, dimension and norm.' },
  migrate: {
    about: 'Brings a database’s schema up to date; with --check, only says whether it is.',
  },
  sweep: { about: 'Does once what the running server does on a timer: removes expired memories and trims the journal.' },
  reembed: {
    about: 'Embeds every memory again with the embedder and language in force, after either changed.',
    own: { batch: 'how many memories each step embeds (100)' },
  },
  export: {
    about: 'Writes all of NAABA_KEY’s owner’s memories and journal to FILE (standard output without one) as JSON.',
    doc: 'export-format.md',
    own: { endpoint: 'a running naaba’s MCP URL to read through instead of the data folder' },
  },
  import: {
    about:
      'Adds the memories of a file naaba export wrote (FILE, or - for standard input) to NAABA_KEY’s owner’s memory: all of them or, past a limit, none.',
    doc: 'export-format.md',
    own: { endpoint: 'a running naaba’s MCP URL to write through instead of the data folder' },
  },
  connect: {
    about:
      'Prints what an MCP client (Claude Code, Cursor, VS Code or any JSON-configured one) needs to reach this naaba, with the key NAABA_KEY holds; --write puts it in the client’s configuration instead. The key is checked against the server before it is written.',
    doc: 'clients.md',
    own: {
      issue:
        'make a new key of this NAME for the client instead of NAABA_KEY; alone it is the first key of a NEW user, with memories of its own; add --user to share a user’s memories',
      user: 'with --issue: the user id whose memories the client shares (the banner, the page and list-keys show it)',
      file: 'with --write: the configuration file to write (Cursor: ~/.cursor/mcp.json, VS Code: .vscode/mcp.json)',
      endpoint: 'the MCP URL the configuration names (a deployed region’s https://…/mcp); the local server’s by default',
      port: 'the local server’s port, when it is not running and the URL must be told',
      host: 'the local server’s address, when it is not running and the URL must be told',
    },
  },
};

/** `naaba COMMAND --help`: what it does, what each option it takes means, and where to read more. */
export function helpOf(name: string, options: readonly Option[]): string {
  const help = HELP[name];
  if (!help) return '';
  const width = Math.max(0, ...options.map((o) => o.length)) + 4;
  const lines = options.map((o) => `  ${`--${o}`.padEnd(width)}${help.own?.[o] ?? MEANING[o]}`);
  return [
    help.about,
    ...(lines.length > 0 ? ['', 'options:', ...lines] : []),
    '',
    ...(help.doc ? [`More: ${docPath(help.doc)}`] : []),
    `Every option has an environment twin: ${docPath('configuration.md')}`,
  ].join('\n');
}

/** Every command has its sentence: the list `--help` and its test read. */
export const HELPED_COMMANDS = Object.keys(HELP);
