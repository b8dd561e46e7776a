import { StoreBusyError } from '../../memory/errors.js';

export interface RetryPolicy {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attempts: 6, baseDelayMs: 10, maxDelayMs: 400 };

/** SQLSTATEs after which the whole statement may run again: serialization failure and deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);

export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one atomic statement, retrying serialization failures with jittered exponential backoff.
 * Each attempt is a whole statement, so a failed attempt wrote nothing and a retry cannot write twice.
 */
export async function withRetry<T>(run: () => Promise<T>, policy: RetryPolicy = defaultRetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (!isRetryable(error)) throw error;
      if (attempt >= policy.attempts) throw new StoreBusyError(attempt, { cause: error });
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.random() * ceiling);
    }
  }
}
