import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { environment, type RuntimeConfig } from '../../lambda/config/env.js';
import { runningServer } from '../../lambda/dev/data-dir.js';
import {
  CLIENTS,
  type ClientName,
  claudeArgs,
  clientConfig,
  isClientName,
  mergeConfig,
  TOKEN_PLACEHOLDER,
} from '../../lambda/http/client-config.js';
import { UsageError } from './args.js';
import { TransferError } from './transfer.js';
import { mcpEndpoint } from './endpoint.js';
import { issueKey } from './keys.js';

/**
 * `naaba connect CLIENT`: what Claude Code, Cursor, VS Code or any JSON-configured client needs to
 * reach this naaba, printed; written into the client's configuration only with --write (and then
 * the token is never printed). The token is NAABA_KEY's, or a new key's with --issue NAME.
 */

/** Where --write puts each client's configuration unless --file says otherwise. */
const DEFAULT_FILES: Partial<Record<ClientName, () => string>> = {
  cursor: () => join(homedir(), '.cursor', 'mcp.json'),
  vscode: () => resolve('.vscode', 'mcp.json'),
};

export interface ConnectOptions {
  readonly write: boolean;
  readonly file: string | undefined;
  /** Issue a new key of this name for the client. */
  readonly issue: string | undefined;
}

async function tokenFor(
  config: RuntimeConfig,
  flags: Record<string, string>,
  options: ConnectOptions,
): Promise<string | undefined> {
  if (options.issue) {
    const issued = await issueKey(config, flags, options.issue, undefined, 'quiet');
    console.error(`issued key "${issued.name}" (id ${issued.keyId}) for this client`);
    return issued.token;
  }
  return environment().NAABA_KEY?.trim() || undefined;
}

/** Claude Code keeps its servers itself: `claude mcp add`, run for the user. */
async function addToClaude(url: string, token: string): Promise<void> {
  try {
    await promisify(execFile)('claude', claudeArgs(url, token));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new TransferError(
      missing
        ? 'claude (Claude Code) is not on PATH; install it, or run the command naaba connect claude-code prints'
        : `claude mcp add failed: ${String((error as { stderr?: unknown }).stderr ?? (error as Error).message).trim()}`,
    );
  }
  console.log(`added server "naaba" to Claude Code (user scope): ${url}`);
}

function writeInto(file: string, client: Exclude<ClientName, 'claude-code'>, url: string, token: string): void {
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let merged: string;
  try {
    merged = mergeConfig(existing, client, url, token);
  } catch {
    throw new TransferError(`${file} is not a JSON object; fix or move it, then run this again (nothing was written)`);
  }
  mkdirSync(dirname(file), { recursive: true });
  // The file may hold the key: only its owner reads it.
  writeFileSync(file, merged, { mode: 0o600 });
  chmodSync(file, 0o600);
  console.log(`wrote server "naaba" into ${file} (${url}); anything else in it is as it was`);
}

export async function connectCommand(
  config: RuntimeConfig,
  flags: Record<string, string>,
  client: string,
  options: ConnectOptions,
): Promise<void> {
  if (!isClientName(client)) throw new UsageError(`unknown client "${client}"; one of: ${CLIENTS.join(', ')}`);
  const note = config.database.kind === 'pglite' ? runningServer(config.dataDir) : undefined;
  const endpoint = mcpEndpoint(config, flags, note ? `${note.url}/mcp` : undefined);
  if (endpoint.kind !== 'known') throw new UsageError('pass --endpoint with the region’s MCP URL (the stack output McpUrl)');
  const url = endpoint.url;
  const token = await tokenFor(config, flags, options);
  if (!options.write) {
    const shown = clientConfig(client, url, token);
    console.log(`${shown.name}: ${shown.form === 'command' ? 'run in' : 'put in'} ${shown.where}\n\n${shown.text}\n`);
    if (!token && shown.holdsToken)
      console.log(`Replace ${TOKEN_PLACEHOLDER} with a key: set NAABA_KEY, or add --issue NAME to make one for this client.`);
    return;
  }
  const needsToken = clientConfig(client, url).holdsToken;
  if (needsToken && !token) throw new UsageError('--write needs a key: set NAABA_KEY, or add --issue NAME to make one');
  if (client === 'claude-code') return addToClaude(url, token ?? '');
  const file = options.file ?? DEFAULT_FILES[client]?.();
  if (!file) throw new UsageError('--write for the generic JSON needs --file PATH (the client’s configuration file)');
  writeInto(file, client, url, token ?? TOKEN_PLACEHOLDER);
}
