import { FailedAuthLimit } from '../../lambda/dev/failed-auth.js';
import { ManualClock } from '../support/clock.js';

/**
 * The local server's gate for an address past its budget of failed tokens (issue 34, point 3):
 * checks still run — a valid key no one used from that address gets in — one at a time in arrival
 * order; only past the waiting list is a check refused, and a token that worked skips the gate.
 */

const LIMITS = { burst: 2, perSecond: 1, waiting: 3 };

function spent(): FailedAuthLimit {
  const limit = new FailedAuthLimit(new ManualClock(), LIMITS);
  for (let i = 0; i < LIMITS.burst; i += 1) limit.failed('127.0.0.1', `bad ${i}`);
  return limit;
}

test('within the budget a token is checked at once; past it, through the gate; a token that worked never waits', () => {
  const limit = new FailedAuthLimit(new ManualClock(), LIMITS);
  expect(limit.admission('127.0.0.1', 'new key')).toBe('check');
  limit.allowed('127.0.0.1', 'good key');
  for (let i = 0; i < LIMITS.burst; i += 1) limit.failed('127.0.0.1', `bad ${i}`);
  expect(limit.admission('127.0.0.1', 'new key')).toBe('gate');
  expect(limit.admission('127.0.0.1', 'good key')).toBe('check');
  expect(limit.admission('127.0.0.2', 'new key')).toBe('check');
});

test('the gate runs one check at a time, in arrival order, and refuses only past its waiting list', async () => {
  const limit = spent();
  const order: string[] = [];
  let running = 0;
  let most = 0;
  const releases: (() => void)[] = [];
  const check = (name: string) => async () => {
    running += 1;
    most = Math.max(most, running);
    order.push(name);
    await new Promise<void>((resolve) => releases.push(resolve));
    running -= 1;
    return name;
  };
  const queued = ['a', 'b', 'c'].map((n) => limit.throughGate('127.0.0.1', check(n)));
  expect(await limit.throughGate('127.0.0.1', check('d'))).toBe('full');
  for (let i = 0; i < 3; i += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()?.();
  }
  expect(await Promise.all(queued)).toEqual(['a', 'b', 'c']);
  expect(order).toEqual(['a', 'b', 'c']);
  expect(most).toBe(1);
  // Once the queue has drained, the next check goes through.
  const next = limit.throughGate('127.0.0.1', async () => 'e');
  expect(await next).toBe('e');
});

test('a check that fails does not stop the ones behind it', async () => {
  const limit = spent();
  const failing = limit.throughGate('127.0.0.1', () => Promise.reject(new Error('database gone')));
  const after = limit.throughGate('127.0.0.1', async () => 'answered');
  await expect(failing).rejects.toThrow('database gone');
  expect(await after).toBe('answered');
});
