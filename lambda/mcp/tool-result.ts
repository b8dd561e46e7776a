import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryError, ResponseTooLargeError } from '../memory/errors.js';
import { type CallOutcome, outcomeOf } from '../memory/outcome.js';
import { isUnreachable } from '../http/unavailable.js';
import { count, loggable } from '../observability.js';
import type { ToolContext } from './context.js';

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

/** Counts one call under both names its alarms use. */
export function countCall(tool: string, outcome: CallOutcome): void {
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
    if (isUnreachable(error)) {
      // Weather, not a defect: the request is answered 503 and counted `store_unavailable` once, by
      // the endpoint (decision 0097); counting it here too would page as an internal error (issue 48).
      context.log.info('tool call', { tool, ok: false, outcome: 'store_unavailable', latencyMs: Date.now() - started });
      return failure(error, context, tool);
    }
    const outcome = outcomeOf(error);
    const attributes = { tool, ok: false, outcome, latencyMs: Date.now() - started };
    // The caller's own mistakes are routine; a provider or store that failed the call is not.
    if (outcome === 'bad_input') context.log.info('tool call', attributes);
    else if (outcome !== 'internal') context.log.error('tool call failed', { ...attributes, error: loggable(error) });
    countCall(tool, outcome);
    return failure(error, context, tool);
  }
}
