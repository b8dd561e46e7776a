import type { ApiKey, KeyStore, NewApiKey } from '../../ports/key-store.js';
import type {
  AuthorizationCode,
  GrantCreation,
  OAuthClient,
  OAuthStore,
  Rotation,
  TokenPair,
  WindowCount,
} from '../../ports/oauth-store.js';

interface StoredKey extends ApiKey {
  readonly tokenSha256: string | null;
}

interface StoredCode extends AuthorizationCode {
  readonly formSha256: string;
  usedAt: Date | null;
  keyId: string | null;
}

interface StoredToken {
  readonly sha256: string;
  readonly keyId: string;
  readonly kind: 'access' | 'refresh';
  expiresAt: Date;
  readonly parent: string | null;
  replacedAt: Date | null;
}

/** Keys, OAuth clients, codes, tokens and request windows: what `api_keys` and the `oauth_*` tables hold. */
export class KeyState {
  readonly keys = new Map<string, StoredKey>();
  readonly clients = new Map<string, OAuthClient>();
  readonly codes = new Map<string, StoredCode>();
  readonly tokens = new Map<string, StoredToken>();
  readonly windows = new Map<string, WindowCount>();

  clear(): void {
    for (const table of [this.keys, this.clients, this.codes, this.tokens, this.windows]) table.clear();
  }
}

const asKey = ({ tokenSha256: _hash, ...key }: StoredKey): ApiKey => key;

/** API keys in memory, as `api_keys` holds them: the token's hash is only ever compared. */
export class InMemoryKeyStore implements KeyStore {
  constructor(
    private readonly state: KeyState,
    /** A multi-region database's regions, where keys may live; absent: any name will do, as on PostgreSQL. */
    private readonly databaseRegions?: readonly string[],
  ) {}

  async findByHash(tokenSha256: string): Promise<ApiKey | undefined> {
    const key = [...this.state.keys.values()].find((k) => k.tokenSha256 === tokenSha256);
    return key ? asKey(key) : undefined;
  }

  async findByAccessToken(tokenSha256: string, now: Date): Promise<ApiKey | undefined> {
    const token = this.state.tokens.get(tokenSha256);
    if (token?.kind !== 'access' || token.expiresAt <= now) return undefined;
    const key = this.state.keys.get(token.keyId);
    return key ? asKey(key) : undefined;
  }

  async insert(key: NewApiKey): Promise<void> {
    if (this.state.keys.has(key.keyId)) throw new Error('a key of this id exists');
    this.state.keys.set(key.keyId, { ...key, revokedAt: null, clientId: null, grantedBy: null });
  }

  async revoke(keyId: string, at: Date): Promise<boolean> {
    const id = keyId.toLowerCase();
    let found = false;
    for (const [kid, key] of this.state.keys) {
      if (kid === id) {
        found = true;
        this.state.keys.set(kid, { ...key, revokedAt: key.revokedAt ?? at });
      } else if (key.grantedBy === id && key.revokedAt === null) {
        this.state.keys.set(kid, { ...key, revokedAt: at });
      }
    }
    return found;
  }

  async list(): Promise<ApiKey[]> {
    return [...this.state.keys.values()]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.keyId < b.keyId ? -1 : 1))
      .map((k) => ({ ...asKey(k), clientName: k.clientId ? (this.state.clients.get(k.clientId)?.clientName ?? null) : null }));
  }

  async liveKeyHashes(): Promise<string[]> {
    return [...this.state.keys.values()].flatMap((k) => (k.revokedAt === null && k.tokenSha256 ? [k.tokenSha256] : []));
  }

  async userExists(userId: string, region: string): Promise<boolean> {
    return [...this.state.keys.values()].some((k) => k.userId === userId.toLowerCase() && k.region === region);
  }

  async regions(): Promise<string[] | undefined> {
    return this.databaseRegions ? [...this.databaseRegions] : undefined;
  }
}

/** OAuth sign-in in memory: single-use codes and refresh rotation, as the SQL statements keep them. */
export class InMemoryOAuthStore implements OAuthStore {
  constructor(
    private readonly state: KeyState,
    private readonly region: string,
  ) {}

  async registerClient(client: OAuthClient): Promise<void> {
    if (this.state.clients.has(client.clientId)) throw new Error('a client of this id exists');
    this.state.clients.set(client.clientId, { ...client, redirectUris: [...client.redirectUris] });
  }

  async lapseUnusedClients(clientIds: readonly string[], at: Date): Promise<number> {
    let ended = 0;
    for (const id of new Set(clientIds)) {
      const client = this.state.clients.get(id);
      if (!client || client.expiresAt === null || client.expiresAt <= at) continue;
      this.state.clients.set(id, { ...client, expiresAt: at });
      ended += 1;
    }
    return ended;
  }

  async findClient(clientId: string, at: Date): Promise<OAuthClient | undefined> {
    const client = this.state.clients.get(clientId);
    return client && (client.expiresAt === null || client.expiresAt > at) ? client : undefined;
  }

  async saveCode(code: AuthorizationCode, formSha256: string): Promise<boolean> {
    const twin = [...this.state.codes.values()].some((c) => c.region === code.region && c.formSha256 === formSha256);
    if (twin) return false;
    this.state.codes.set(`${code.region}|${code.codeSha256}`, { ...code, formSha256, usedAt: null, keyId: null });
    return true;
  }

