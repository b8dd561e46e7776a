import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { authorize } from '../auth/authorize.js';
import { container } from '../composition.js';
import { type AuthorizerResult, authorizerResult, type TokenAuthorizerEvent } from '../http/api-gateway.js';
import { count, logger, observed } from '../observability.js';

/**
 * The TOKEN authorizer: hashes the bearer token, finds the key, and passes {user, region, agent}
 * on; denies other regions' keys (403) and refuses everything else (401). Logs the decision only.
 */
async function handleAuthorize(event: TokenAuthorizerEvent, _context: Context): Promise<AuthorizerResult> {
  const runtime = container();
  const decision = await authorize(event.authorizationToken, runtime.config.region, await runtime.keyStore());
  logger.info('authorization', {
    effect: decision.effect,
    ...(decision.effect === 'allow' ? { userId: decision.principal.userId, keyId: decision.principal.keyId } : {}),
  });
  count(`authorization_${decision.effect}`);
  return authorizerResult(decision, event.methodArn);
}

export const handler = middy(handleAuthorize).use(observed());
