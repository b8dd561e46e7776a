import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MemoryError, ResponseTooLargeError } from '../memory/errors.js';
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

/**
 * What an ERROR line may say about an unexpected error: its name, a driver's error code and where
 * it was thrown. Never its message: messages of database and validation errors quote the input
 * (`invalid input syntax for type uuid: "…"`), and no caller text may reach an ERROR line.
 */
export function loggable(error: unknown): { name: string; code?: string; at?: string } {
  if (!(error instanceof Error)) return { name: typeof error };
  const code = (error as { code?: unknown }).code;
  const at = error.stack?.split('\n').slice(1, 6).join('\n');
  return { name: error.name, ...(typeof code === 'string' ? { code } : {}), ...(at ? { at } : {}) };
}

/** Runs a tool body, turning every throw into a safe tool error: the SDK would otherwise show raw messages. */
export async function guarded(context: ToolContext, tool: string, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  const started = Date.now();
  try {
    const result = await body();
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (!context.budget.take(bytes)) throw new ResponseTooLargeError(tool, bytes, context.budget.cap);
    context.log.info('tool call', { tool, ok: true, latencyMs: Date.now() - started });
    return result;
  } catch (error) {
    context.log.info('tool call', { tool, ok: false, latencyMs: Date.now() - started });
    return failure(error, context, tool);
  }
}