  async consumeCode(region: string, codeSha256: string, at: Date) {
    const code = this.state.codes.get(`${region}|${codeSha256}`);
    if (!code) return undefined;
    if (code.usedAt !== null) return { reusedBy: code.keyId };
    code.usedAt = at;
    const { formSha256: _form, usedAt: _used, keyId: _key, ...consumed } = code;
    return { code: consumed };
  }

  async createGrant(
    grant: ApiKey & { clientId: string; grantedBy: string },
    codeSha256: string,
    tokens: TokenPair,
  ): Promise<GrantCreation> {
    const granting = this.state.keys.get(grant.grantedBy);
    if (!granting || granting.revokedAt !== null || granting.clientId !== null) return { created: false, replaced: 0 };
    let replaced = 0;
    for (const [id, key] of this.state.keys) {
      if (key.grantedBy === grant.grantedBy && key.clientId === grant.clientId && key.revokedAt === null) {
        this.state.keys.set(id, { ...key, revokedAt: grant.createdAt });
        replaced += 1;
      }
    }
    this.state.keys.set(grant.keyId, { ...grant, revokedAt: null, tokenSha256: null });
    const token = (sha256: string, kind: 'access' | 'refresh', expiresAt: Date): StoredToken => ({
      sha256,
      keyId: grant.keyId,
      kind,
      expiresAt,
      parent: null,
      replacedAt: null,
    });
    this.state.tokens.set(tokens.access.sha256, token(tokens.access.sha256, 'access', tokens.access.expiresAt));
    this.state.tokens.set(tokens.refresh.sha256, token(tokens.refresh.sha256, 'refresh', tokens.refresh.expiresAt));
    const code = this.state.codes.get(`${grant.region}|${codeSha256}`);
    if (code) code.keyId = grant.keyId;
    const client = this.state.clients.get(grant.clientId);
    if (client?.expiresAt) this.state.clients.set(grant.clientId, { ...client, expiresAt: null });
    return { created: true, replaced };
  }

  async rotate(refreshSha256: string, clientId: string, at: Date, graceSince: Date, tokens: TokenPair): Promise<Rotation> {
    const presented = this.state.tokens.get(refreshSha256);
    const grant = presented ? this.state.keys.get(presented.keyId) : undefined;
    const usable =
      presented?.kind === 'refresh' &&
      presented.expiresAt > at &&
      (presented.replacedAt === null || presented.replacedAt > graceSince) &&
      grant?.clientId === clientId &&
      grant.revokedAt === null;
    if (!presented || !usable) {
      return presented?.kind === 'refresh' && presented.replacedAt !== null
        ? { outcome: 'reused', keyId: presented.keyId }
        : { outcome: 'refused' };
    }
    if (presented.replacedAt === null) presented.replacedAt = at;
    // Using a token ends its parent and its unreplaced siblings.
    for (const t of this.state.tokens.values()) {
      const family =
        t.sha256 === presented.parent || (t.replacedAt === null && presented.parent !== null && t.parent === presented.parent);
      if (t.kind === 'refresh' && t.expiresAt > at && t.sha256 !== refreshSha256 && family) t.expiresAt = at;
    }
    const child = (sha256: string, kind: 'access' | 'refresh', expiresAt: Date): StoredToken => ({
      sha256,
      keyId: presented.keyId,
      kind,
      expiresAt,
      parent: refreshSha256,
      replacedAt: null,
    });
    this.state.tokens.set(tokens.access.sha256, child(tokens.access.sha256, 'access', tokens.access.expiresAt));
    this.state.tokens.set(tokens.refresh.sha256, child(tokens.refresh.sha256, 'refresh', tokens.refresh.expiresAt));
    return { outcome: 'rotated' };
  }

  async grantOf(tokenSha256: string, clientId: string): Promise<string | undefined> {
    const token = this.state.tokens.get(tokenSha256);
    return token && this.state.keys.get(token.keyId)?.clientId === clientId ? token.keyId : undefined;
  }

  async countRequest(route: string, address: string, at: Date, windowSince: Date): Promise<WindowCount> {
    const key = `${this.region}|${address}|${route}`;
    const open = this.state.windows.get(key);
    const next = !open || open.windowStart <= windowSince ? { hits: 1, windowStart: at } : { ...open, hits: open.hits + 1 };
    this.state.windows.set(key, next);
    return next;
  }

  async deleteExpired(before: Date, batch: number): Promise<number> {
    const take = <T>(table: Map<string, T>, old: (value: T, key: string) => boolean) => {
      const gone = [...table].filter(([key, value]) => old(value, key)).slice(0, batch);
      for (const [key] of gone) table.delete(key);
      return gone.length;
    };
    return (
      take(this.state.codes, (c) => c.region === this.region && c.expiresAt < before) +
      take(this.state.tokens, (t) => t.expiresAt < before) +
      take(this.state.clients, (c) => c.expiresAt !== null && c.expiresAt < before) +
      take(this.state.windows, (w, key) => key.startsWith(`${this.region}|`) && w.windowStart < before)
    );
  }
}
