import { StoreBusyError } from '../../memory/errors.js';

/**
 * How hard a statement is retried after a serialization failure. Bounded twice: by attempts and
 * by wall-clock budget, so that a hot row can never hold a request past API Gateway's 29 s.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** No new attempt starts after this long since the first one. */
  readonly budgetMs: number;
}

/**
 * Six attempts, full-jitter backoff 10 → 400 ms (at most ~0.3 s of sleeping in all), within
 * 3 s: enough for ordinary contention on one user's rows (docs/decisions/0032-retries-and-pool.md).
 */
export const defaultRetryPolicy: RetryPolicy = { attempts: 6, baseDelayMs: 10, maxDelayMs: 400, budgetMs: 3_000 };

/**
 * SQLSTATEs after which the whole statement may run again: serialization failure (CockroachDB's
 * "restart transaction" included), deadlock, and a lock not granted in time (a ceiling write's
 * first attempt gives up on a held row and queues, decision 0056): each rolled back everything.
 * Not 40003 (statement completion unknown): the statement may have committed, and running it
 * again could write twice.
 */
const RETRYABLE = new Set(['40001', '40P01', '55P03']);

export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/** Time and chance, replaceable in tests. */
export interface RetryEnvironment {
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly random: () => number;
}

const realEnvironment: RetryEnvironment = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
  random: () => Math.random(),
};

/**
 * Runs one atomic statement, retrying serialization failures with full-jitter exponential
 * backoff. Each attempt is a whole single-statement transaction: a failed attempt committed
 * nothing, so a retry cannot write twice. Past the bound, a StoreBusyError (retryable by the
 * caller, nothing changed) keeps the last failure as its cause.
 */
export async function withRetry<T>(
  run: () => Promise<T>,
  policy: RetryPolicy = defaultRetryPolicy,
  env: RetryEnvironment = realEnvironment,
): Promise<T> {
  const started = env.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const delay = env.random() * ceiling;
      if (attempt >= policy.attempts || env.now() - started + delay > policy.budgetMs) {
        throw new StoreBusyError(attempt, { cause: error });
      }
      await env.sleep(delay);
    }
  }
}
