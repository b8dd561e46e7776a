/** An API key as stored: the token itself is never kept, only its SHA-256. */
export interface ApiKey {
  readonly keyId: string;
  readonly name: string;
  readonly userId: string;
  readonly region: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  /** The OAuth client holding this key when it is a grant (docs/decisions/0054); null for a key issued by the CLI. */
  readonly clientId: string | null;
  /** The client's registered name, where the listing has it (`naaba list-keys`). */
  readonly clientName?: string | null;
  /** A grant's: the key typed on the consent page, whose revocation ends the grant (decision 0067). */
  readonly grantedBy?: string | null;
}

export interface NewApiKey extends ApiKey {
  readonly tokenSha256: string;
}

/** Persistence of API keys, looked up by token hash. */
export interface KeyStore {
  findByHash(tokenSha256: string): Promise<ApiKey | undefined>;
  /** The grant an OAuth access token belongs to, while the token has not expired at `now`. */
  findByAccessToken(tokenSha256: string, now: Date): Promise<ApiKey | undefined>;
  insert(key: NewApiKey): Promise<void>;
  /** Marks the key revoked, and every grant made with it; resolves false when no such key exists. */
  revoke(keyId: string, at: Date): Promise<boolean>;
  list(): Promise<ApiKey[]>;
  /** The token hashes of every key not revoked: the local server's proof that a token names no key (decision 0106). */
  liveKeyHashes(): Promise<string[]>;
  /** True when at least one key of this user exists in the region. */
  userExists(userId: string, region: string): Promise<boolean>;
  /** The regions rows may live in (a multi-region database's), or undefined when any name will do. */
  regions(): Promise<string[] | undefined>;
}
