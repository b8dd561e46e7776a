import {
  type CallTools,
  type Classified,
  callWithRetry,
  ProviderCallError,
  redact,
} from '../../lambda/adapters/provider-call.js';

/** Tools whose clock moves only by the waits the retry loop asks for: total time is provable without waiting. */
function fakeTools(random = 0.99): CallTools & { waits: number[] } {
  let now = 0;
  const waits: number[] = [];
  return {
    waits,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
    random: () => random,
  };
}

const throttled: Classified = { reason: 'throttled', retryable: true, code: 'ThrottlingException' };
const refused: Classified = { reason: 'rejected', retryable: false, code: 'ValidationException' };

async function run(policy: Parameters<typeof callWithRetry>[1], classified: Classified, tools: CallTools) {
  let calls = 0;
  const error = await callWithRetry(
    'test call',
    policy,
    async () => {
      calls += 1;
      throw new Error('provider says no');
    },
    () => classified,
    tools,
  ).catch((e: unknown) => e);
  return { calls, error: error as ProviderCallError };
}

test('retries stop at maxAttempts', async () => {
  const tools = fakeTools();

  const { calls, error } = await run({ timeoutMs: 1000, maxAttempts: 4, budgetMs: 1_000_000 }, throttled, tools);

  expect(calls).toBe(4);
  expect(error).toBeInstanceOf(ProviderCallError);
  expect(error.attempts).toBe(4);
  expect(error.message).toBe('test call was throttled (ThrottlingException) after 4 attempts');
});

test('retries stop before a wait would overrun the total budget, however many attempts are left', async () => {
  const tools = fakeTools();

  const { calls, error } = await run(
    { timeoutMs: 1000, maxAttempts: 10, budgetMs: 1000, backoffBaseMs: 400, backoffCapMs: 400 },
    throttled,
    tools,
  );

  expect(calls).toBe(3);
  expect(tools.waits.reduce((a, b) => a + b, 0)).toBeLessThan(1000);
  expect(error.retryable).toBe(true);
});

test('backoff is jittered below an exponentially growing, capped ceiling', async () => {
  const tools = fakeTools(0.5);

  await run({ timeoutMs: 1000, maxAttempts: 6, budgetMs: 1_000_000, backoffBaseMs: 100, backoffCapMs: 500 }, throttled, tools);

  expect(tools.waits).toEqual([50, 100, 200, 250, 250]);
});

test('a failure that is not retryable is final at once', async () => {
  const { calls, error } = await run({ timeoutMs: 1000, maxAttempts: 5, budgetMs: 10_000 }, refused, fakeTools());

  expect(calls).toBe(1);
  expect(error.retryable).toBe(false);
  expect(error.cause).toBeInstanceOf(Error);
});

test('an attempt that never settles is cut at the timeout and not retried', async () => {
  let calls = 0;
  let aborted = false;
  const error = await callWithRetry(
    'slow call',
    { timeoutMs: 20, maxAttempts: 3, budgetMs: 10_000 },
    (signal) => {
      calls += 1;
      signal.addEventListener('abort', () => {
        aborted = true;
      });
      return new Promise<never>(() => undefined);
    },
    () => throttled,
    fakeTools(),
  ).catch((e: unknown) => e as ProviderCallError);

  expect(error.reason).toBe('timeout');
  expect(calls).toBe(1);
  expect(aborted).toBe(true);
});

test('an attempt that fails because of our abort is a timeout, not whatever the client called it', async () => {
  const error = await callWithRetry(
    'aborting call',
    { timeoutMs: 20, maxAttempts: 3, budgetMs: 10_000 },
    (signal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new TypeError('fetch failed')))),
    () => ({ reason: 'network', retryable: true }),
    fakeTools(),
  ).catch((e: unknown) => e as ProviderCallError);

  expect(error.reason).toBe('timeout');
});

test('redact removes the configured secret and key-shaped words, and bounds the length', () => {
  const text = redact(`bad key my-secret-value and sk-proj-abcdef123456 ${'x'.repeat(400)}`, ['my-secret-value']);

  expect(text).not.toContain('my-secret-value');
  expect(text).not.toContain('sk-proj-abcdef123456');
  expect(text.length).toBeLessThanOrEqual(301);
});
