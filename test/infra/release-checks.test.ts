import { jest } from '@jest/globals';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgSqlClient } from '../../lambda/adapters/pg/pg-client.js';
import { SqlKeyStore } from '../../lambda/adapters/pg/stores/sql-key-store.js';
import { KeyService } from '../../lambda/auth/keys.js';
import { systemClock } from '../../lambda/ports/clock.js';
import { BedrockStub, bedrockError, converseAnswer, DUMMY_CREDENTIALS, titanAnswer } from '../providers/support/bedrock-stub.js';
import { type AwsStandIn, secretsAnswer, startAwsStandIn, type StandInRequest } from '../support/aws-stand-in.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { postgresForTests } from '../support/pg-server.js';
import { BUNDLE_ROOT, buildLambdaBundle, invokeBundle, type LambdaBundle } from './lambda-bundle.js';
import { environmentOf, firstStack, functionId, timeoutOf } from './support.js';

/**
 * The release checks (decision 0091) from their shipped bundle, as CodeDeploy runs them: a
 * lifecycle-hook event in, a verdict reported to CodeDeploy out. The new versions they invoke are
 * the shipped MCP and authorizer bundles (or broken ones), run as the Lambda runtime runs them
 * behind a Lambda Invoke stand-in, over a throwaway PostgreSQL, with Bedrock, Secrets Manager,
 * CodeDeploy and CloudWatch stand-ins reached by the real SDK clients.
 */
const server = await postgresForTests('release checks against the shipped bundles');

const ACCOUNT = '123456789012';
const arnOf = (name: string, version: number) => `arn:aws:lambda:eu-central-1:${ACCOUNT}:function:${name}:${version}`;
const KEY_SECRET = 'naaba/test/verify-key';
const DB_SECRET = 'naaba/test/database';

