import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EmbedderError, MemoryError, ResponseTooLargeError, StoreBusyError } from '../memory/errors.js';
import { count } from '../observability.js';
import type { ToolContext } from './context.js';

/**
 * How a tool call ended, as its metrics name it (decision 0051): `tool_call_<outcome>` and
 * `<tool>_<outcome>`. Alarms are built on these exact names. `judge_unavailable` is kept for a
 * judge failure that fails a call; today none does (dedup falls back, the memory is stored, and
 * `judge_unavailable` counts the fallback instead).
 */
export type ToolOutcome = 'ok' | 'bad_input' | 'embedder_unavailable' | 'judge_unavailable' | 'store_busy' | 'internal';

/** Text the embedder refuses before any call (Titan's input limits): the caller's input, not the provider. */
const EMBEDDER_INPUT = 'EmbeddingInputError';

/** Sorts a failed call: the caller's input, a provider down, a busy store, or something unexpected. */
export function outcomeOf(error: unknown): ToolOutcome {
  if (!(error instanceof MemoryError)) return 'internal';
  if (error instanceof StoreBusyError) return 'store_busy';
  if (error.name === EMBEDDER_INPUT) return 'bad_input';
  if (error instanceof EmbedderError) return 'embedder_unavailable';
  if (!error.expose) return 'internal';
  // Exposed and retryable: the store kept changing under the call (concurrent writers).
  return error.retryable ? 'store_busy' : 'bad_input';
}

/** A successful tool result: structured content for programs, a short text rendering for people. */
export function success(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * A tool error. Domain errors marked safe keep their message; anything else becomes a generic
 * message with a correlation id, and the real error is logged under that id (never the content).
 */
export function failure(error: unknown, context: ToolContext, tool: string): CallToolResult {
  if (error instanceof MemoryError && error.expose) {
    const retry = error.retryable ? ' (retryable)' : '';
    return { content: [{ type: 'text', text: `${error.message}${retry}` }], isError: true };
  }
  const correlationId = randomUUID();
  context.log.error('tool failed', { tool, correlationId, error: loggable(error) });
  return {
    content: [{ type: 'text', text: `internal error; nothing more is shown here (correlation id ${correlationId})` }],
    isError: true,
  };
}

/**
 * What an ERROR line may say about an unexpected error: its name, a driver's error code and where
 * it was thrown. Never its message: messages of database and validation errors quote the input
 * (`invalid input syntax for type uuid: "…"`), and no caller text may reach an ERROR line.
 */
export function loggable(error: unknown): { name: string; code?: string; at?: string; causes?: string[] } {
  if (!(error instanceof Error)) return { name: typeof error };
  const code = (error as { code?: unknown }).code;
  const at = error.stack?.split('\n').slice(1, 6).join('\n');
  const causes = causeNames(error.cause);
  return {
    name: error.name,
    ...(typeof code === 'string' ? { code } : {}),
    ...(at ? { at } : {}),
    ...(causes.length > 0 ? { causes } : {}),
  };
}

/**
 * The chain of causes by name, with a provider's HTTP status or a driver's code where it has one
 * (`ProviderCallError`, `AccessDeniedException 403`): what an operator needs, and no message.
 */
function causeNames(cause: unknown, depth = 0): string[] {
  if (!(cause instanceof Error) || depth >= 4) return [];
  const e = cause as Error & { code?: unknown; $metadata?: { httpStatusCode?: unknown } };
  const status = e.$metadata?.httpStatusCode;
  const detail = typeof status === 'number' ? ` ${status}` : typeof e.code === 'string' ? ` ${e.code}` : '';
  return [`${e.name}${detail}`, ...causeNames(e.cause, depth + 1)];
}

/** Counts one call under both names its alarms use. */
export function countCall(tool: string, outcome: ToolOutcome): void {
  count(`tool_call_${outcome}`);
  count(`${tool}_${outcome}`);
}

/** Runs a tool body, turning every throw into a safe tool error: the SDK would otherwise show raw messages. */
export async function guarded(context: ToolContext, tool: string, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  const started = Date.now();
  try {
    const result = await body();
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (!context.budget.take(bytes)) throw new ResponseTooLargeError(tool, bytes, context.budget.cap);
    context.log.info('tool call', { tool, ok: true, outcome: 'ok', latencyMs: Date.now() - started });
    countCall(tool, 'ok');
    return result;
  } catch (error) {
    const outcome = outcomeOf(error);
    const attributes = { tool, ok: false, outcome, latencyMs: Date.now() - started };
    // The caller's own mistakes are routine; a provider or store that failed the call is not.
    if (outcome === 'bad_input') context.log.info('tool call', attributes);
    else if (outcome !== 'internal') context.log.error('tool call failed', { ...attributes, error: loggable(error) });
    countCall(tool, outcome);
    return failure(error, context, tool);
  }
}
