import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { Container, type ContainerParts, installContainer } from '../../lambda/composition.js';
import { loadConfig } from '../../lambda/config/env.js';
import { type LocalServer, startLocalServer } from '../../lambda/dev/server.js';
import { freshDatabase } from './database.js';

export interface TestEndpoint {
  readonly url: string;
  readonly mcpUrl: string;
  readonly container: Container;
  readonly sql: SqlClient;
  issueKey(name: string, region?: string, userId?: string): Promise<IssuedKey>;
  close(): Promise<void>;
}

export interface TestEndpointOptions extends Omit<ContainerParts, 'sql'> {
  /** Settings as environment variables, e.g. `{ NAABA_REGION: 'eu-central-1' }`. */
  readonly env?: Record<string, string>;
  readonly sql?: SqlClient;
}

/**
 * The local endpoint on a free port over a migrated in-memory PGlite: the same exported
 * authorizer and MCP handlers as Lambda, reached over real HTTP.
 */
export async function startTestEndpoint(options: TestEndpointOptions = {}): Promise<TestEndpoint> {
  const config = loadConfig({ NAABA_LOG_LEVEL: 'SILENT', ...options.env });
  const sql = options.sql ?? (await freshDatabase(config.embedder.dimensions));
  const container = new Container(config, { ...options, sql });
  const server: LocalServer = await startLocalServer({ host: '127.0.0.1', port: 0, container });
  return {
    url: server.url,
    mcpUrl: `${server.url}/mcp`,
    container,
    sql,
    issueKey: async (name, region = config.region, userId) => (await container.keys()).issue(name, region, userId),
    close: async () => {
      await server.close();
      installContainer(undefined);
      if (!options.sql) await sql.close();
    },
  };
}

/** A real MCP client over Streamable HTTP with a bearer token. */
export async function connect(mcpUrl: string, token: string, info = { name: 'naaba-tests', version: '1.0.0' }): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client(info);
  await client.connect(transport);
  return client;
}

/**
 * Runs `use` with a client of one user (key "alice") on a fresh endpoint set up with `env`, then
 * closes both: for a test that asks one question of one configuration.
 */
export async function withUserClient<T>(env: Record<string, string>, use: (client: Client) => Promise<T>): Promise<T> {
  const endpoint = await startTestEndpoint({ env });
  const client = await connect(endpoint.mcpUrl, (await endpoint.issueKey('alice')).token);
  try {
    return await use(client);
  } finally {
    await client.close();
    await endpoint.close();
  }
}

/** Calls a tool and returns its result with structured content typed as the caller expects. */
export async function call<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<CallToolResult & { structuredContent: T }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent: T };
}

/** The text of a tool result's first content block. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}
