import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { RuntimeConfig } from '../../lambda/config/env.js';
import { runningServer } from '../../lambda/dev/data-dir.js';
import {
  CLIENTS,
  type ClientName,
  ClientConfigError,
  claudeArgs,
  clientConfig,
  isClientName,
  mergeConfig,
  TOKEN_PLACEHOLDER,
} from '../../lambda/http/client-config.js';
import { UsageError } from './args.js';
import { TransferError } from './transfer.js';
import { readConfigFile, replaceAtomically } from './config-file.js';
import { mcpEndpoint } from './endpoint.js';
import { issueKey } from './keys.js';
import type { Terminal } from './terminal.js';

/**
 * `naaba connect CLIENT`: what Claude Code, Cursor, VS Code or any JSON-configured client needs to
 * reach this naaba, printed; written into the client's configuration only with --write (and then
 * the token is never printed). The token is NAABA_KEY's, or a new key's with --issue NAME.
 */

/** Where --write puts each client's configuration unless --file says otherwise: the user's or the project's. */
const DEFAULT_FILES: Partial<Record<ClientName, (t: Terminal) => string>> = {
  cursor: (t) => join(t.env.HOME || homedir(), '.cursor', 'mcp.json'),
  vscode: (t) => resolve(t.cwd, '.vscode', 'mcp.json'),
};

export interface ConnectOptions {
  readonly write: boolean;
  readonly file: string | undefined;
  /** Issue a new key of this name for the client. */
  readonly issue: string | undefined;
}

async function tokenFor(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  options: ConnectOptions,
): Promise<string | undefined> {
  if (options.issue) {
    const issued = await issueKey(t, config, flags, options.issue, undefined, 'quiet');
    t.warn(`issued key "${issued.name}" (id ${issued.keyId}) for this client`);
    return issued.token;
  }
  return t.env.NAABA_KEY?.trim() || undefined;
}

/** Claude Code keeps its servers itself: `claude mcp add`, run for the user. */
async function addToClaude(t: Terminal, url: string, token: string): Promise<void> {
  try {
    await promisify(execFile)('claude', claudeArgs(url, token), { env: t.env, cwd: t.cwd });
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TransferError(
      missing
        ? 'claude (Claude Code) is not on PATH; install it, or run the command naaba connect claude-code prints'
        : `claude mcp add failed: ${String((error as { stderr?: unknown }).stderr ?? (error as Error).message).trim()}`,
    );
  }
  t.print(`added server "naaba" to Claude Code (user scope): ${url}`);
}

/** Group and others lose every access to a file that will hold a key; any other mode is kept. */
const OWNER_ONLY = 0o700;

function writeInto(t: Terminal, file: string, client: Exclude<ClientName, 'claude-code'>, url: string, token: string): void {
  const path = resolve(t.cwd, file);
  const found = readConfigFile(path, file);
  let merged: string;
  try {
    merged = mergeConfig(found?.text ?? '', client, url, token);
  } catch (error) {
    if (!(error instanceof ClientConfigError)) throw error;
    throw new TransferError(`${file} ${error.message}; fix or move it, then run this again (nothing was written)`);
  }
  const holdsKey = token !== TOKEN_PLACEHOLDER && clientConfig(client, url).holdsToken;
  const before = found?.mode ?? 0o600;
  const mode = holdsKey ? before & OWNER_ONLY : before;
  replaceAtomically(path, file, merged, mode);
  const narrowed = mode !== before ? `; it now holds a key, so its mode went from ${octal(before)} to ${octal(mode)}` : '';
  t.print(`wrote server "naaba" into ${file} (${url}); anything else in it is as it was${narrowed}`);
}

const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;

export async function connectCommand(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  client: string,
  options: ConnectOptions,
): Promise<void> {
  if (!isClientName(client)) throw new UsageError(`unknown client "${client}"; one of: ${CLIENTS.join(', ')}`);
  const note = config.database.kind === 'pglite' ? runningServer(config.dataDir) : undefined;
  const endpoint = mcpEndpoint(t.env, config, flags, note ? `${note.url}/mcp` : undefined);
  if (endpoint.kind !== 'known') throw new UsageError('pass --endpoint with the region’s MCP URL (the stack output McpUrl)');
  const url = endpoint.url;
  const token = await tokenFor(t, config, flags, options);
  if (!options.write) {
    const shown = clientConfig(client, url, token);
    t.print(`${shown.name}: ${shown.form === 'command' ? 'run in' : 'put in'} ${shown.where}\n\n${shown.text}\n`);
    if (!token && shown.holdsToken)
      t.print(`Replace ${TOKEN_PLACEHOLDER} with a key: set NAABA_KEY, or add --issue NAME to make one for this client.`);
    return;
  }
  const needsToken = clientConfig(client, url).holdsToken;
  if (needsToken && !token) throw new UsageError('--write needs a key: set NAABA_KEY, or add --issue NAME to make one');
  if (client === 'claude-code') return addToClaude(t, url, token ?? '');
  const file = options.file ?? DEFAULT_FILES[client]?.(t);
  if (!file) throw new UsageError('--write for the generic JSON needs --file PATH (the client’s configuration file)');
  writeInto(t, file, client, url, token ?? TOKEN_PLACEHOLDER);
}
