/**
 * How each MCP client is told about naaba: the one line or the JSON its configuration takes, for
 * the page's "connect an agent" panel (`GET /api/connect`) and for `naaba connect CLIENT`. One
 * source, so the page and the CLI never drift apart (docs/clients.md).
 */

import { DEFAULT_REGION } from '../config/defaults.js';

export const CLIENTS = ['claude-code', 'cursor', 'vscode', 'json'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** What a person writes where the token goes, when no token is given. */
export const TOKEN_PLACEHOLDER = 'nb_…';

/** The server's name in every client's configuration. */
export const SERVER_NAME = 'naaba';

/** VS Code asks for the key itself (a password prompt) and keeps it out of the file. */
const VSCODE_INPUT = 'naaba-key';

export interface ClientConfig {
  readonly client: ClientName;
  readonly name: string;
  /** Where it goes: a terminal, or the configuration file a client reads. */
  readonly where: string;
  /** The command line (`command`) or the JSON to put in that file (`json`). */
  readonly form: 'command' | 'json';
  readonly text: string;
  /** Whether the text holds the token (VS Code prompts for it instead). */
  readonly holdsToken: boolean;
}

const header = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The `naaba` entry each JSON configuration holds, and the top-level key it sits under. */
export function serverEntry(client: Exclude<ClientName, 'claude-code'>, url: string, token: string): Record<string, unknown> {
  if (client === 'cursor') return { mcpServers: { [SERVER_NAME]: { url, headers: header(token) } } };
  if (client === 'vscode') {
    return {
      inputs: [{ type: 'promptString', id: VSCODE_INPUT, description: 'naaba API key (nb_…)', password: true }],
      servers: { [SERVER_NAME]: { type: 'http', url, headers: header(`\${input:${VSCODE_INPUT}}`) } },
    };
  }
  return { mcpServers: { [SERVER_NAME]: { type: 'http', url, headers: header(token) } } };
}

/** Claude Code's own command that adds a server (user scope: the token stays out of the project). */
export function claudeArgs(url: string, token: string): string[] {
  return ['mcp', 'add', '--transport', 'http', '--scope', 'user', SERVER_NAME, url, '--header', `Authorization: Bearer ${token}`];
}

/** A word quoted for a POSIX shell when it needs it. */
export const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** One client's configuration for the MCP endpoint at `url`; `token` defaults to the placeholder. */
export function clientConfig(client: ClientName, url: string, token = TOKEN_PLACEHOLDER): ClientConfig {
  switch (client) {
    case 'claude-code':
      return {
        client,
        name: 'Claude Code',
        where: 'a terminal',
        form: 'command',
        text: ['claude', ...claudeArgs(url, token)].map(shellWord).join(' '),
        holdsToken: true,
      };
    case 'cursor':
      return {
        client,
        name: 'Cursor',
        where: '~/.cursor/mcp.json',
        form: 'json',
        text: pretty(serverEntry(client, url, token)),
        holdsToken: true,
      };
    case 'vscode':
      return {
        client,
        name: 'VS Code',
        where: '.vscode/mcp.json',
        form: 'json',
        text: pretty(serverEntry(client, url, token)),
        holdsToken: false,
      };
    case 'json':
      return {
        client,
        name: 'Any other client (JSON)',
        where: "the client's MCP configuration",
        form: 'json',
        text: pretty(serverEntry(client, url, token)),
        holdsToken: true,
      };
  }
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** Where a `naaba connect` line reaches the signed-in user's naaba: the local server's data folder, or a region's endpoint. */
export type ConnectTarget =
  /** No `dataDir`: the command line's default folder. */
  { readonly dataDir?: string; readonly region: string } | { readonly endpoint: string; readonly region: string };

/**
 * The one `naaba connect` line for a signed-in user: a new key of that same user (`--user`), so the
 * agent's memories are the ones the page shows (decision 0111); without a user, the first key of a
 * new one. VS Code asks for the key itself, so its line makes none; the generic JSON needs the
 * client's own file, so its line prints instead of writing. `naaba` is how the person runs naaba
 * (bin/cli/invoked.ts); a deployed page, which cannot know, says `npx naaba`.
 */
export function connectLine(
  client: ClientName,
  userId: string | undefined,
  target: ConnectTarget,
  naaba: readonly string[] = ['npx', 'naaba'],
): string {
  const user = userId === undefined ? [] : ['--user', userId];
  const key = clientConfig(client, '').holdsToken ? ['--issue', client === 'json' ? 'my-agent' : client, ...user] : [];
  const where =
    'endpoint' in target ? ['--endpoint', target.endpoint] : target.dataDir === undefined ? [] : ['--data', target.dataDir];
  // The command line's own default region needs no flag.
  const region = target.region === DEFAULT_REGION ? [] : ['--region', target.region];
  const write = client === 'json' ? [] : ['--write'];
  return [...naaba, 'connect', client, ...key, ...where, ...region, ...write].map(shellWord).join(' ');
}

/** True for a name `naaba connect` and the page know. */
export const isClientName = (name: string): name is ClientName => (CLIENTS as readonly string[]).includes(name);

/** A configuration file naaba will not change: what it found, in words. */
export class ClientConfigError extends Error {
  override name = 'ClientConfigError';
}

/** What a JSON value is, for a person: `a list of 2 entries`, `a string`, `null`. */
function described(value: unknown): string {
  if (Array.isArray(value)) return `a list of ${value.length} entr${value.length === 1 ? 'y' : 'ies'}`;
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * An existing configuration file with naaba's entry put in (or replaced): other servers, inputs
 * and settings stay as they were. `existing` is the file's text, empty for a new file. Text that is
 * not a JSON object, or a servers entry that is not an object (or `inputs` not a list), is refused
 * with what was found rather than rewritten into something else.
 */
export function mergeConfig(existing: string, client: Exclude<ClientName, 'claude-code'>, url: string, token: string): string {
  let current: unknown = {};
  try {
    if (existing.trim() !== '') current = JSON.parse(existing);
  } catch {
    throw new ClientConfigError('is not a JSON object (it does not parse as JSON)');
  }
  if (typeof current !== 'object' || current === null || Array.isArray(current))
    throw new ClientConfigError(`is not a JSON object (it holds ${described(current)})`);
  const merged: Record<string, unknown> = { ...(current as Record<string, unknown>) };
  for (const [key, value] of Object.entries(serverEntry(client, url, token))) {
    const there = merged[key];
    if (key === 'inputs') {
      if (there !== undefined && !Array.isArray(there))
        throw new ClientConfigError(`holds "inputs" as ${described(there)}, not a list`);
      const kept = ((there ?? []) as { id?: unknown }[]).filter((i) => i?.id !== VSCODE_INPUT);
      merged.inputs = [...kept, ...(value as unknown[])];
    } else {
      if (there !== undefined && described(there) !== 'an object')
        throw new ClientConfigError(`holds "${key}" as ${described(there)}, not an object of servers`);
      merged[key] = { ...((there ?? {}) as Record<string, unknown>), ...(value as Record<string, unknown>) };
    }
  }
  return `${pretty(merged)}\n`;
}
