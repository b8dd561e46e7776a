/** An API key as stored: the token itself is never kept, only its SHA-256. */
export interface ApiKey {
  readonly keyId: string;
  readonly name: string;
  readonly userId: string;
  readonly region: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

export interface NewApiKey extends ApiKey {
  readonly tokenSha256: string;
}

/** Persistence of API keys, looked up by token hash. */
export interface KeyStore {
  findByHash(tokenSha256: string): Promise<ApiKey | undefined>;
  insert(key: NewApiKey): Promise<void>;
  /** Marks the key revoked; resolves false when no such key exists. */
  revoke(keyId: string, at: Date): Promise<boolean>;
  list(): Promise<ApiKey[]>;
  /** True when at least one key of this user exists in the region. */
  userExists(userId: string, region: string): Promise<boolean>;
  /** The regions rows may live in (a multi-region database's), or undefined when any name will do. */
  regions(): Promise<string[] | undefined>;
}