if (server) {
  jest.setTimeout(HEAVY_STEP_MS);
  const { stack, template } = firstStack();
  const outDir = `${BUNDLE_ROOT}/release-${process.pid}`;
  let bundles: Record<'mcp' | 'authorizer' | 'check', LambdaBundle>;
  let bedrock: BedrockStub;
  let secrets: AwsStandIn;
  let lambda: AwsStandIn;
  let codedeploy: AwsStandIn;
  let cloudwatch: AwsStandIn;
  /** What each published version the Lambda stand-in serves runs: a bundle file and the function's environment. */
  const versions = new Map<string, { file: string; name: string; env: Record<string, string> }>();
  const alarmStates = new Map<string, string>();
  let keyToken = '';

  /** The environment the stack gives a function, with the stand-ins where AWS would be. */
  const envOf = (description: RegExp, name: string): Record<string, string> => ({
    ...environmentOf(template, functionId(template, description)),
    NAABA_DATABASE_SECRET_ID: DB_SECRET,
    NAABA_DB_ENGINE: 'postgres',
    NAABA_BEDROCK_ENDPOINT: bedrock.url,
    NAABA_EMBEDDER_TIMEOUT_MS: '60000',
    NAABA_EMBEDDER_BUDGET_MS: '120000',
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
    AWS_REGION: stack.region,
    AWS_ACCESS_KEY_ID: DUMMY_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: DUMMY_CREDENTIALS.secretAccessKey,
    AWS_LAMBDA_FUNCTION_NAME: name,
  });

  /** Lambda's Invoke, answered by running the version's bundle; a bundle that does not load is an Unhandled error. */
  async function invokeAnswer(request: StandInRequest) {
    const name = decodeURIComponent(/\/functions\/([^/]+)\/invocations/.exec(request.path)?.[1] ?? '');
    const version = versions.get(name);
    if (!version) return { status: 404, body: { __type: 'ResourceNotFoundException', message: `Function not found: ${name}` } };
    const failed = (errorType: string, errorMessage: string) => ({
      headers: { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': name.split(':').pop() ?? '' },
      body: { errorType, errorMessage },
    });
    try {
      const run = await invokeBundle({ file: version.file }, version.name, version.env, JSON.parse(request.body));
      if (run.failure !== undefined) return failed('Error', run.failure);
      return { body: run.result };
    } catch {
      return failed('Runtime.ImportModuleError', 'the bundle did not load');
    }
  }

  /** A hand-written stand-in for a broken release: a file in the bundle's place. */
  const brokenFile = (name: string, source: string): string => {
    const dir = join(outDir, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'index.js'), source);
    return join(dir, 'index.js');
  };

  beforeAll(async () => {
    const [mcp, authorizer, check] = await Promise.all(
      (['mcp', 'authorizer', 'release-check'] as const).map((entry) => buildLambdaBundle(entry, { outDir })),
    );
    bundles = { mcp: mcp as LambdaBundle, authorizer: authorizer as LambdaBundle, check: check as LambdaBundle };
    const db = await PgSqlClient.connect({ url: server.url, maxConnections: 1, statementTimeoutMs: 10_000, engine: 'postgres' });
    await migrate(db, { embeddingDimensions: 1024 });
    const region = environmentOf(template, functionId(template, /authorizer:/)).NAABA_REGION ?? '';
    const key = await new KeyService(new SqlKeyStore(db), systemClock).issue('release check', region);
    keyToken = key.token;
    await db.close();
    [bedrock, secrets, lambda, codedeploy, cloudwatch] = await Promise.all([
      BedrockStub.start(),
      startAwsStandIn(secretsAnswer({ [KEY_SECRET]: key.token, [DB_SECRET]: server.url })),
      startAwsStandIn(invokeAnswer),
      startAwsStandIn((request) =>
        request.target?.endsWith('.GetDeployment')
          ? { body: { deploymentInfo: { deploymentGroupName: 'naaba-mcp-group' } } }
          : { body: { lifecycleEventHookExecutionId: 'hook-1' } },
      ),
      startAwsStandIn((request) => {
        const { AlarmNames = [] } = JSON.parse(request.body || '{}') as { AlarmNames?: string[] };
        const found = AlarmNames.filter((n) => alarmStates.has(n));
        return { body: { MetricAlarms: found.map((n) => ({ AlarmName: n, StateValue: alarmStates.get(n) })) } };
      }),
    ]);
    bedrock.script.set([], titanAnswer(Array.from({ length: 1024 }, (_, i) => (i === 3 ? 1 : 0))));
    bedrock.script.converse = converseAnswer('same');
  });
  afterAll(async () => {
    await Promise.all([bedrock?.close(), secrets?.close(), lambda?.close(), codedeploy?.close(), cloudwatch?.close()]);
    await server.stop();
    rmSync(outDir, { recursive: true, force: true });
  });

  /** The new versions of a release: version 7 of the MCP function and of the authorizer, from these files. */
  function release(files: { mcp?: string; authorizer?: string } = {}): void {
    versions.clear();
    versions.set(arnOf('naaba-mcp', 7), {
      file: files.mcp ?? bundles.mcp.file,
      name: 'naaba-mcp',
      env: envOf(/MCP endpoint/, 'naaba-mcp'),
    });
    versions.set(arnOf('naaba-authorizer', 7), {
      file: files.authorizer ?? bundles.authorizer.file,
      name: 'naaba-authorizer',
      env: envOf(/authorizer:/, 'naaba-authorizer'),
    });
  }

  /** Runs one hook of the check's shipped bundle; returns the status it reported and its log lines. */
  async function hook(phase: 'beforeTraffic' | 'afterTraffic', extra: Record<string, string> = {}) {
    const reported = codedeploy.requests.length;
    const env = {
      NAABA_REGION: environmentOf(template, functionId(template, /authorizer:/)).NAABA_REGION ?? '',
      NAABA_LOG_LEVEL: 'INFO',
      NAABA_CHECK_MCP: arnOf('naaba-mcp', 7),
      NAABA_CHECK_AUTHORIZER: arnOf('naaba-authorizer', 7),
      NAABA_CHECK_KEY_SECRET_ID: KEY_SECRET,
      AWS_ENDPOINT_URL_LAMBDA: lambda.url,
      AWS_ENDPOINT_URL_CODEDEPLOY: codedeploy.url,
      AWS_ENDPOINT_URL_CLOUDWATCH: cloudwatch.url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
      AWS_REGION: stack.region,
      AWS_ACCESS_KEY_ID: DUMMY_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: DUMMY_CREDENTIALS.secretAccessKey,
      AWS_LAMBDA_FUNCTION_NAME: 'naaba-release-check',
      ...extra,
    };
    const event = { DeploymentId: 'd-TEST12345', LifecycleEventHookExecutionId: 'hook-execution-1' };
    // The hook's own timeout (minutes): under load its eight invocations can take longer than the MCP function's 25 s.
    const hookFunction = functionId(
      template,
      phase === 'beforeTraffic' ? /release check before traffic/ : /release check after traffic/,
    );
    const run = await invokeBundle(bundles.check, 'naaba-release-check', env, event, phase, timeoutOf(template, hookFunction));
    const statuses = codedeploy.requests
      .slice(reported)
      .filter((r) => r.target?.endsWith('.PutLifecycleEventHookExecutionStatus'))
      .map((r) => JSON.parse(r.body) as { deploymentId: string; lifecycleEventHookExecutionId: string; status: string });
    return { statuses, lines: run.lines, failure: run.failure };
  }

  const JUDGE = "MCP function: the judge answers (two remembers and a forget of the verification key's own memories)";
  const checkLines = (lines: string[]) =>
    lines
      .filter((l) => l.includes('"release check"'))
      .map((l) => JSON.parse(l) as { check: string; ok: boolean; detail: string })
      .map((l) => `${l.ok ? 'pass' : 'FAIL'} ${l.check}`);
  /** The checks' outcomes must be these; when they are not, the check's whole output (each check's detail) is printed, to say why. */
  const expectChecks = (lines: string[], expected: string[], which: (line: string) => boolean = () => true) => {
    const seen = checkLines(lines).filter(which);
    if (JSON.stringify(seen) !== JSON.stringify(expected)) {
      console.error(`the release check wrote:\n${lines.filter((l) => l.trim()).join('\n')}`);
    }
    expect(seen).toEqual(expected);
  };
  const expectFailing = (lines: string[], expected: string[]) => expectChecks(lines, expected, (l) => l.startsWith('FAIL'));

  test('a good release passes every check before traffic, and the hook says Succeeded to CodeDeploy', async () => {
    release();

    const { statuses, lines, failure } = await hook('beforeTraffic');

    // A hook that threw says why here, with the lines it wrote before.
    expect({ failure, lines: failure === undefined ? [] : lines }).toEqual({ failure: undefined, lines: [] });
    expectChecks(lines, [
      'pass MCP function: GET /healthz',
      'pass authorizer: an unknown key is refused',
      'pass authorizer: the verification key is allowed',
      'pass MCP function: tools/list',
      'pass MCP function: recall with the verification key',
      `pass ${JUDGE}`,
    ]);
    expect(statuses).toEqual([
      { deploymentId: 'd-TEST12345', lifecycleEventHookExecutionId: 'hook-execution-1', status: 'Succeeded' },
    ]);
    // Bedrock was called through the MCP bundle's real client: the recall embedded its query.
    expect(bedrock.script.received.some((r) => r.path.includes('/invoke'))).toBe(true);
    // The key is in the secret and in the authorizer's event, never in a line the check wrote.
    expect(lines.join('\n')).not.toContain(keyToken);
  });

  test.each([
    [
      'an MCP bundle that does not load',
      () => ({ mcp: brokenFile('mcp-broken', "throw new Error('Cannot find module \\'./missing\\'');") }),
      [
        'FAIL MCP function: GET /healthz',
        'FAIL MCP function: tools/list',
        'FAIL MCP function: recall with the verification key',
        `FAIL ${JUDGE}`,
      ],
    ],
    [
      'an authorizer that lets any key through',
      () => ({
        authorizer: brokenFile(
          'authorizer-open',
          "exports.handler = async (event) => ({ principalId: 'anyone', policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] }, context: {} });",
        ),
      }),
      [
        'FAIL authorizer: an unknown key is refused',
        'FAIL authorizer: the verification key is allowed',
        'FAIL MCP function: tools/list',
        'FAIL MCP function: recall with the verification key',
        `FAIL ${JUDGE}`,
      ],
    ],
  ])('a broken release (%s) is refused before any traffic: Failed', async (_name, files, failing) => {
    release(files());

    const { statuses, lines } = await hook('beforeTraffic');

    expectFailing(lines, failing);
    expect(statuses.map((s) => s.status)).toEqual(['Failed']);
  });

  test('a release whose Bedrock calls fail (access denied) is refused: the recall is a tool error', async () => {
    release();
    bedrock.script.set([], bedrockError(403, 'AccessDeniedException', 'User is not authorized to perform bedrock:InvokeModel'));
    try {
      const { statuses, lines } = await hook('beforeTraffic');

      expectFailing(lines, ['FAIL MCP function: recall with the verification key', `FAIL ${JUDGE}`]);
      expect(statuses.map((s) => s.status)).toEqual(['Failed']);
    } finally {
      bedrock.script.set([], titanAnswer(Array.from({ length: 1024 }, (_, i) => (i === 3 ? 1 : 0))));
    }
  });

  test('a release that breaks only the judge (issue 48) is refused: the judge is asked once, and its failure fails the check', async () => {
    release();
    bedrock.script.converse = bedrockError(403, 'AccessDeniedException', 'User is not authorized to perform bedrock:Converse');
    try {
      const { statuses, lines } = await hook('beforeTraffic');

      expectFailing(lines, [`FAIL ${JUDGE}`]);
      expect(statuses.map((s) => s.status)).toEqual(['Failed']);
      expect(bedrock.script.received.filter((r) => r.path.endsWith('/converse')).length).toBeGreaterThanOrEqual(1);
    } finally {
      bedrock.script.converse = converseAnswer('same');
    }
  });

  test('a verification key secret that holds no key fails the release, without printing what it holds', async () => {
    release();

    const { statuses, lines } = await hook('beforeTraffic', { NAABA_CHECK_KEY_SECRET_ID: DB_SECRET });

    expect(statuses.map((s) => s.status)).toEqual(['Failed']);
    expect(lines.join('\n')).toContain('does not hold a naaba key');
    expect(lines.join('\n')).not.toContain(server.url);
  });

  test('after traffic: the checks again, then the bake; an alarm of the deployment group in ALARM fails it', async () => {
    release();
    const bake = [{ group: 'naaba-mcp-group', alarms: ['naaba-McpReleaseErrors-v7', 'naaba-McpReleaseInternal-v7'] }];
    alarmStates.set('naaba-McpReleaseErrors-v7', 'OK');
    alarmStates.set('naaba-McpReleaseInternal-v7', 'ALARM');

    const failing = await hook('afterTraffic', { NAABA_BAKE_MINUTES: '1', NAABA_BAKE_ALARMS: JSON.stringify(bake) });

    expect(failing.statuses.map((s) => s.status)).toEqual(['Failed']);
    const baked = failing.lines.find((l) => l.includes('"release bake"')) ?? '{}';
    expect(JSON.parse(baked)).toMatchObject({
      level: 'ERROR',
      group: 'naaba-mcp-group',
      ok: false,
      firing: ['naaba-McpReleaseInternal-v7'],
    });
    expect(cloudwatch.requests.at(-1)?.target).toMatch(/\.DescribeAlarms$/);

    const notBaked = await hook('afterTraffic', { NAABA_BAKE_MINUTES: '0', NAABA_BAKE_ALARMS: JSON.stringify(bake) });
    expect({ failure: notBaked.failure, lines: notBaked.failure === undefined ? [] : notBaked.lines }).toEqual({
      failure: undefined,
      lines: [],
    });
    expect(notBaked.statuses.map((s) => s.status)).toEqual(['Succeeded']);
  });
}
