import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from './context.js';
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
    instructions:
      'naaba is your long-term memory. remember one claim per call with a kind; recall before answering; ' +
      'forget what the user asks you to; curation_state explains what was kept and what was dropped.',
  });
  registerRemember(server, context);
  registerRecall(server, context);
  registerForget(server, context);
  registerCurationState(server, context);
  return server;
}
