import { defaultRetryPolicy, type RetryPolicy } from '../../lambda/adapters/pg/retry.js';

/**
 * How long a test may wait on a heavy step — an esbuild bundle, a child Node process, a CLI run
 * that compiles TypeScript at start — on a shared 2-core machine that other jobs keep busy. Sized
 * to the slowest such step seen at load 10–16 (about a minute), with room: a timeout here means
 * something hangs, never that the machine was busy.
 */
export const HEAVY_STEP_MS = 300_000;

/**
 * The stores' retry bounds for calls a test expects to succeed: production's attempts and backoff,
 * but a minute of wall-clock budget instead of 3 s, so that giving up means the attempts ran out,
 * never that a busy machine made them slow.
 */
export const PATIENT_RETRY: RetryPolicy = { ...defaultRetryPolicy, budgetMs: 60_000 };

/**
 * How long a test's pool may wait to open a connection or to get a pooled one (pg-pool applies
 * the one bound to both): production's 5 s is a busy machine's ordinary wait.
 */
export const PATIENT_CONNECT_MS = 120_000;
