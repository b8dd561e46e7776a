import type { ClientInfo } from '../memory/model.js';

/**
 * A stateless server sees the client's name only in `initialize`. It hands it back inside the
 * session id, which the client echoes on every later request; no server-side state is kept.
 * The name is self-declared provenance, never identity: kept short and printable.
 */

const SESSION_PREFIX = 'nbc1.';
const MAX_NAME = 64;
const MAX_VERSION = 32;
export const UNKNOWN_CLIENT: ClientInfo = { name: 'unknown', version: '?' };

/** Keeps printable ASCII only (no spaces at the ends), bounded in length. */
function printable(text: unknown, max: number): string | undefined {
  if (typeof text !== 'string') return undefined;
  const clean = text
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, max);
  return clean === '' ? undefined : clean;
}

export function clientInfoFrom(value: unknown): ClientInfo | undefined {
  const info = value as { name?: unknown; version?: unknown } | null | undefined;
  const name = printable(info?.name, MAX_NAME);
  if (!name) return undefined;
  return { name, version: printable(info?.version, MAX_VERSION) ?? '?' };
}

/** The session id to return on `initialize`: the client info, base64url-encoded. */
export function sessionIdFor(client: ClientInfo): string {
  return SESSION_PREFIX + Buffer.from(JSON.stringify({ n: client.name, v: client.version })).toString('base64url');
}

/** The client info carried in an echoed session id, if it is one of ours. */
export function clientFromSessionId(sessionId: string | null): ClientInfo | undefined {
  if (!sessionId?.startsWith(SESSION_PREFIX) || sessionId.length > 400) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(sessionId.slice(SESSION_PREFIX.length), 'base64url').toString('utf8'));
    return clientInfoFrom({ name: decoded?.n, version: decoded?.v });
  } catch {
    return undefined;
  }
}

/** Client info a request carries in `_meta` (`clientInfo`, or `io.naaba/client`), which wins over the session's. */
export function clientFromMeta(meta: Record<string, unknown> | undefined): ClientInfo | undefined {
  return clientInfoFrom(meta?.['io.naaba/client']) ?? clientInfoFrom(meta?.clientInfo);
}
