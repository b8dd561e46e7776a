import { EmbedderError, MemoryError, StoreBusyError } from './errors.js';

/**
 * How a call on the memory ended, from the error it threw: the caller's input, a provider down, a
 * busy store, or something unexpected. The MCP tools name their metrics by it (`tool_call_<outcome>`
 * and `<tool>_<outcome>`, decision 0051; alarms are built on these exact names) and the page's API
 * its status codes. `judge_unavailable` is kept for a judge failure that fails a call; today none
 * does (dedup falls back, the memory is stored, and `judge_unavailable` counts the fallback instead).
 */
export type CallOutcome = 'ok' | 'bad_input' | 'embedder_unavailable' | 'judge_unavailable' | 'store_busy' | 'internal';

/** Text the embedder refuses before any call (Titan's input limits): the caller's input, not the provider. */
const EMBEDDER_INPUT = 'EmbeddingInputError';

/** Sorts a failed call by what went wrong. */
export function outcomeOf(error: unknown): CallOutcome {
  if (!(error instanceof MemoryError)) return 'internal';
  if (error instanceof StoreBusyError) return 'store_busy';
  if (error.name === EMBEDDER_INPUT) return 'bad_input';
  if (error instanceof EmbedderError) return 'embedder_unavailable';
  if (!error.expose) return 'internal';
  // Exposed and retryable: the store kept changing under the call (concurrent writers).
  return error.retryable ? 'store_busy' : 'bad_input';
}
