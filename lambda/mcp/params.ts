import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The params of a client request, checked against the MCP schema of its method before the SDK
 * sees them. The SDK parses them inside its handler and answers a failure as -32603 (internal
 * error) carrying zod's raw JSON; JSON-RPC says a bad argument is -32602, and a client deserves
 * words: `Invalid params for initialize: params.clientInfo.name: expected string, received number`.
 */

type RequestSchema = (typeof ClientRequestSchema.options)[number];

/** Each client request method's schema, by its method literal. */
const SCHEMAS = new Map<string, RequestSchema>(
  ClientRequestSchema.options.map((schema) => [String(schema.shape.method.value), schema]),
);

/** Issues shown at most: the first few say what to fix. */
const SHOWN = 3;

/** Words for a failed check, or undefined when `message` is no request of a known method, or its params fit. */
export function paramsProblem(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (typeof method !== 'string' || id === undefined || !SCHEMAS.has(method)) return undefined;
  const checked = SCHEMAS.get(method)?.safeParse({ method, ...(params === undefined ? {} : { params }) });
  if (!checked || checked.success) return undefined;
  const issues = checked.error.issues.slice(0, SHOWN).map((issue) => {
    // The request is checked whole, so every path starts at `params` (or is empty for the request itself).
    const at = issue.path.map(String).join('.') || 'params';
    return `${at}: ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  return `Invalid params for ${method}: ${issues.join('; ')}`;
}
