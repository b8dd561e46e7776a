import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { KeyStore } from '../ports/key-store.js';
import type { OAuthClient, OAuthStore, TokenPair } from '../ports/oauth-store.js';
import { authorize } from './authorize.js';
import { LOOPBACK_REGISTRATIONS, isLoopback, loopbackRegistrationsOf } from './loopback-registrations.js';
import { agentName, clientFromMetadata, redirectMatches, UNUSED_CLIENT_SECONDS } from './oauth-clients.js';
import { OAuthError } from './oauth-errors.js';
import { AddressLimiter, type LimitedRoute, type OAuthRateLimits } from './oauth-limits.js';
import { ACCESS_PREFIX, CODE_PREFIX, hashToken, newToken, REFRESH_PREFIX, TOKEN_PREFIX } from './token.js';

/**
 * naaba as its own small authorization server (docs/decisions/0054): clients register, a person
 * proves who they are with an existing key on the consent page, and the client gets a grant —
 * a key of the same user and region, named after the client — reached through short-lived
 * access tokens and rotating refresh tokens. Nothing here logs a secret.
 */

export const OAUTH_LIMITS = {
  codeSeconds: 60,
  accessSeconds: 3_600,
  refreshSeconds: 30 * 24 * 3_600,
  /**
   * A replaced refresh token presented again this soon after its first replacement, before any
   * replacement of it was used, is replaced again instead of ending the grant: two refreshes at
   * once, or a retry after a lost answer (decision 0067). Later, or after a replacement was used,
   * it is reuse.
   */
  refreshGraceSeconds: 30,
} as const;

/** The scope a grant carries: the four tools, nothing finer. */
export const SCOPE = 'memory';

/** A validated authorization request: what the consent page shows and the form carries back. */
export interface AuthorizationRequest {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly codeChallenge: string;
  readonly resource: string;
}

/** A refused authorization request: shown on the page when the redirect URI cannot be trusted, else sent back to the client. */
export type AuthorizationRefusal =
  | { readonly kind: 'page'; readonly status: number; readonly message: string }
  | { readonly kind: 'redirect'; readonly to: string };

/** What the token endpoint answers (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly refresh_token: string;
  readonly scope: string;
}

/** Why the consent page refused, as its security event names it (decision 0065). */
export type ConsentRefusal = 'not_a_key' | 'unknown_or_revoked_key' | 'wrong_region' | 'form_reused';

/** The consent page's refusal: a key unknown, revoked or of another region, or a form already used. */
export class ConsentError extends Error {
  override name = 'ConsentError';

  constructor(
    message: string,
    readonly status: number,
    readonly reason: ConsentRefusal,
  ) {
    super(message);
  }
}

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_STATE = 1_000;

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');
const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const later = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1_000);

/** The redirect URI with the answer's parameters added (RFC 6749 §4.1.2), `iss` included (RFC 9207). */
export function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}

export interface OAuthSettings {
  /** The issuer: the endpoint's public base URL (`https://host/v1`, or `http://127.0.0.1:8000`). */
  readonly issuer: string;
  readonly region: string;
  /** Requests per client address to register, authorize, token and revoke (decision 0064). */
  readonly limits: OAuthRateLimits;
}

export class OAuthService {
  constructor(
    private readonly store: OAuthStore,
    private readonly keys: KeyStore,
    private readonly clock: Clock,
    private readonly settings: OAuthSettings,
  ) {}

  /** The protected resource: the MCP endpoint's URL (RFC 8707 resource indicator). */
  get resource(): string {
    return `${this.settings.issuer}/mcp`;
  }

  /**
   * Counts a request of `address` to a limited route; resolves undefined when it may go on, else
   * the seconds until that address is served again.
   */
  admit(route: LimitedRoute, address: string): Promise<number | undefined> {
    return new AddressLimiter(this.store, this.clock, this.settings.limits).admit(route, address);
  }

  /**
   * Registers a client. From loopback (another process of this machine) an unused registration
   * lapses sooner, and past the bound the oldest waiting one ends (loopback-registrations.ts).
   */
  async register(metadata: unknown, address?: string): Promise<OAuthClient> {
    const now = this.clock.now();
    const local = address !== undefined && isLoopback(address);
    const client = clientFromMetadata(metadata, now, local ? LOOPBACK_REGISTRATIONS.unusedSeconds : UNUSED_CLIENT_SECONDS);
    await this.store.registerClient(client);
    if (local && client.expiresAt) {
      const over = loopbackRegistrationsOf(this.store).registered(client.clientId, client.expiresAt, now);
      await this.store.lapseUnusedClients(over, now);
    }
    return client;
  }

