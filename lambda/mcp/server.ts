import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from './context.js';
import { noElicitation } from './no-elicitation.js';
import { countCall } from './tool-result.js';
import { registerCurationState } from './tools/curation-state.js';
import { registerForget } from './tools/forget.js';
import { registerRecall } from './tools/recall.js';
import { registerRemember } from './tools/remember.js';

export const SERVER_INFO = { name: 'naaba', version: '0.1.0' } as const;

/** Tool arguments larger than this many elements are refused before validation (a huge id list, say). */
const MAX_TOOL_INPUT_ELEMENTS = 1000;

/** A fresh MCP server with the four tools, bound to one caller. Built per request: the endpoint is stateless. */
export function createMcpServer(context: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {} },
    maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
    jsonSchemaValidator: noElicitation,
    instructions:
      'naaba is your long-term memory. remember one claim per call with a kind; recall before answering; ' +
      'forget what the user asks you to; curation_state explains what was kept and what was dropped.',
  });
  registerRemember(server, context);
  registerRecall(server, context);
  registerForget(server, context);
  registerCurationState(server, context);
  countRefusedCalls(server);
  return server;
}

const TOOLS = new Set(['remember', 'recall', 'forget', 'curation_state']);

/**
 * The SDK answers a call whose arguments fail the tool's input schema (or that names no tool)
 * itself, as a tool error, before any tool body runs; every such answer goes through its
 * `createToolError`. Counted here as bad input, so that the per-tool metrics see every call
 * (decision 0051). `test/handlers/tool-metrics.test.ts` fails if an SDK upgrade renames it.
 */
function countRefusedCalls(server: McpServer): void {
  const sdk = server as unknown as { createToolError(message: string): CallToolResult };
  const answer = sdk.createToolError.bind(server);
  sdk.createToolError = (message: string) => {
    const named = /tool ([a-z_]+)/i.exec(message)?.[1] ?? '';
    countCall(TOOLS.has(named) ? named : 'unknown_tool', 'bad_input');
    return answer(message);
  };
}
