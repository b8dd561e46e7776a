import { loadConfig, type RuntimeConfig } from '../../lambda/config/env.js';
import { type CommandOptions, FLAG_NAMES, type ParsedArgs, UsageError, type ValueFlag } from './args.js';
import { check, embed } from './check.js';
import { connectCommand } from './connect.js';
import { followFolderRules } from './folder-config.js';
import { migrateCommand, reembedCommand, sweepCommand } from './db.js';
import { issueKey, listKeys, revokeKey } from './keys.js';
import { serve } from './serve.js';
import type { Terminal } from './terminal.js';
import { exportCommand, importCommand } from './transfer.js';

/**
 * Every subcommand: its usage lines (what `naaba CMD --help` prints), the flags it takes (any other
 * is an error naming it) and what it runs. The one list the usage, the parser and the dispatch read.
 */

/** What opens a database and the rules it is read with. */
const DATABASE: readonly ValueFlag[] = ['data', 'url', 'region', 'config', 'embedder', 'language'];

export interface Invocation {
  readonly t: Terminal;
  readonly args: ParsedArgs;
  /** The flags that stand for settings (`NAABA_…`), without the command's own values. */
  readonly settings: Record<string, string>;
  readonly value: (flag: 'user' | 'batch' | 'file' | 'issue' | 'kind') => string | undefined;
  readonly on: (flag: string) => boolean;
  readonly config: () => RuntimeConfig;
  /** The configuration with the data folder's recorded curation rules (decision 0104). */
  readonly folderConfig: () => RuntimeConfig;
}

export interface Command extends CommandOptions {
  readonly usage: readonly string[];
  /** Takes no positional words: one given is a usage error, not ignored. */
  readonly bare?: true;
  run(call: Invocation): Promise<number>;
}

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1 || !positionals[0]) throw new UsageError(`expected exactly one ${what}`);
  return positionals[0];
}

const done = (work: Promise<unknown>) => work.then(() => 0);

export const COMMANDS: Readonly<Record<string, Command>> = {
  serve: {
    usage: ['naaba serve [--port 8000] [--host 127.0.0.1] [--data DIR] [--region R] [--config FILE] [--embedder local|sentence]'],
    values: ['port', 'host', ...DATABASE],
    switches: [],
    bare: true,
    run: (c) => done(serve(c.t, c.config())),
  },
  'issue-key': {
    usage: ['naaba issue-key NAME [--region R] [--data DIR | --url URL] [--user USER_ID] [--endpoint URL] [--json]'],
    values: [...DATABASE, 'user', 'endpoint', 'port', 'host'],
    switches: ['json'],
    run: (c) => done(issueKey(c.t, c.config(), c.settings, one(c.args.positionals, 'key NAME'), c.value('user'), c.on('json'))),
  },
  'revoke-key': {
    usage: ['naaba revoke-key KEY_ID [--data DIR | --url URL]'],
    values: DATABASE,
    switches: [],
    run: (c) => done(revokeKey(c.t, c.config(), one(c.args.positionals, 'KEY_ID'))),
  },
  'list-keys': {
    usage: ['naaba list-keys [--json] [--data DIR | --url URL]'],
    values: DATABASE,
    switches: ['json'],
    bare: true,
    run: (c) => done(listKeys(c.t, c.config(), c.on('json'))),
  },
  check: {
    usage: ['naaba check [--probe] [any setting flag: --data, --config, --embedder, …]'],
    values: ['port', 'host', 'endpoint', 'db-regions', 'runtime-roles', ...DATABASE],
    switches: ['probe'],
    bare: true,
    run: async (c) => ((await check(c.t, c.settings, { probe: c.on('probe') })) ? 0 : 1),
  },
  embed: {
    usage: ['naaba embed "text" [--embedder local|sentence]'],
    values: ['embedder', 'config', 'language'],
    switches: [],
    run: (c) => done(embed(c.t, c.config(), one(c.args.positionals, 'quoted text'))),
  },
  migrate: {
    usage: [
      'naaba migrate [--data DIR | --url URL [--db-regions PRIMARY,OTHER...] [--hash-buckets 16] [--runtime-roles mcp=ROLE,authorizer=ROLE,sweeper=ROLE|none] [--contract] [--allow-rewrite]] [--batch 5000]',
      'naaba migrate --check [--data DIR | --url URL] [--json]',
    ],
    values: [...DATABASE, 'db-regions', 'hash-buckets', 'runtime-roles', 'batch'],
    switches: ['check', 'contract', 'allow-rewrite', 'json'],
    bare: true,
    run: (c) => {
      return migrateCommand(c.t, c.config(), c.settings, {
        check: c.on('check'),
        contract: c.on('contract'),
        allowRewrite: c.on('allow-rewrite'),
        json: c.on('json'),
        batch: c.value('batch'),
      });
    },
  },
  sweep: {
    usage: ['naaba sweep [--data DIR | --url URL] [--region R] [--config FILE]'],
    values: DATABASE,
    switches: [],
    bare: true,
    run: (c) => done(sweepCommand(c.t, c.folderConfig())),
  },
  reembed: {
    usage: ['naaba reembed [--data DIR | --url URL] [--language neutral|english] [--embedder NAME] [--batch 100]'],
    values: [...DATABASE, 'batch'],
    switches: [],
    bare: true,
    run: (c) => done(reembedCommand(c.t, c.config(), c.value('batch'))),
  },
  export: {
    usage: ['naaba export [FILE] [--endpoint URL | --data DIR | --url URL]            (as NAABA_KEY’s owner)'],
    values: [...DATABASE, 'endpoint'],
    switches: [],
    run: (c) => {
      if (c.args.positionals.length > 1) throw new UsageError('expected at most one FILE');
      return done(exportCommand(c.t, c.folderConfig(), c.settings, c.args.positionals[0]));
    },
  },
  import: {
    usage: ['naaba import FILE [--kind KIND] [--endpoint URL | --data DIR | --url URL] (as NAABA_KEY’s owner)'],
    values: [...DATABASE, 'endpoint', 'kind'],
    switches: [],
    run: (c) =>
      done(
        importCommand(
          c.t,
          c.folderConfig(),
          c.settings,
          one(c.args.positionals, 'FILE (or - for standard input)'),
          c.value('kind'),
        ),
      ),
  },
  connect: {
    usage: [
      'naaba connect claude-code|cursor|vscode|json [--write [--file PATH]] [--issue NAME [--user USER_ID]] [--endpoint URL]',
    ],
    values: [...DATABASE, 'endpoint', 'port', 'host', 'file', 'issue', 'user'],
    switches: ['write'],
    run: (c) =>
      done(
        connectCommand(c.t, c.config(), c.settings, one(c.args.positionals, 'CLIENT'), {
          write: c.on('write'),
          file: c.value('file'),
          issue: c.value('issue'),
          user: c.value('user'),
        }),
      ),
  },
};

/** Runs a command whose words were parsed: settings split from the command's own values. */
export function invocation(t: Terminal, command: Command, args: ParsedArgs): Invocation {
  if (command.bare && args.positionals.length > 0) throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  const { user, batch, file, issue, kind, ...settings } = args.settings;
  const own: Record<string, string | undefined> = { user, batch, file, issue, kind };
  return {
    t,
    args,
    settings,
    value: (flag) => own[flag],
    on: (flag) => args.switches.has(flag),
    config: () => loadConfig(t.env, settings, FLAG_NAMES),
    folderConfig: () => followFolderRules(loadConfig(t.env, settings, FLAG_NAMES)),
  };
}