  /** Whether `clientId` names a registration that has not lapsed: what gives a loopback caller its own lane. */
  async isLiveClient(clientId: string): Promise<boolean> {
    return (await this.findClient(clientId)) !== undefined;
  }

  private findClient(clientId: string): Promise<OAuthClient | undefined> {
    return clientId === '' ? Promise.resolve(undefined) : this.store.findClient(clientId, this.clock.now());
  }

  /** Checks an authorization request's parameters (GET or the consent form's POST). */
  async check(params: URLSearchParams): Promise<AuthorizationRequest | AuthorizationRefusal> {
    const client = await this.findClient(params.get('client_id') ?? '');
    if (!client) {
      return {
        kind: 'page',
        status: 400,
        message:
          'This sign-in link names no client registered here, or a registration that was never used and has lapsed. Ask the client to sign in again.',
      };
    }
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!client.redirectUris.some((registered) => redirectMatches(registered, redirectUri))) {
      return { kind: 'page', status: 400, message: 'This sign-in link sends you to an address the client did not register.' };
    }
    const state = params.get('state') ?? undefined;
    const refuse = (error: string, description: string): AuthorizationRefusal => ({
      kind: 'redirect',
      to: redirectWith(redirectUri, { error, error_description: description, state, iss: this.settings.issuer }),
    });
    if (state !== undefined && state.length > MAX_STATE)
      return refuse('invalid_request', `state: at most ${MAX_STATE} characters`);
    if (params.get('response_type') !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
    if (params.get('code_challenge_method') !== 'S256') {
      return refuse('invalid_request', 'PKCE is required with code_challenge_method=S256 (plain is not accepted)');
    }
    const codeChallenge = params.get('code_challenge') ?? '';
    if (!CHALLENGE.test(codeChallenge)) return refuse('invalid_request', 'code_challenge: 43 base64url characters (S256)');
    const resource = params.get('resource') ?? this.resource;
    if (resource !== this.resource) return refuse('invalid_target', `resource must be ${this.resource}`);
    return { client, redirectUri, state, codeChallenge, resource };
  }

  /**
   * The person's consent with `keyText`, on the form whose one-time value hashes to `formSha256`:
   * a code for the client, sent to its redirect URI. One form makes at most one code.
   */
  async consent(request: AuthorizationRequest, keyText: string, formSha256: string): Promise<string> {
    const key = keyText.trim();
    if (!key.startsWith(TOKEN_PREFIX)) throw new ConsentError('Enter a naaba key (it starts with nb_).', 401, 'not_a_key');
    const decision = await authorize(`Bearer ${key}`, this.settings.region, this.keys);
    if (decision.effect === 'unauthorized')
      throw new ConsentError('This key is unknown or revoked.', 401, 'unknown_or_revoked_key');
    if (decision.effect === 'wrong_region') {
      throw new ConsentError(
        `This key belongs to region ${decision.keyRegion}; sign in at that region's endpoint.`,
        403,
        'wrong_region',
      );
    }
    const code = newToken(CODE_PREFIX);
    const saved = await this.store.saveCode(
      {
        region: this.settings.region,
        codeSha256: hashToken(code),
        clientId: request.client.clientId,
        userId: decision.principal.userId,
        agent: agentName(request.client.clientName),
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        resource: request.resource,
        expiresAt: later(this.clock.now(), OAUTH_LIMITS.codeSeconds),
        grantedBy: decision.principal.keyId,
      },
      formSha256,
      key,
    );
    if (!saved) {
      throw new ConsentError(
        'This consent form was already answered. Go back to the client, or start the sign-in again.',
        409,
        'form_reused',
      );
    }
    return redirectWith(request.redirectUri, { code, state: request.state, iss: this.settings.issuer });
  }

  /** The person declined: the client hears `access_denied`. */
  denied(request: AuthorizationRequest): string {
    return redirectWith(request.redirectUri, {
      error: 'access_denied',
      error_description: 'the person declined',
      state: request.state,
      iss: this.settings.issuer,
    });
  }

  /** The token endpoint (RFC 6749 §3.2): the authorization code and refresh token grants. */
  async token(params: URLSearchParams): Promise<TokenResponse> {
    const clientId = params.get('client_id') ?? '';
    if (!(await this.findClient(clientId))) throw new OAuthError('invalid_client', 'unknown client_id; register first', 401);
    const resource = params.get('resource');
    if (resource !== null && resource !== this.resource)
      throw new OAuthError('invalid_target', `resource must be ${this.resource}`);
    const grant = params.get('grant_type');
    if (grant === 'authorization_code') return this.exchange(params, clientId);
    if (grant === 'refresh_token') return this.refresh(params, clientId);
    throw new OAuthError('unsupported_grant_type', 'grant_type: authorization_code or refresh_token');
  }

