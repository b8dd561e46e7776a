import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { rmSync } from 'node:fs';
import { DEFAULT_RUNTIME_ROLES, grantRuntimeRoles, migrate, RUNTIME_ROLES } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { SqlKeyStore } from '../../lambda/adapters/pg/stores/sql-key-store.js';
import { KeyService } from '../../lambda/auth/keys.js';
import { systemClock } from '../../lambda/ports/clock.js';
import { mcpCall, proxyEvent, scheduledEvent, tokenEvent } from '../handlers/events.js';
import { pkce } from '../support/oauth.js';
import { BedrockStub, DUMMY_CREDENTIALS, titanAnswer } from '../providers/support/bedrock-stub.js';
import { type SecretsStandIn, startSecretsStandIn } from '../store/tls-support.js';
import { postgresForTests } from '../support/pg-server.js';
import { BUNDLE_ROOT, buildLambdaBundle, invokeBundle, type LambdaBundle } from './lambda-bundle.js';
import { environmentOf, firstStack, functionId } from './support.js';

/**
 * The three shipped bundles (built with the CDK app's bundling settings), each run as the Lambda
 * runtime runs it, with the environment the stack gives it: each function's database URL — its own
 * login, a member of its function's role with the grants of sql/postgres/runtime-grants.sql
 * (decision 0093) — read through the real Secrets Manager client from a stand-in, Bedrock through
 * the real client from a stand-in, a throwaway PostgreSQL. Authorizer → MCP (remember, recall) →
 * sweeper, with API Gateway- and EventBridge-shaped events.
 */
const secretOf = (fn: 'mcp' | 'authorizer' | 'sweeper') => `naaba/test/database/${fn}`;
const CONTENT = 'The staging database moves to Frankfurt on the 3rd.';

const server = await postgresForTests('shipped bundles end to end');

