import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP side of verify-remote: a real SDK client over Streamable HTTP, with a bearer token,
 * and typed calls of naaba's tools. Nothing here prints or returns a token.
 */

export interface Recalled {
  readonly id: string;
  readonly content: string;
  readonly distance: number;
}

export interface Remembered {
  readonly id: string;
  readonly kind: string;
  readonly outcome: 'stored' | 'merged' | 'superseded';
  readonly evicted: number;
}

export interface Forgotten {
  readonly count: number;
  readonly deleted: string[];
}

/** A tool answered with an error result: the message the server chose to expose. */
export class ToolCallError extends Error {
  override name = 'ToolCallError';
}

/** One connected key: the tools as that key's user sees them. */
export class MemoryProbe {
  private constructor(private readonly client: Client) {}

  static async connect(mcpUrl: string, token: string): Promise<MemoryProbe> {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'naaba-verify-remote', version: '1.0.0' });
    await client.connect(transport);
    return new MemoryProbe(client);
  }

  /** Tool names, and the kinds `remember` accepts (from its input schema). */
  async tools(): Promise<{ names: string[]; kinds: string[] }> {
    const { tools } = await this.client.listTools();
    const remember = tools.find((t) => t.name === 'remember');
    const kind = (remember?.inputSchema.properties as Record<string, { enum?: unknown }> | undefined)?.kind;
    const kinds = Array.isArray(kind?.enum) ? kind.enum.filter((k): k is string => typeof k === 'string') : [];
    return { names: tools.map((t) => t.name).sort(), kinds };
  }

  remember(content: string, kind: string): Promise<Remembered> {
    return this.call<Remembered>('remember', { content, kind, origin: 'naaba verify-remote' });
  }

  async recall(query: string): Promise<Recalled[]> {
    return (await this.call<{ memories: Recalled[] }>('recall', { query, limit: 10 })).memories;
  }

  forget(ids: string[]): Promise<Forgotten> {
    return this.call<Forgotten>('forget', { ids });
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private async call<T>(name: string, args: Record<string, unknown>): Promise<T> {
    const result = (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    if (result.isError) {
      const first = result.content[0];
      throw new ToolCallError(`${name}: ${first?.type === 'text' ? first.text : 'tool error'}`);
    }
    return result.structuredContent as T;
  }
}
