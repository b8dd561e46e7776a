import { count, logger, loggable } from '../observability.js';

/**
 * The function could not build what a request needs from the database — the secret, the
 * connection, the schema check — typically a cold container while the database is unreachable.
 * The request is answered 503 with Retry-After, counted `store_unavailable` and logged, instead of
 * failing the invocation (which API Gateway turns into a bare 502).
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';

  constructor(cause: unknown) {
    super('the database could not be reached', { cause });
  }
}

/** `build`, with any failure turned into a {@link StoreUnavailableError}. */
export const reachable =
  <T>(build: () => Promise<T>) =>
  (): Promise<T> =>
    build().catch((cause: unknown) => {
      throw new StoreUnavailableError(cause);
    });

/**
 * Driver codes of a database that cannot be reached or would not take the session: the socket's,
 * SQLSTATE classes 08 (connection) and 57P (shutdown), 53300 (too many connections), 28P01 and
 * 28000 (the login refused) — the set a request's outage watch uses (adapters/pg/outage-watch.ts).
 */
const UNREACHABLE =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|08...|57P0[1-3]|53300|28P01|28000)$/;

/**
 * Whether `error`, or an error it was caused by, says the database could not be reached (rather
 * than that a statement or the code is wrong).
 */
export function isUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth += 1) {
    if (e instanceof StoreUnavailableError) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.test(code)) return true;
  }
  return false;
}

/** Seconds a client is told to wait: a restart or failover of the database takes a few. */
export const STORE_RETRY_SECONDS = 5;

const MESSAGE = 'the endpoint cannot reach its database right now; retry in a few seconds';

/**
 * The answer to a request whose database could not be reached: 503 with Retry-After, counted and
 * logged (the cause by name and code only). OAuth routes answer in OAuth's terms.
 */
export function storeUnavailable(error: unknown, shape: 'message' | 'oauth' = 'message'): Response {
  count('store_unavailable');
  logger.error('store unavailable: answered 503', {
    error: loggable(error instanceof StoreUnavailableError ? error.cause : error),
  });
  const body = shape === 'oauth' ? { error: 'temporarily_unavailable', error_description: MESSAGE } : { message: MESSAGE };
  return new Response(JSON.stringify(body), {
    status: 503,
    headers: { 'content-type': 'application/json', 'retry-after': String(STORE_RETRY_SECONDS), 'cache-control': 'no-store' },
  });
}
