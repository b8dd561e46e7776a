import type { Principal } from '../memory/model.js';
import type { KeyStore } from '../ports/key-store.js';
import { bearerToken, hashToken, isAccessToken } from './token.js';
import type { KnownKeys } from './known-keys.js';
import type { UnknownTokenCache } from './unknown-tokens.js';

/** What the authorizer decides: a principal, a 403 for a key of another region, or a 401. */
export type AuthorizationDecision =
  | { readonly effect: 'allow'; readonly principal: Principal }
  | { readonly effect: 'wrong_region'; readonly keyRegion: string }
  | { readonly effect: 'unauthorized' };

/**
 * Resolves a bearer token to a principal. The token is hashed and looked up; nothing here
 * logs or returns the token or its hash. With `unknown`, a hash refused in the last few seconds
 * is refused again without a read; a failed read is never taken for a refusal. An OAuth access
 * token resolves to its grant, which is a key: the same principal, the same region rule. With
 * `known` (the local server's live key hashes), a key token they prove absent is refused without a
 * read of its own.
 */
export async function authorize(
  authorization: string | undefined,
  endpointRegion: string,
  keys: KeyStore,
  unknown?: UnknownTokenCache,
  now: Date = new Date(),
  known?: KnownKeys,
): Promise<AuthorizationDecision> {
  const token = bearerToken(authorization);
  if (!token) return { effect: 'unauthorized' };
  const hash = hashToken(token);
  if (unknown?.has(hash)) return { effect: 'unauthorized' };
  if (known && !isAccessToken(token) && !(await known.mayExist(hash))) return { effect: 'unauthorized' };
  const key = isAccessToken(token) ? await keys.findByAccessToken(hash, now) : await keys.findByHash(hash);
  if (!key || key.revokedAt !== null) {
    unknown?.add(hash);
    return { effect: 'unauthorized' };
  }
  if (key.region !== endpointRegion) return { effect: 'wrong_region', keyRegion: key.region };
  return { effect: 'allow', principal: { userId: key.userId, region: key.region, agent: key.name, keyId: key.keyId } };
}
