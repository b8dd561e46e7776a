/**
 * One remote provider call with the bounds DESIGN §10 asks for: every attempt is aborted at a
 * timeout, throttling and server errors are retried with full-jitter backoff, and the retries are
 * bounded both in number and in total time. Shared by the Bedrock and OpenAI-compatible adapters.
 */

import { EmbedderError } from '../memory/errors.js';

/** How hard to try. `timeoutMs` bounds one attempt; `budgetMs` bounds all attempts and waits together. */
export interface CallPolicy {
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  readonly budgetMs: number;
  /** First backoff ceiling; doubles per retry up to `backoffCapMs`. */
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
}

/** Time and chance, injected so that the retry bounds are provable without waiting. */
export interface CallTools {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

/** The wall clock, real waits and Math.random: what production runs with. */
export const realCallTools: CallTools = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** Why a call failed, in words safe to show anyone: never the request content, a key or a token. */
export type FailureReason = 'timeout' | 'throttled' | 'server' | 'network' | 'rejected' | 'credentials' | 'malformed';

/** What an adapter makes of one failed attempt. `code` is a provider error name or HTTP status; `detail` the provider's own words. */
export interface Classified {
  readonly reason: FailureReason;
  readonly retryable: boolean;
  readonly code?: string;
  readonly detail?: string;
}

const REASON_TEXT: Record<FailureReason, string> = {
  timeout: 'timed out',
  throttled: 'was throttled',
  server: 'failed on the provider side',
  network: 'could not reach the provider',
  rejected: 'was rejected',
  credentials: 'found no usable credentials',
  malformed: 'answered out of contract',
};

/**
 * A provider call that failed for good. The message names the call, the reason, the provider's
 * error code and the attempts; the provider's own text stays in `detail` (for `naaba check --probe`).
 */
export class ProviderCallError extends Error {
  override name = 'ProviderCallError';
  readonly reason: FailureReason;
  readonly retryable: boolean;
  readonly attempts: number;
  readonly detail: string | undefined;

  constructor(call: string, failure: Classified, attempts: number, options?: ErrorOptions) {
    const code = failure.code ? ` (${failure.code})` : '';
    super(`${call} ${REASON_TEXT[failure.reason]}${code} after ${attempts} attempt${attempts === 1 ? '' : 's'}`, options);
    this.reason = failure.reason;
    this.retryable = failure.retryable || failure.reason === 'timeout';
    this.attempts = attempts;
    this.detail = failure.detail;
  }
}

class AttemptTimeout extends Error {
  override name = 'AttemptTimeout';
}

/** Runs one attempt under an abort signal that fires at `ms`; the race guarantees the bound even if the client ignores the signal. */
async function attemptWithin<T>(ms: number, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new AttemptTimeout(`no answer within ${ms} ms`));
      controller.abort();
    }, ms);
  });
  try {
    return await Promise.race([attempt(controller.signal), expired]);
  } catch (error) {
    // Whatever the client made of our abort (AbortError, a closed stream), it was the timeout.
    if (controller.signal.aborted) throw new AttemptTimeout(`no answer within ${ms} ms`, { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Full jitter: a random wait below an exponentially growing, capped ceiling. */
function backoff(policy: CallPolicy, retry: number, random: () => number): number {
  const ceiling = Math.min(policy.backoffCapMs ?? 2000, (policy.backoffBaseMs ?? 200) * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Calls `attempt` until it succeeds, a failure is not retryable, the attempts run out or the
 * budget would be overrun. A timed-out attempt is not retried: it has already spent its share.
 */
export async function callWithRetry<T>(
  call: string,
  policy: CallPolicy,
  attempt: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown) => Classified,
  tools: CallTools = realCallTools,
): Promise<T> {
  const deadline = tools.now() + policy.budgetMs;
  let last: { failure: Classified; error: unknown } | undefined;
  let made = 0;
  while (made < policy.maxAttempts) {
    const remaining = deadline - tools.now();
    if (remaining <= 0) break;
    made += 1;
    try {
      return await attemptWithin(Math.min(policy.timeoutMs, remaining), attempt);
    } catch (error) {
      const failure: Classified =
        error instanceof AttemptTimeout ? { reason: 'timeout', retryable: false, code: error.message } : classify(error);
      if (!failure.retryable) throw new ProviderCallError(call, failure, made, { cause: error });
      last = { failure, error };
    }
    if (made >= policy.maxAttempts) break;
    const wait = backoff(policy, made, tools.random);
    if (tools.now() + wait >= deadline) break;
    await tools.sleep(wait);
  }
  if (!last) throw new ProviderCallError(call, { reason: 'timeout', retryable: true, code: 'no time left in the budget' }, made);
  throw new ProviderCallError(call, last.failure, made, { cause: last.error });
}

/** Removes anything shaped like a secret from a provider's message, and bounds its length. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  out = out.replace(/\b(sk|nb|key|token)[-_][A-Za-z0-9*_-]{6,}/gi, '[redacted]');
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

/** A failed embedding call as the memory service reports it: a clear, content-free message; nothing stored. */
export function toEmbedderError(error: unknown): EmbedderError {
  if (error instanceof EmbedderError) return error;
  const retryable = error instanceof ProviderCallError ? error.retryable : true;
  // Only our own messages are known to be free of content and secrets.
  const what = error instanceof ProviderCallError ? error.message : 'the embedding call failed';
  return new EmbedderError(`embedding failed: ${what}; nothing was stored${retryable ? ', retry later' : ''}`, {
    cause: error,
    retryable,
  });
}
