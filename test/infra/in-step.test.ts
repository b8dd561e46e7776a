import { migrationFiles } from '../../lambda/adapters/pg/schema/migrate.js';
import { bearerToken, newToken } from '../../lambda/auth/token.js';
import { loadConfig, novaMicroProfile } from '../../lambda/config/env.js';
import { SECURITY_EVENTS } from '../../lambda/auth/security-events.js';
import { GATEWAY_RESPONSES, RESOURCE_METADATA_PATH } from '../../lambda/http/api-gateway.js';
import { OAUTH_PATHS, oauthMethods } from '../../lambda/sign-in/routes.js';
import { TEXT_LANGUAGES } from '../../lambda/memory/lexical.js';
import { contextSchema } from '../../lib/config/context-schema.js';
import { BUNDLING } from '../../lib/bundling.js';
import { readDeployConfig } from '../../lib/config/deploy-config.js';
import {
  BEARER_PATTERN,
  GATEWAY_REFUSALS,
  OAUTH_ROUTES,
  RESOURCE_METADATA_PATH as STACK_RESOURCE_METADATA_PATH,
} from '../../lib/constructs/mcp-api.js';
import { CHOSEN_AUTHORIZER_ERRORS } from '../../lib/constructs/function-crashes.js';
import {
  OUTCOMES,
  RELEASE_COUNTS as STACK_RELEASE_COUNTS,
  SECURITY_EVENTS as STACK_SECURITY_EVENTS,
} from '../../lib/constructs/naaba-metrics.js';
import { AuthorizerFailure, UNAUTHORIZED } from '../../lambda/http/api-gateway.js';
import { RELEASE_COUNTS } from '../../lambda/observability.js';
import { EXPECTED_TOOLS } from '../../lambda/release/checks.js';
import { TOOLS } from '../../lib/constructs/naaba-metrics.js';
import { CDK_CONTEXT, environmentOf, firstStack, functionId } from './support.js';

/**
 * lib/ may not import lambda/ code, so what both sides must agree on is written twice; these
 * tests hold the two copies together.
 */

test("the gateway's 401, 403 and authorizer-failure 503 are the ones the local server imitates", () => {
  expect(GATEWAY_REFUSALS.unauthorized).toEqual(GATEWAY_RESPONSES.unauthorized);
  expect(GATEWAY_REFUSALS.accessDenied).toEqual(GATEWAY_RESPONSES.accessDenied);
  expect(GATEWAY_REFUSALS.authorizerFailure).toEqual(GATEWAY_RESPONSES.authorizerFailure);
});

test('the counts the functions emit per version are the ones the release alarms read, and no others', () => {
  const candidates = [
    ...OUTCOMES.map((o) => `tool_call_${o}`),
    ...OUTCOMES.map((o) => `recall_${o}`),
    'judge_asked',
    'judge_unavailable',
    'store_unavailable',
    'authorizer_failure',
    'authorization_allow',
    'http_5xx',
  ];

  expect(candidates.filter((name) => RELEASE_COUNTS.test(name)).sort()).toEqual([...STACK_RELEASE_COUNTS].sort());
});

test("the errors the authorizer's crash count leaves out are the ones it throws on purpose", () => {
  expect(CHOSEN_AUTHORIZER_ERRORS).toEqual([UNAUTHORIZED, new AuthorizerFailure().name]);
});

test("the endpoint's router sends to the page's data API exactly the paths page/api.ts says are its own", async () => {
  const [{ isApiPath: routed }, { isApiPath: owned }] = await Promise.all([
    import('../../lambda/handlers/endpoint-router.js'),
    import('../../lambda/page/api.js'),
  ]);
  const paths = ['/api/overview', '/v1/api/memories', '/api', '/apix/y', '/mcp', '/', '/healthz', '/oauth/api/x', '/x/api/'];

  expect(paths.map(routed)).toEqual(paths.map(owned));
  expect(paths.filter(routed).length).toBeGreaterThan(2);
});

test('the release check expects the tools the dashboard graphs', () => {
  expect([...EXPECTED_TOOLS]).toEqual([...TOOLS].sort());
});

