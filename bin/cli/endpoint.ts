import type { RuntimeConfig } from '../../lambda/config/env.js';
import { ConfigError } from '../../lambda/config/errors.js';
import { Settings } from '../../lambda/config/settings.js';
import type { Environment } from './terminal.js';

/** Where an MCP client reaches the region a key was issued for, as `issue-key` tells the operator. */
export type McpEndpoint =
  | { readonly kind: 'known'; readonly url: string }
  /** Against a cluster with no NAABA_ENDPOINT_URL: the stack's `McpUrl` output, and how to read it. */
  | { readonly kind: 'stack-output'; readonly region: string };

/**
 * NAABA_ENDPOINT_URL (`--endpoint`): the region's deployed MCP URL, an `https://…/mcp` address.
 * Read before a key is issued, so a wrong value issues nothing.
 */
export function mcpEndpoint(
  env: Environment,
  config: RuntimeConfig,
  flags: Record<string, string>,
  localUrl: string | undefined,
): McpEndpoint {
  const given = new Settings(env, flags).string('NAABA_ENDPOINT_URL');
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

/** `ID.execute-api.REGION.amazonaws.com`: the API's region is in its host name. */
const EXECUTE_API_HOST = /^[a-z0-9]+\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;

/**
 * How long `issue-key` waits for a custom domain's /healthz to say which region it serves, and
 * `connect` for the server to say whether it takes a key: NAABA_HEALTHZ_TIMEOUT_MS, 5 s by default
 * (tests on a busy machine give it more).
 */
export function healthzTimeoutMs(env: Environment): number {
  const settings = new Settings(env);
  const ms = settings.integer('NAABA_HEALTHZ_TIMEOUT_MS', 5_000, 100, 120_000);
  if (settings.problems.length > 0) throw new ConfigError(settings.problems.join('; '));
  return ms;
}

/** Which naaba region an endpoint serves, asked of its open /healthz (it answers `{status, region}`). */
async function servedRegion(url: string, timeoutMs: number): Promise<string | undefined> {
  const health = new URL('healthz', url.replace(/mcp$/, ''));
  const response = await fetch(health, { signal: AbortSignal.timeout(timeoutMs) });
  const body = (await response.json()) as { region?: unknown };
  return typeof body.region === 'string' ? body.region : undefined;
}

/**
 * Refuses, before a key is made, an endpoint of another region than the key's: its clients would
 * get a 403. The endpoint's own /healthz says which naaba region it serves. An execute-api URL also
 * names its AWS region: when that matches the key's region nothing is asked; when it does not (or
 * the host is a custom domain) /healthz decides, since a stack may home its rows in a region of
 * another name (`naabaRegion`). A mismatch that /healthz cannot settle is refused for an
 * execute-api URL and only warned about (`warn`) for a custom domain.
 */
export async function requireEndpointOfRegion(
  env: Environment,
  endpoint: McpEndpoint,
  region: string,
  warn: (line: string) => void,
): Promise<void> {
  if (endpoint.kind !== 'known' || new URL(endpoint.url).protocol !== 'https:') return;
  const apiRegion = EXECUTE_API_HOST.exec(new URL(endpoint.url).hostname)?.[1];
  if (apiRegion !== undefined && apiRegion === awsRegionOf(region)) return;
  const health = endpoint.url.replace(/mcp$/, 'healthz');
  const said = await servedRegion(endpoint.url, healthzTimeoutMs(env)).catch((error: unknown) => (error as Error).name);
  const asked = said !== undefined && /^[a-z0-9-]+$/.test(said) && !/Error$/.test(said);
  if (asked && said === region) return;
  if (!asked && apiRegion === undefined) {
    warn(
      `naaba: could not ask ${health} which region it serves (${said ?? 'no region in its answer'}); make sure it is the endpoint of region ${region}`,
    );
    return;
  }
  const serves = asked
    ? `region ${said} (its /healthz says so)`
    : `AWS region ${apiRegion} (${health} could not be asked to say otherwise)`;
  throw new ConfigError(
    [
      `NAABA_ENDPOINT_URL="${endpoint.url}" is the endpoint of ${serves}, but the key is for region ${region}: a client given both would get 403. Give the McpUrl of region ${region}'s stack instead:`,
      ...endpointLines({ kind: 'stack-output', region }).slice(2, 4),
    ].join('\n'),
  );
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
