import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type AuthorizationDecision, authorize } from '../auth/authorize.js';
import { KnownKeys } from '../auth/known-keys.js';
import { securityEvent } from '../auth/security-events.js';
import { bearerToken, hashToken } from '../auth/token.js';
import { UnknownTokenCache } from '../auth/unknown-tokens.js';
import { usageBuckets, usageIdentifier } from '../auth/usage-identifier.js';
import { container } from '../composition.js';
import { environment } from '../config/env.js';
import { AuthorizerFailure, type AuthorizerResult, authorizerResult, type TokenAuthorizerEvent } from '../http/api-gateway.js';
import { count, loggable, logger, observed } from '../observability.js';
import type { KeyStore } from '../ports/key-store.js';

/** Time kept back from Lambda's own timeout, so a hung database still ends in a counted, logged failure. */
const DEADLINE_MARGIN_MS = 1_000;

/** The stack's usage buckets, which throttle each key on its own (decision 0070); none outside AWS. */
const buckets = usageBuckets(environment());

/** One cache of refused token hashes per key store, that is per container (decision 0052). */
const unknownTokens = new WeakMap<KeyStore, UnknownTokenCache>();

/** Key stores whose live key hashes this process holds: the local server's (decision 0106); never in AWS. */
const knownKeys = new WeakMap<KeyStore, KnownKeys>();

/** Has this process hold the live key hashes of `keys`, so that the authorizer refuses a key they prove absent without a read. */
export function holdKnownKeys(keys: KeyStore): KnownKeys {
  const known = knownKeys.get(keys) ?? new KnownKeys(() => keys.liveKeyHashes());
  knownKeys.set(keys, known);
  return known;
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const timeout = Object.assign(new Error('key lookup timed out'), { name: 'TimeoutError' });
    timer = setTimeout(() => reject(timeout), Math.max(ms, 0));
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The decision, or an {@link AuthorizerFailure} when the key store cannot be read: never a 401 for a database that is down. */
async function decide(event: TokenAuthorizerEvent, context: Context): Promise<AuthorizationDecision> {
  try {
    const runtime = container();
    const lookup = async () => {
      const keys = await runtime.keyStore();
      if (!unknownTokens.has(keys)) unknownTokens.set(keys, new UnknownTokenCache(runtime.clock));
      const [unknown, known] = [unknownTokens.get(keys), knownKeys.get(keys)];
      return authorize(event.authorizationToken, runtime.config.region, keys, unknown, runtime.clock.now(), known);
    };
    return await withDeadline(lookup(), context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS);
  } catch (error) {
    logger.error('authorizer failure: the key store could not be read', { error: loggable(error) });
    count('authorizer_failure');
    throw new AuthorizerFailure();
  }
}

/**
 * The TOKEN authorizer: hashes the bearer token, finds the key, and passes {user, region, agent}
 * on; denies other regions' keys (403) and refuses everything else (401). Logs the decision only.
 */
async function handleAuthorize(event: TokenAuthorizerEvent, context: Context): Promise<AuthorizerResult> {
  const decision = await decide(event, context);
  logger.info('authorization', {
    effect: decision.effect,
    ...(decision.effect === 'allow' ? { userId: decision.principal.userId, keyId: decision.principal.keyId } : {}),
  });
  count(`authorization_${decision.effect}`);
  // A TOKEN authorizer sees no client address: API Gateway (WAF) bounds floods per address in AWS.
  if (decision.effect === 'unauthorized') {
    // The refused token's hash tells one stale client from a flood; it stays in memory (decision 0133).
    const token = bearerToken(event.authorizationToken);
    const source = token ? hashToken(token) : 'malformed';
    const now = container().clock.now();
    if (securityEvent('auth_failed', { reason: 'unknown_malformed_or_revoked_token' }, now, source)) {
      count('authorization_unauthorized_source');
    }
  }
  const result = authorizerResult(decision, event.methodArn);
  if (decision.effect !== 'allow' || !buckets) return result;
  return { ...result, usageIdentifierKey: usageIdentifier(decision.principal.keyId, buckets) };
}

export const handler = middy(handleAuthorize).use(observed());
