/**
 * How long a test may wait on a heavy step — an esbuild bundle, a child Node process, a CLI run
 * that compiles TypeScript at start — on a shared 2-core machine that other jobs keep busy. Sized
 * to the slowest such step seen at load 10–16 (about a minute), with room: a timeout here means
 * something hangs, never that the machine was busy.
 */
export const HEAVY_STEP_MS = 300_000;
