import { randomUUID } from 'node:crypto';
import type { OAuthClient } from '../ports/oauth-store.js';
import { OAuthError } from './oauth-errors.js';

/**
 * What dynamic client registration (RFC 7591) accepts: public clients using the authorization
 * code grant with PKCE, redirect URIs on https or on this machine's loopback (any port, as native
 * apps need), and a client name stored as bounded, printable text.
 */

export const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2_000;
const MAX_NAME_LENGTH = 100;
/** Loopback names for native apps' redirect URIs (RFC 8252 §7.3); any port. */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);
/** The agent name keys carry in provenance (lambda/auth/keys.ts NAME_PATTERN). */
const AGENT_FALLBACK = 'oauth-client';
/** How long a registration no grant has used stays valid (decision 0064): sign-in takes minutes, not days. */
export const UNUSED_CLIENT_SECONDS = 24 * 3_600;

/** Why `uri` cannot be a redirect URI, or undefined when it can. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_LENGTH) {
    return `each redirect URI is a string of 1-${MAX_URI_LENGTH} characters`;
  }
  if (!URL.canParse(uri)) return `"${uri.slice(0, 100)}" is not an absolute URL`;
  const url = new URL(uri);
  if (url.hash !== '' || uri.includes('#')) return 'a redirect URI has no fragment (RFC 6749 §3.1.2)';
  if (url.username !== '' || url.password !== '') return 'a redirect URI carries no user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return undefined;
  return `redirect URI "${uri.slice(0, 100)}": use https, or http on 127.0.0.1, [::1] or localhost`;
}

/**
 * Whether a redirect URI in an authorization request matches a registered one: exactly, or, for
 * a loopback `http` URI, on any port (RFC 8252 §7.3: native apps open a port when they need it).
 * Scheme, host, path and query must still match character for character.
 */
export function redirectMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  if (!URL.canParse(registered) || !URL.canParse(requested) || requested.includes('#')) return false;
  const [a, b] = [new URL(registered), new URL(requested)];
  if (a.protocol !== 'http:' || b.protocol !== 'http:' || !LOOPBACK.has(a.hostname)) return false;
  if (b.username !== '' || b.password !== '') return false;
  const withoutPort = (url: URL, raw: string) => raw.replace(`${url.protocol}//${url.host}`, `${url.protocol}//${url.hostname}`);
  return withoutPort(a, registered) === withoutPort(b, requested);
}

/** The name as printable text: control, format, private-use and separator characters out, spaces collapsed, bounded. */
export function printableName(name: unknown): string {
  if (typeof name !== 'string') return '';
  const clean = name
    .normalize('NFC')
    .replace(/[\p{C}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  return [...clean].slice(0, MAX_NAME_LENGTH).join('').trim();
}

/** The agent name the grant's memories record: the client's name within the characters key names allow. */
export function agentName(clientName: string): string {
  const ascii = clientName
    .replace(/[^A-Za-z0-9 ._@/-]+/g, ' ')
    .replace(/ +/g, ' ')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64)
    .trim();
  return ascii === '' ? AGENT_FALLBACK : ascii;
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new OAuthError('invalid_client_metadata', `${field} must be an array of strings`);
  }
  return value as string[];
}

/**
 * A new client from registration metadata, or an {@link OAuthError} naming the first problem;
 * unused, it lapses after `unusedSeconds`.
 */
export function clientFromMetadata(body: unknown, now: Date, unusedSeconds = UNUSED_CLIENT_SECONDS): OAuthClient {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_client_metadata', 'the registration body is a JSON object (RFC 7591 §2)');
  }
  const metadata = body as Record<string, unknown>;
  const uris = stringList(metadata.redirect_uris, 'redirect_uris');
  if (!uris || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris: 1-${MAX_REDIRECT_URIS} URIs`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const grants = stringList(metadata.grant_types, 'grant_types');
  if (grants?.some((g) => !GRANT_TYPES.has(g))) {
    throw new OAuthError('invalid_client_metadata', 'grant_types: authorization_code and refresh_token only');
  }
  const responses = stringList(metadata.response_types, 'response_types');
  if (responses?.some((r) => r !== 'code')) throw new OAuthError('invalid_client_metadata', 'response_types: code only');
  if (metadata.client_name !== undefined && typeof metadata.client_name !== 'string') {
    throw new OAuthError('invalid_client_metadata', 'client_name must be a string');
  }
  const name = printableName(metadata.client_name);
  return {
    clientId: randomUUID(),
    clientName: name === '' ? 'MCP client' : name,
    redirectUris: [...new Set(uris)],
    createdAt: now,
    expiresAt: new Date(now.getTime() + unusedSeconds * 1_000),
  };
}

/** The registration answer (RFC 7591 §3.2.1): a public client, so no secret and `none` at the token endpoint. */
export function registrationJson(client: OAuthClient) {
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