test('the dashboard graphs exactly the security events the functions count', () => {
  expect([...STACK_SECURITY_EVENTS].sort()).toEqual([...SECURITY_EVENTS].sort());
});

test('the stack routes exactly the OAuth paths the function answers, and points 401s at the same metadata', () => {
  expect(OAUTH_ROUTES.map(([path]) => path).sort()).toEqual([...OAUTH_PATHS].sort());
  expect(STACK_RESOURCE_METADATA_PATH).toBe(RESOURCE_METADATA_PATH);
});

test('the stack routes each OAuth path with the methods the function answers (HEAD comes with GET), OPTIONS for preflights', () => {
  for (const [path, verbs] of OAUTH_ROUTES) {
    const answered = (oauthMethods(path) ?? []).filter((m) => m !== 'HEAD');
    expect([path, [...verbs].sort()]).toEqual([path, [...answered].sort()]);
  }
});

describe("the authorizer's identity validation expression", () => {
  const gatewayPasses = (header: string) => new RegExp(BEARER_PATTERN).test(header);

  test('passes every header the authorizer accepts, so a valid key is never refused before it', () => {
    for (const header of [newToken(), newToken('nba_')].flatMap((t) => [`Bearer ${t}`, `bearer ${t}`, `BEARER ${t}`])) {
      expect([header, bearerToken(header) !== undefined, gatewayPasses(header)]).toEqual([header, true, true]);
    }
  });

  test.each([
    '',
    'Basic dXNlcjpwYXNz',
    `Bearer nb_${'a'.repeat(42)}`,
    `Bearer xx_${'a'.repeat(43)}`,
    `Bearer nbr_${'a'.repeat(43)}`,
    `Bearer nbc_${'a'.repeat(43)}`,
    `Bearer nb_${'a'.repeat(43)} extra`,
  ])('refuses %j without invoking the authorizer, as the authorizer would', (header) => {
    expect([gatewayPasses(header), bearerToken(header)]).toEqual([false, undefined]);
  });
});

test("each region's judge profile is the one the function would pick by itself", () => {
  const config = readDeployConfig((key) => CDK_CONTEXT[key]);

  for (const region of config.regions) expect(region.models.judgeProfileId).toBe(novaMicroProfile(region.awsRegion));
});

test('curation rules written in cdk.json are read by the function as NAABA_CURATION', () => {
  const rules = {
    kinds: { fact: { ceiling: 500 }, session: { ceiling: 100, ttl: '24h' } },
    pin_limit: 50,
    journal_retention: '30d',
  };
  const { template } = firstStack({ 'naaba:curation': rules });
  const env = environmentOf(template, functionId(template, /MCP endpoint/));

  const config = loadConfig({ NAABA_CURATION: env.NAABA_CURATION ?? '', NAABA_LOG_LEVEL: 'SILENT' });

  expect(config.rulesSource).toBe('NAABA_CURATION');
  expect(config.rules.kinds.session).toEqual({ ceiling: 100, ttlSeconds: 24 * 3600 });
  expect(Object.keys(config.rules.kinds)).toEqual(['fact', 'session']);
  expect(config.rules.pinLimit).toBe(50);
});

test('the text languages cdk.json accepts are the ones the function knows, and the chosen one reaches it', () => {
  expect(contextSchema['naaba:textLanguage'].unwrap().options).toEqual([...TEXT_LANGUAGES]);
  const { template } = firstStack({ 'naaba:textLanguage': 'english' });
  const env = environmentOf(template, functionId(template, /MCP endpoint/));
  expect(loadConfig({ NAABA_TEXT_LANGUAGE: env.NAABA_TEXT_LANGUAGE ?? '', NAABA_LOG_LEVEL: 'SILENT' }).recall.language).toBe(
    'english',
  );
});

test('the migrations baked into every bundle are exactly the files the runner applies, per engine', async () => {
  const baked = JSON.parse(BUNDLING.define['globalThis.NAABA_MIGRATIONS'] ?? 'null');

  expect(baked).toEqual({ postgres: await migrationFiles('postgres'), cockroach: await migrationFiles('cockroach') });
  expect(baked.postgres.length).toBeGreaterThanOrEqual(4);
});
