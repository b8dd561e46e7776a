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

export interface OAuthStore {
  /** Stores the client unless `limit` clients were registered since `since`; resolves false then. */
  registerClient(client: OAuthClient, window: { readonly since: Date; readonly limit: number }): Promise<boolean>;
  findClient(clientId: string): Promise<OAuthClient | undefined>;
  saveCode(code: AuthorizationCode): Promise<void>;
  /**
   * Marks the code used and returns it, or says it was used before (with the grant it made, if
   * any) or is unknown. Only one caller ever gets the code back.
   */
  consumeCode(
    region: string,
    codeSha256: string,
    at: Date,
  ): Promise<{ readonly code: AuthorizationCode } | { readonly reusedBy: string | null } | undefined>;
  /** The grant (a key without a token) and its first tokens, linked to the code that made it: one statement. */
  createGrant(grant: ApiKey & { readonly clientId: string }, codeSha256: string, tokens: TokenPair): Promise<void>;
  /** Replaces a live refresh token of a live grant of `clientId` by `tokens`: one statement. */
  rotate(refreshSha256: string, clientId: string, at: Date, tokens: TokenPair): Promise<Rotation>;
  /** The grant a token (access or refresh) of `clientId` belongs to, for revocation (RFC 7009). */
  grantOf(tokenSha256: string, clientId: string): Promise<string | undefined>;
  /** Deletes up to `batch` codes and `batch` tokens that expired before `before`; returns how many rows went. */
  deleteExpired(before: Date, batch: number): Promise<number>;
}
