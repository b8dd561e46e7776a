import type { ApiKey } from './key-store.js';

/**
 * Persistence of OAuth sign-in (docs/decisions/0054): registered clients, single-use codes and
 * the tokens of grants. A grant is a key (an `api_keys` row with its client and no token of its
 * own), so revoking it is revoking a key. Codes and tokens are kept as SHA-256 only.
 */

/** A dynamically registered public client (RFC 7591). */
export interface OAuthClient {
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectUris: readonly string[];
  readonly createdAt: Date;
  /** When the registration lapses if no grant has used it; null once one has (decision 0064). */
  readonly expiresAt: Date | null;
}

/** What a person consented to: redeemed once, within a minute, by the client that asked. */
export interface AuthorizationCode {
  readonly region: string;
  readonly codeSha256: string;
  readonly clientId: string;
  readonly userId: string;
  /** The agent name the grant will carry in provenance: the client's name. */
  readonly agent: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly resource: string;
  readonly expiresAt: Date;
  /** The key the person typed on the consent page: the grant is made with it and ends with it. */
  readonly grantedBy: string | null;
}

export interface TokenHash {
  readonly sha256: string;
  readonly expiresAt: Date;
}

/** The hashes of a new access token and of the refresh token that replaces the one presented. */
export interface TokenPair {
  readonly access: TokenHash;
  readonly refresh: TokenHash;
}

/** How a refresh token fared: replaced by a new pair, presented again after it was replaced, or not usable. */
export type Rotation =
  | { readonly outcome: 'rotated' }
  | { readonly outcome: 'reused'; readonly keyId: string }
  | { readonly outcome: 'refused' };

/** What the grant's creation did: nothing when the key typed at consent was revoked meanwhile. */
export interface GrantCreation {
  readonly created: boolean;
  /** Earlier live grants of the same client made with the same key, now revoked. */
  readonly replaced: number;
}

/** One request counted against a per-address limit: the window it fell in and the requests counted there. */
export interface WindowCount {
  readonly hits: number;
  readonly windowStart: Date;
}

export interface OAuthStore {
  registerClient(client: OAuthClient): Promise<void>;
  /** Ends these registrations at `at` where no grant has used them and they have not lapsed; resolves how many it ended. */
  lapseUnusedClients(clientIds: readonly string[], at: Date): Promise<number>;
  /** The client, unless unknown or an unused registration that lapsed before `at`. */
  findClient(clientId: string, at: Date): Promise<OAuthClient | undefined>;
  /**
   * Stores a code made by the consent form whose one-time value hashes to `formSha256`; resolves
   * false, storing nothing, when that form already made one. `consentKey` is the key as typed: a
   * store may prove the code's key with it rather than trust `code.grantedBy` (decision 0130).
   */
  saveCode(code: AuthorizationCode, formSha256: string, consentKey: string): Promise<boolean>;
  /**
   * Marks the code used and returns it, or says it was used before (with the grant it made, if
   * any) or is unknown. Only one caller ever gets the code back.
   */
  consumeCode(
    region: string,
    codeSha256: string,
    at: Date,
  ): Promise<{ readonly code: AuthorizationCode } | { readonly reusedBy: string | null } | undefined>;
  /**
   * The grant (a key without a token) and its first tokens, linked to the code that made it, in
   * one statement: only while the key it is made with (`grant.grantedBy`) is live, and revoking
   * the earlier live grants of the same client made with the same key.
   */
  createGrant(
    grant: ApiKey & { readonly clientId: string; readonly grantedBy: string },
    codeSha256: string,
    tokens: TokenPair,
  ): Promise<GrantCreation>;
  /**
   * Replaces a live refresh token of a live grant of `clientId` by `tokens`, in one statement. A
   * token replaced after `graceSince` whose replacement nobody has used yet is replaced again
   * (concurrent or retried refreshes); using a replacement ends its parent and its siblings.
   */
  rotate(refreshSha256: string, clientId: string, at: Date, graceSince: Date, tokens: TokenPair): Promise<Rotation>;
  /** The grant a token (access or refresh) of `clientId` belongs to, for revocation (RFC 7009). */
  grantOf(tokenSha256: string, clientId: string): Promise<string | undefined>;
  /**
   * Counts one request of `address` to `route` in this region: in the current window, or in a new
   * one starting `at` when the last began at or before `windowSince`. One statement, exact under
   * concurrency.
   */
  countRequest(route: string, address: string, at: Date, windowSince: Date): Promise<WindowCount>;
  /**
   * Deletes up to `batch` rows of each kind that ended before `before`: codes, tokens, lapsed
   * registrations and request windows; returns how many rows went.
   */
  deleteExpired(before: Date, batch: number): Promise<number>;
}
