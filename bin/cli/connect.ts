import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { IssuedKey } from '../../lambda/auth/keys.js';
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
import { healthzTimeoutMs, mcpEndpoint } from './endpoint.js';
import { issueKey, withdrawKey } from './keys.js';
import { naabaCommand } from './invoked.js';
import type { Terminal } from './terminal.js';

/**
 * `naaba connect CLIENT`: what Claude Code, Cursor, VS Code or any JSON-configured client needs to
 * reach this naaba, printed; written into the client's configuration only with --write (and then
 * the token is never printed). The token is NAABA_KEY's, or a new key's with --issue NAME: of the
 * user --user names, so the client shares that user's memories, or else of a new user.
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
  /** With --issue: whose key it is (a user id), so the client joins that user's memories. */
  readonly user: string | undefined;
}

const heldKey = (t: Terminal) => t.env.NAABA_KEY?.trim() || undefined;

/** Refuses, before anything is issued, a key option that would not do what it seems to. */
function checkKeyOptions(t: Terminal, options: ConnectOptions): void {
  if (options.user && !options.issue)
    throw new UsageError(
      '--user says whose key --issue NAME makes; add --issue NAME (or set NAABA_KEY to give the client that key)',
    );
  if (options.issue && !options.user && heldKey(t)) {
    throw new UsageError(
      `NAABA_KEY is set, but --issue without --user makes a key for a new user, with memories of its own: drop --issue to give the client NAABA_KEY, or add --user USER_ID (${naabaCommand(t)} list-keys shows it) for another key of that user`,
    );
  }
}

