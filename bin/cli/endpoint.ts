import { environment, type RuntimeConfig } from '../../lambda/config/env.js';
import { ConfigError } from '../../lambda/config/errors.js';
import { Settings } from '../../lambda/config/settings.js';

/** Where an MCP client reaches the region a key was issued for, as `issue-key` tells the operator. */
export type McpEndpoint =
  | { readonly kind: 'known'; readonly url: string }
  /** Against a cluster with no NAABA_ENDPOINT_URL: the stack's `McpUrl` output, and how to read it. */
  | { readonly kind: 'stack-output'; readonly region: string };

/**
 * NAABA_ENDPOINT_URL (`--endpoint`): the region's deployed MCP URL, an `https://…/mcp` address.
 * Read before a key is issued, so a wrong value issues nothing.
 */
export function mcpEndpoint(config: RuntimeConfig, flags: Record<string, string>, localUrl: string | undefined): McpEndpoint {
  const given = new Settings(environment(), flags).string('NAABA_ENDPOINT_URL');
  if (given !== undefined) {
    const url = URL.canParse(given) ? new URL(given) : undefined;
    const isMcpUrl = url?.protocol === 'https:' && url.pathname.endsWith('/mcp') && !url.search && !url.hash && !url.username;
    if (!url || !isMcpUrl) {
      throw new ConfigError(
        `NAABA_ENDPOINT_URL="${given}": expected the region's MCP URL, https://ID.execute-api.REGION.amazonaws.com/STAGE/mcp (the stack output McpUrl)`,
      );
    }
    return { kind: 'known', url: url.href };
  }
  if (config.database.kind === 'pglite') {
    return { kind: 'known', url: localUrl ?? `http://${config.listen.host}:${config.listen.port}/mcp` };
  }
  return { kind: 'stack-output', region: config.region };
}

/** The stack of a naaba region: a CockroachDB Cloud name (`aws-eu-central-1`) is that AWS region's. */
function awsRegionOf(region: string): string {
  return region.replace(/^aws-(?=[a-z]{2}(-[a-z]+)+-\d+$)/, '');
}

/** The lines that tell the operator which URL to give an MCP client. */
export function endpointLines(endpoint: McpEndpoint): string[] {
  if (endpoint.kind === 'known') return [`  URL:     ${endpoint.url}`];
  const aws = awsRegionOf(endpoint.region);
  return [
    `  URL:     the McpUrl output of region ${endpoint.region}'s stack (https://ID.execute-api.${aws}.amazonaws.com/STAGE/mcp);`,
    '           read it with (stack naaba-<AWS region> unless naaba:stackPrefix says otherwise):',
    `             aws cloudformation describe-stacks --region ${aws} --stack-name naaba-${aws} \\`,
    `               --query "Stacks[0].Outputs[?OutputKey=='McpUrl'].OutputValue" --output text`,
    '           or pass --endpoint URL (NAABA_ENDPOINT_URL) to have it printed here',
  ];
}