  /**
   * Token revocation (RFC 7009): a token of the client's grant ends the whole grant, access and
   * refresh tokens alike. An unknown token is not an error (§2.2): the answer is the same either way.
   */
  async revoke(params: URLSearchParams): Promise<string | undefined> {
    const clientId = params.get('client_id') ?? '';
    if (!(await this.findClient(clientId))) throw new OAuthError('invalid_client', 'unknown client_id; register first', 401);
    const keyId = await this.store.grantOf(hashToken(params.get('token') ?? ''), clientId);
    if (keyId) await this.keys.revoke(keyId, this.clock.now());
    return keyId;
  }

  private async exchange(params: URLSearchParams, clientId: string): Promise<TokenResponse> {
    const now = this.clock.now();
    const codeSha256 = hashToken(params.get('code') ?? '');
    const found = await this.store.consumeCode(this.settings.region, codeSha256, now);
    if (!found) throw new OAuthError('invalid_grant', 'unknown authorization code');
    if ('reusedBy' in found) {
      // A code presented twice was intercepted: whatever it made is revoked (RFC 6749 §4.1.2).
      if (found.reusedBy) await this.keys.revoke(found.reusedBy, now);
      throw new OAuthError('invalid_grant', 'this authorization code was used before; the grant it made is revoked', 400, {
        name: 'code_replay',
        reason: 'code_used_twice',
        keyId: found.reusedBy ?? undefined,
        clientId,
      });
    }
    const { code } = found;
    const verifier = params.get('code_verifier') ?? '';
    if (code.clientId !== clientId) throw new OAuthError('invalid_grant', 'the code was issued to another client');
    if (code.redirectUri !== params.get('redirect_uri'))
      throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request');
    if (code.expiresAt <= now) throw new OAuthError('invalid_grant', 'the authorization code expired; sign in again');
    if (!VERIFIER.test(verifier) || !sameText(s256(verifier), code.codeChallenge)) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256)');
    }
    if (code.grantedBy === null) throw new OAuthError('invalid_grant', 'this code predates this version; sign in again');
    const { tokens, pair } = this.newTokens(now);
    const grant = {
      keyId: randomUUID(),
      name: code.agent,
      userId: code.userId,
      region: code.region,
      createdAt: now,
      revokedAt: null,
      clientId,
      grantedBy: code.grantedBy,
    };
    const made = await this.store.createGrant(grant, codeSha256, pair);
    if (!made.created) {
      throw new OAuthError('invalid_grant', 'the key given on the consent page was revoked since; sign in again with a live key');
    }
    return tokens;
  }

  private async refresh(params: URLSearchParams, clientId: string): Promise<TokenResponse> {
    const now = this.clock.now();
    const presented = params.get('refresh_token') ?? '';
    const { tokens, pair } = this.newTokens(now);
    const graceSince = later(now, -OAUTH_LIMITS.refreshGraceSeconds);
    const rotation = await this.store.rotate(hashToken(presented), clientId, now, graceSince, pair);
    if (rotation.outcome === 'rotated') return tokens;
    if (rotation.outcome === 'reused') {
      // A replaced refresh token came back after its grace: someone holds a copy, so the whole grant ends.
      await this.keys.revoke(rotation.keyId, now);
      throw new OAuthError('invalid_grant', 'this refresh token was already used; the grant is revoked, sign in again', 400, {
        name: 'refresh_reuse',
        reason: 'replaced_token_presented',
        keyId: rotation.keyId,
        clientId,
      });
    }
    throw new OAuthError('invalid_grant', 'unknown, expired or revoked refresh token');
  }

  private newTokens(now: Date): { tokens: TokenResponse; pair: TokenPair } {
    const access = newToken(ACCESS_PREFIX);
    const refresh = newToken(REFRESH_PREFIX);
    return {
      tokens: {
        access_token: access,
        token_type: 'Bearer',
        expires_in: OAUTH_LIMITS.accessSeconds,
        refresh_token: refresh,
        scope: SCOPE,
      },
      pair: {
        access: { sha256: hashToken(access), expiresAt: later(now, OAUTH_LIMITS.accessSeconds) },
        refresh: { sha256: hashToken(refresh), expiresAt: later(now, OAUTH_LIMITS.refreshSeconds) },
      },
    };
  }
}