if (server) {
  const url = server.url;
  const { stack, template } = firstStack();
  const outDir = `${BUNDLE_ROOT}/shipped-${process.pid}`;
  let bundles: Record<'authorizer' | 'mcp' | 'sweeper', LambdaBundle>;
  let secrets: SecretsStandIn;
  let bedrock: BedrockStub;
  let token: string;

  /** The function's environment from the template, with the stand-ins where AWS would be. */
  const envOf = (description: RegExp, name: string): Record<string, string> => ({
    ...environmentOf(template, functionId(template, description)),
    NAABA_DATABASE_SECRET_ID: secretOf(name === 'naaba-mcp' ? 'mcp' : name === 'naaba-authorizer' ? 'authorizer' : 'sweeper'),
    NAABA_DB_ENGINE: 'postgres',
    NAABA_BEDROCK_ENDPOINT: bedrock.url,
    // Calls to the stand-in that must succeed: a minute per attempt, not the stack's 5 s, however busy the machine.
    NAABA_EMBEDDER_TIMEOUT_MS: '60000',
    NAABA_EMBEDDER_BUDGET_MS: '120000',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
    AWS_REGION: stack.region,
    AWS_ACCESS_KEY_ID: DUMMY_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: DUMMY_CREDENTIALS.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: name,
  });

  beforeAll(async () => {
    const [authorizer, mcp, sweeper] = await Promise.all(
      (['authorizer', 'mcp', 'sweeper'] as const).map((entry) => buildLambdaBundle(entry, { outDir })),
    );
    bundles = { authorizer: authorizer as LambdaBundle, mcp: mcp as LambdaBundle, sweeper: sweeper as LambdaBundle };
    // Each function logs in as its own login, a member of its role (docs/deployment.md §2; trust auth here).
    const loginOf = (fn: (typeof RUNTIME_ROLES)[number]) => {
      const login = new URL(url);
      login.username = `${DEFAULT_RUNTIME_ROLES[fn]}_a`;
      return login.toString();
    };
    [secrets, bedrock] = await Promise.all([
      startSecretsStandIn(Object.fromEntries(RUNTIME_ROLES.map((fn) => [secretOf(fn), loginOf(fn)]))),
      BedrockStub.start(),
    ]);
    const embedding = Array.from({ length: 1024 }, (_, i) => (i === 7 ? 1 : 0));
    bedrock.script.set([], titanAnswer(embedding));
    const db = await PgSqlClient.connect({ url, maxConnections: 1, statementTimeoutMs: 10_000, engine: 'postgres' });
    await migrate(db, { embeddingDimensions: 1024 });
    for (const role of Object.values(DEFAULT_RUNTIME_ROLES)) {
      await db.exec(`CREATE ROLE ${role} NOLOGIN; CREATE ROLE ${role}_a LOGIN IN ROLE ${role}`);
    }
    await grantRuntimeRoles(db, DEFAULT_RUNTIME_ROLES);
    const region = envOf(/authorizer/, 'naaba-authorizer').NAABA_REGION ?? '';
    token = (await new KeyService(new SqlKeyStore(db), systemClock).issue('shipped-bundles', region)).token;
    await db.close();
  });
  afterAll(async () => {
    await Promise.all([secrets?.close(), bedrock?.close(), server?.stop()]);
    rmSync(outDir, { recursive: true, force: true });
  });

  test('authorizer → MCP remember and recall → sweeper, each from its shipped bundle, each as its own login', async () => {
    const authorized = (
      await invokeBundle(
        bundles.authorizer,
        'naaba-authorizer',
        envOf(/authorizer/, 'naaba-authorizer'),
        tokenEvent(`Bearer ${token}`),
      )
    ).result as {
      principalId: string;
      policyDocument: { Statement: { Effect: string }[] };
      context: Record<string, string>;
      usageIdentifierKey?: string;
    };
    expect(authorized.policyDocument.Statement.map((s) => s.Effect)).toEqual(['Allow']);
    // Per-key throttling: the allow names one of the stack's usage-plan keys (decision 0070).
    const bucketKeys = Object.values(template.findResources('AWS::ApiGateway::ApiKey')).map((k) => k.Properties.Value);
    expect(bucketKeys).toContain(authorized.usageIdentifierKey);
    const principal = {
      userId: authorized.context.userId ?? '',
      region: authorized.context.region ?? '',
      agent: authorized.context.agent ?? '',
      keyId: authorized.context.keyId ?? '',
    };
    expect(principal.agent).toBe('shipped-bundles');

    const refused = await invokeBundle(
      bundles.authorizer,
      'naaba-authorizer',
      envOf(/authorizer/, 'naaba-authorizer'),
      tokenEvent(`Bearer nb_${'x'.repeat(43)}`),
    );
    expect(refused.failure).toBe('Unauthorized');

    const mcpEnv = envOf(/MCP endpoint: stateless/, 'naaba-mcp');
    const call = async (name: string, args: Record<string, unknown>) => {
      const run = await invokeBundle(
        bundles.mcp,
        'naaba-mcp',
        mcpEnv,
        mcpCall('tools/call', { name, arguments: args }, principal),
      );
      const { statusCode, body } = run.result as { statusCode: number; body: string };
      expect(statusCode).toBe(200);
      return {
        answer: (JSON.parse(body) as { result: { isError?: boolean; structuredContent: Record<string, unknown> } }).result,
        lines: run.lines,
      };
    };
    const remembered = await call('remember', { content: CONTENT, kind: 'fact' });
    expect(remembered.answer.isError).toBeUndefined();
    expect(remembered.answer.structuredContent).toMatchObject({ outcome: 'stored', kind: 'fact' });
    const recalled = await call('recall', { query: 'Where does the staging database move?' });
    expect((recalled.answer.structuredContent.memories as { content: string }[]).map((m) => m.content)).toEqual([CONTENT]);
    // Bedrock was called through the real client: once per remember, once per recall.
    expect(bedrock.script.received.filter((r) => r.path.includes('/invoke')).length).toBe(2);
    // The logs (every line but the answer itself) never carry the content.
    const logged = [...remembered.lines, ...recalled.lines].filter((l) => !l.startsWith('RESULT '));
    expect(logged.join('\n')).not.toContain(CONTENT);

    const swept = await invokeBundle(bundles.sweeper, 'naaba-sweeper', envOf(/naaba sweeper/, 'naaba-sweeper'), scheduledEvent());
    expect(swept.lines.some((l) => l.startsWith('RESULT'))).toBe(true);
    expect(swept.lines.join('\n')).not.toMatch(/"level":"ERROR"/);
  });

  test('each shipped bundle refuses a database with a contract migration of newer code, and its log says why', async () => {
    const db = await PgSqlClient.connect({ url, maxConnections: 1, statementTimeoutMs: 10_000, engine: 'postgres' });
    await db.query(
      sql`INSERT INTO naaba_migrations (version, applied_at, requires) VALUES ('9999_drop_x.sql', now(), '9998_stop_using_x.sql')`,
    );
    try {
      const problem =
        'the database has 9999_drop_x.sql, a contract migration for code that knows 9998_stop_using_x.sql, which this code predates';
      const refused = await invokeBundle(
        bundles.authorizer,
        'naaba-authorizer',
        envOf(/authorizer/, 'naaba-authorizer'),
        tokenEvent(`Bearer ${token}`),
      );
      // The caller gets the authorizer's 503 (a failure, never a 401); the log line names the migration.
      expect(refused.failure).toBe('the key store could not be read');
      const line = refused.lines.find((l) => l.includes('database schema refused'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 'ERROR', problem: expect.stringContaining(problem) });
      // Counted where the rollback alarm AuthorizerFailures reads it.
      expect(refused.lines.some((l) => l.includes('"_aws"') && l.includes('"authorizer_failure"'))).toBe(true);

      const swept = await invokeBundle(
        bundles.sweeper,
        'naaba-sweeper',
        envOf(/naaba sweeper/, 'naaba-sweeper'),
        scheduledEvent(),
      );
      expect(swept.lines.join('\n')).toContain(problem);

      // The MCP function: the request fails (Lambda's Errors, which the rollback alarm McpErrors reads), and the log says why.
      const principal = { userId: '00000000-0000-4000-8000-000000000001', region: 'aws-eu-central-1', agent: 'a', keyId: 'k' };
      const recall = await invokeBundle(
        bundles.mcp,
        'naaba-mcp',
        envOf(/MCP endpoint: stateless/, 'naaba-mcp'),
        mcpCall('tools/call', { name: 'recall', arguments: { query: 'anything' } }, principal),
      );
      const answered = recall.result as { statusCode: number; body: string } | undefined;
      const served = answered !== undefined && answered.statusCode === 200 && !answered.body.includes('"isError":true');
      expect({ served, logged: recall.lines.some((l) => l.includes('database schema refused') && l.includes(problem)) }).toEqual({
        served: false,
        logged: true,
      });
    } finally {
      await db.query(sql`DELETE FROM naaba_migrations WHERE version = '9999_drop_x.sql'`);
      await db.close();
    }
  });

  test('OAuth from the shipped bundles: register, consent with the key, exchange, and the authorizer allows the access token', async () => {
    const mcpEnv = envOf(/MCP endpoint: stateless/, 'naaba-mcp');
    const http = async (event: ReturnType<typeof proxyEvent>) =>
      (await invokeBundle(bundles.mcp, 'naaba-mcp', mcpEnv, event)).result as {
        statusCode: number;
        headers: Record<string, string>;
        body: string;
      };
    const form = (method: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) => {
      const event = proxyEvent({ method, path, headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers } });
      return { ...event, body: new URLSearchParams(fields).toString() };
    };
    const redirectUri = 'http://127.0.0.1:9999/callback';
    const { verifier, challenge } = pkce();

    const registered = await http(
      proxyEvent({
        method: 'POST',
        path: '/oauth/register',
        body: { client_name: 'Bundle Client', redirect_uris: [redirectUri] },
      }),
    );
    expect(registered.statusCode).toBe(201);
    const clientId = (JSON.parse(registered.body) as { client_id: string }).client_id;
    const query = {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    const page = await http({
      ...proxyEvent({ method: 'GET', path: '/oauth/authorize' }),
      queryStringParameters: query,
      multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    });
    expect(page.statusCode).toBe(200);
    const cookie = page.headers['set-cookie']?.split(';')[0] ?? '';
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const origin = 'https://a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com';
    const consented = await http(
      form('POST', '/oauth/authorize', { ...query, csrf, key: token, decision: 'allow' }, { Cookie: cookie, Origin: origin }),
    );
    expect(consented.statusCode).toBe(303);
    const code = new URL(consented.headers.location ?? '').searchParams.get('code') ?? '';
    const exchanged = await http(
      form('POST', '/oauth/token', {
        grant_type: 'authorization_code',
        client_id: clientId,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    );
    expect(exchanged.statusCode).toBe(200);
    const access = (JSON.parse(exchanged.body) as { access_token: string }).access_token;

    const authorized = (
      await invokeBundle(
        bundles.authorizer,
        'naaba-authorizer',
        envOf(/authorizer/, 'naaba-authorizer'),
        tokenEvent(`Bearer ${access}`),
      )
    ).result as { policyDocument: { Statement: { Effect: string }[] }; context: Record<string, string> };
    expect(authorized.policyDocument.Statement.map((s) => s.Effect)).toEqual(['Allow']);
    expect(authorized.context.agent).toBe('Bundle Client');
  });
}