async function issueFor(t: Terminal, config: RuntimeConfig, flags: Record<string, string>, name: string, user?: string) {
  const issued = await issueKey(t, config, flags, name, user, 'quiet');
  t.warn(
    user
      ? `issued key "${issued.name}" (id ${issued.keyId}) of user ${issued.userId} for this client`
      : `issued key "${issued.name}" (id ${issued.keyId}) for a new user ${issued.userId}; to give another client the same memories: --issue NAME --user ${issued.userId}`,
  );
  return issued;
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

/** The file's new text and mode; refused (nothing written) when naaba will not change the file. */
function merged(t: Terminal, file: string, client: Exclude<ClientName, 'claude-code'>, url: string, token: string) {
  const path = resolve(t.cwd, file);
  const found = readConfigFile(path, file);
  let text: string;
  try {
    text = mergeConfig(found?.text ?? '', client, url, token);
  } catch (error) {
    if (!(error instanceof ClientConfigError)) throw error;
    throw new TransferError(`${file} ${error.message}; fix or move it, then run this again (nothing was written)`);
  }
  const holdsKey = token !== TOKEN_PLACEHOLDER && clientConfig(client, url).holdsToken;
  const before = found?.mode ?? 0o600;
  return { path, text, before, mode: holdsKey ? before & OWNER_ONLY : before };
}

async function writeInto(
  t: Terminal,
  file: string,
  client: Exclude<ClientName, 'claude-code'>,
  url: string,
  token: string,
): Promise<void> {
  const { path, text, before, mode } = merged(t, file, client, url, token);
  await replaceAtomically(path, file, text, mode);
  const narrowed = mode !== before ? `; it now holds a key, so its mode went from ${octal(before)} to ${octal(mode)}` : '';
  t.print(`wrote server "naaba" into ${file} (${url}); anything else in it is as it was${narrowed}`);
}

const octal = (mode: number) => `0${mode.toString(8).padStart(3, '0')}`;

/** What --write does with a token; a file it would refuse is refused here, before any key is issued. */
function writerFor(t: Terminal, client: ClientName, url: string, options: ConnectOptions): (token: string) => Promise<void> {
  if (client === 'claude-code') return (token) => addToClaude(t, url, token);
  const file = options.file ?? DEFAULT_FILES[client]?.(t);
  if (!file) throw new UsageError('--write for the generic JSON needs --file PATH (the client’s configuration file)');
  merged(t, file, client, url, TOKEN_PLACEHOLDER);
  return (token) => writeInto(t, file, client, url, token);
}

/**
 * A key issued for a client that was not connected is revoked again, so none is left active that
 * nobody holds; if even that fails, its token is printed rather than lost.
 */
async function withdraw(t: Terminal, config: RuntimeConfig, issued: IssuedKey): Promise<void> {
  // A server that holds the request without answering (stopped, not gone) must not keep the token from being shown.
  const waitMs = healthzTimeoutMs(t.env);
  try {
    await withdrawKey(t, config, issued.keyId, waitMs);
    t.warn(`naaba: the client was not connected, so key "${issued.name}" (id ${issued.keyId}) was revoked again`);
  } catch (error) {
    const why =
      (error as Error).name === 'TimeoutError'
        ? `the server gave no answer within ${waitMs / 1000} s (it may still revoke it once it answers; ${naabaCommand(t)} list-keys says)`
        : (error as Error).message;
    t.warn(`naaba: the client was not connected, and key ${issued.keyId} could not be revoked: ${why}`);
    t.print(`Key "${issued.name}" (id ${issued.keyId}) is active; use it, or revoke it with ${naabaCommand(t)} revoke-key ${issued.keyId}
  token:   ${issued.token}`);
  }
}

/** A client that prompts for its key (VS Code) is told the new one: a token issued is never hidden. */
const asksForKey = (client: string, token: string) =>
  `${client} asks for the key when it starts naaba; give it this one (shown once, only its SHA-256 is stored): ${token}`;

export async function connectCommand(
  t: Terminal,
  config: RuntimeConfig,
  flags: Record<string, string>,
  client: string,
  options: ConnectOptions,
): Promise<void> {
  if (!isClientName(client)) throw new UsageError(`unknown client "${client}"; one of: ${CLIENTS.join(', ')}`);
  checkKeyOptions(t, options);
  const note = config.database.kind === 'pglite' ? runningServer(config.dataDir) : undefined;
  const endpoint = mcpEndpoint(t.env, config, flags, note ? `${note.url}/mcp` : undefined);
  if (endpoint.kind !== 'known') throw new UsageError('pass --endpoint with the region’s MCP URL (the stack output McpUrl)');
  const url = endpoint.url;
  const holdsToken = clientConfig(client, url).holdsToken;
  if (!options.write) {
    const issued = options.issue ? await issueFor(t, config, flags, options.issue, options.user) : undefined;
    const token = issued?.token ?? heldKey(t);
    const shown = clientConfig(client, url, token);
    t.print(`${shown.name}: ${shown.form === 'command' ? 'run in' : 'put in'} ${shown.where}\n\n${shown.text}\n`);
    if (issued && !holdsToken) t.print(asksForKey(shown.name, issued.token));
    if (!token && holdsToken)
      t.print(`Replace ${TOKEN_PLACEHOLDER} with a key: set NAABA_KEY, or add --issue NAME to make one for this client.`);
    return;
  }
  // Everything that can be checked is checked first: a refused write issues no key.
  const write = writerFor(t, client, url, options);
  if (!options.issue) {
    const token = heldKey(t);
    if (holdsToken && !token) throw new UsageError('--write needs a key: set NAABA_KEY, or add --issue NAME to make one');
    if (token && holdsToken) await checkKey(t, url, token);
    return write(token ?? TOKEN_PLACEHOLDER);
  }
  // Heard from before the key exists: Ctrl-C or SIGTERM from here on takes the key back.
  const stop = t.stopRequested();
  const issued = await issueFor(t, config, flags, options.issue, options.user);
  try {
    await unlessStopped(write(issued.token), stop);
  } catch (error) {
    await withdraw(t, config, issued);
    throw error;
  }
  if (!holdsToken) t.print(asksForKey(clientConfig(client, url).name, issued.token));
}

/** Ctrl-C or SIGTERM while `connect` holds a key it issued: the key is taken back before it ends. */
export class ConnectInterruptedError extends Error {
  override name = 'ConnectInterruptedError';
}

/** `work`, unless a stop is asked for first (or was already): then a {@link ConnectInterruptedError}. */
function unlessStopped<T>(work: Promise<T>, stop: AbortSignal): Promise<T> {
  const interrupted = new Promise<never>((_, reject) => {
    const fail = () => reject(new ConnectInterruptedError('interrupted before the client was connected'));
    if (stop.aborted) fail();
    else stop.addEventListener('abort', fail, { once: true });
  });
  // The write may still end later, unobserved: its outcome no longer matters.
  work.catch(() => undefined);
  return Promise.race([work, interrupted]);
}

/**
 * Asks the server the configuration names whether it takes the key (one MCP ping with it): an
 * unknown or revoked key (401), or one of another region (403), is refused before it is written.
 * A server that does not answer is said so, and the key written unchecked.
 */
async function checkKey(t: Terminal, url: string, token: string): Promise<void> {
  let status: number;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      signal: AbortSignal.timeout(healthzTimeoutMs(t.env)),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    const why = (error as Error).name === 'TimeoutError' ? 'no answer in time' : 'it did not answer';
    t.warn(`naaba: could not check NAABA_KEY against ${url} (${why}); it is written unchecked`);
    return;
  }
  const naaba = naabaCommand(t);
  if (status === 401)
    throw new TransferError(
      `${url} does not know the key in NAABA_KEY (a mistyped or revoked key); nothing was written. ${naaba} list-keys shows the active keys`,
    );
  if (status === 403)
    throw new TransferError(`${url} refuses the key in NAABA_KEY (403: a key of another region?); nothing was written`);
  if (status < 200 || status >= 300)
    t.warn(`naaba: could not check NAABA_KEY against ${url} (it answered ${status}); it is written unchecked`);
}
