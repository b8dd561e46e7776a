/**
 * Reads `probe` until `done` holds or `timeoutMs` has passed, and returns the last reading: the
 * caller asserts on it, so a condition that never comes fails there with what was seen. For
 * effects that arrive on their own time (a timer, a child's output, a UDP packet), which a fixed
 * sleep would race on a busy machine; the bound is generous because it is paid only on failure.
 */
export async function pollUntil<T>(
  probe: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
