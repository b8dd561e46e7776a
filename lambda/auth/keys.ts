import { randomUUID } from 'node:crypto';
import { UUID_PATTERN } from '../memory/ids.js';
import type { Clock } from '../ports/clock.js';
import type { ApiKey, KeyStore } from '../ports/key-store.js';
import { hashToken, newToken } from './token.js';

export class KeyError extends Error {
  override name = 'KeyError';
}

export interface IssuedKey {
  /** Shown once; only its SHA-256 is stored. */
  readonly token: string;
  readonly keyId: string;
  readonly userId: string;
  readonly region: string;
  readonly name: string;
}

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._@/-]{0,63}$/;
const REGION_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Issues, revokes and lists API keys. A lost key is revoked, never recovered. */
export class KeyService {
  constructor(
    private readonly store: KeyStore,
    private readonly clock: Clock,
  ) {}

  /** A new key for a new user, or for an existing user of the same region (another agent). */
  async issue(name: string, region: string, userId?: string): Promise<IssuedKey> {
    if (!NAME_PATTERN.test(name)) {
      throw new KeyError('key name: 1-64 characters, letters, digits, space and ._@/- (starting with a letter or digit)');
    }
    if (!REGION_PATTERN.test(region)) throw new KeyError(`region "${region}": lowercase letters, digits and dashes`);
    const regions = await this.store.regions();
    if (regions && !regions.includes(region)) {
      throw new KeyError(`region "${region}" is not a region of the database; its regions are: ${regions.join(', ')}`);
    }
    if (userId !== undefined) {
      if (!UUID_PATTERN.test(userId)) throw new KeyError(`user "${userId}" is not a UUID`);
      if (!(await this.store.userExists(userId, region))) {
        throw new KeyError(`no key of user ${userId} exists in region ${region}`);
      }
    }
    const token = newToken();
    const key = {
      keyId: randomUUID(),
      name,
      userId: userId?.toLowerCase() ?? randomUUID(),
      region,
      createdAt: this.clock.now(),
      revokedAt: null,
      clientId: null,
    };
    await this.store.insert({ ...key, tokenSha256: hashToken(token) });
    return { token, keyId: key.keyId, userId: key.userId, region, name };
  }

  async revoke(keyId: string): Promise<void> {
    if (!UUID_PATTERN.test(keyId)) throw new KeyError(`key id "${keyId}" is not a UUID (see naaba list-keys)`);
    if (!(await this.store.revoke(keyId, this.clock.now()))) throw new KeyError(`no key with id ${keyId}`);
  }

  list(): Promise<ApiKey[]> {
    return this.store.list();
  }
}
