import { Template } from 'aws-cdk-lib/assertions';
import { GATEWAY_RESPONSES } from '../../lambda/http/api-gateway.js';
import { GATEWAY_REFUSALS } from '../../lib/constructs/mcp-api.js';
import {
  buildApp,
  CDK_CONTEXT,
  environmentOf,
  firstStack,
  flat,
  functionId,
  type Json,
  logicalId,
  managedPolicies,
  REGIONS,
  roleStatements,
  type Statement,
} from './support.js';

type FunctionName = 'mcp' | 'authorizer' | 'sweeper';
const regionsContext = CDK_CONTEXT['naaba:regions'] as Record<string, { secrets: Record<FunctionName | 'verifyKey', string> }>;
const concurrency = CDK_CONTEXT['naaba:concurrency'] as { authorizerReserved: number | 'none'; mcpReserved: number | 'none' };
const bedrock = CDK_CONTEXT['naaba:bedrock'] as {
  embeddingModel: string;
  judgeModel: string;
  judgeProfiles: Record<string, string[]>;
};
const api = CDK_CONTEXT['naaba:api'] as {
  authorizerCacheSeconds: number;
  rateLimit: number;
  burstLimit: number;
  stageName: string;
};
const sweeper = CDK_CONTEXT['naaba:sweeper'] as { schedule: string; retryAttempts: number; maxEventAgeHours: number };

const templates = new Map<string, Template>();
beforeAll(() => {
  const { stacks } = buildApp();
  for (const stack of stacks) templates.set(stack.region, Template.fromStack(stack));
});

const templateOf = (region: string) => templates.get(region) as Template;
const bySid = (a: Statement, b: Statement) => (a.Sid ?? String(a.Action)).localeCompare(b.Sid ?? String(b.Action));
const ids = (template: Template) => ({
  mcp: functionId(template, /MCP endpoint/),
  authorizer: functionId(template, /authorizer/),
  sweeper: functionId(template, /sweeper/),
});
/** `${LogGroupId.Arn}` of the function's own log group. */
const ownLogs = (template: Template, fnId: string) => {
  const fn = template.toJSON().Resources[fnId] as { Properties: { LoggingConfig: { LogGroup: Json } } };
  return `${String(flat(fn.Properties.LoggingConfig.LogGroup)).slice(0, -1)}.Arn}`;
};
/** The one secret a function may read: its own login's (decision 0093). */
const secretArn = (region: string, fn: FunctionName) =>
  `arn:aws:secretsmanager:${region}:\${AWS::AccountId}:secret:${regionsContext[region]?.secrets[fn]}-??????`;

function expectedBedrock(region: string): Statement[] {
  const [geography, routes] = Object.entries(bedrock.judgeProfiles).find(([, rs]) => rs.includes(region)) ?? [];
  return [
    {
      Sid: 'EmbedWithTitan',
      Effect: 'Allow',
      Action: 'bedrock:InvokeModel',
      Resource: `arn:aws:bedrock:${region}::foundation-model/${bedrock.embeddingModel}`,
    },
    {
      Sid: 'JudgeThroughGeographyProfile',
      Effect: 'Allow',
      Action: 'bedrock:InvokeModel',
      Resource: [
        ...(routes ?? []).map((r) => `arn:aws:bedrock:${r}::foundation-model/${bedrock.judgeModel}`),
        `arn:aws:bedrock:${region}:\${AWS::AccountId}:inference-profile/${geography}.${bedrock.judgeModel}`,
      ],
    },
  ];
}

describe.each(REGIONS)('region %s', (region) => {
  describe('IAM: exactly these statements, nothing else', () => {
    const common = (template: Template, fnId: string, fn: FunctionName): Statement[] => [
      {
        Sid: 'WriteOwnLogGroup',
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: ownLogs(template, fnId),
      },
      { Sid: 'ReadDatabaseSecret', Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: secretArn(region, fn) },
    ];

    test('the MCP function: its logs, its own secret, the embedding model, the judge profile and its routed models', () => {
      const template = templateOf(region);
      const { mcp } = ids(template);

      const statements = roleStatements(template, mcp);

      expect(statements.sort(bySid)).toEqual([...common(template, mcp, 'mcp'), ...expectedBedrock(region)].sort(bySid));
      expect(managedPolicies(template, mcp)).toEqual([`arn:\${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess`]);
    });

    test('the authorizer: its logs and its own secret', () => {
      const template = templateOf(region);
      const { authorizer } = ids(template);

      expect(roleStatements(template, authorizer).sort(bySid)).toEqual(common(template, authorizer, 'authorizer').sort(bySid));
      // Traced (issue 48): X-Ray's write actions take no resource, so the AWS managed policy of just them.
      expect(managedPolicies(template, authorizer)).toEqual([`arn:\${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess`]);
    });

    test('the sweeper: its logs, its own secret, and sending to its own dead-letter queue', () => {
      const template = templateOf(region);
      const { sweeper: fn } = ids(template);
      const dlq = logicalId(template, 'AWS::SQS::Queue');

      const expected: Statement[] = [
        ...common(template, fn, 'sweeper'),
        { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: `\${${dlq}.Arn}` },
      ];
      expect(roleStatements(template, fn).sort(bySid)).toEqual(expected.sort(bySid));
      expect(managedPolicies(template, fn)).toEqual([`arn:\${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess`]);
    });

    test('no statement the project writes has a wildcard resource, nor an Allow a wildcard action', () => {
      const template = templateOf(region);
      const documents = [
        ...Object.values(template.findResources('AWS::IAM::Policy')).map((p) => p.Properties.PolicyDocument),
        ...Object.values(template.findResources('AWS::IAM::Role')).flatMap((r) =>
          (r.Properties.Policies ?? []).map((p: { PolicyDocument: Json }) => p.PolicyDocument),
        ),
        ...Object.values(template.findResources('AWS::SQS::QueuePolicy')).map((p) => p.Properties.PolicyDocument),
      ];
      const statements = documents.flatMap((d) => flat(d.Statement) as unknown as Statement[]);

      expect(statements.length).toBeGreaterThan(5);
      for (const s of statements) {
        for (const resource of [s.Resource].flat()) expect(String(resource)).not.toContain('*');
        // A Deny may be broad: the queue refuses every sqs:* call made without TLS.
        if (s.Effect === 'Allow') for (const action of [s.Action].flat()) expect(action).not.toContain('*');
      }
    });
  });

  describe('API', () => {
    const methods = (template: Template) => {
      const resources = template.findResources('AWS::ApiGateway::Resource');
      // A resource's full path: its parent's (a Ref to another resource, or the API's root) and its own part.
      const pathOf = (id: string | undefined): string => {
        const r = id === undefined ? undefined : resources[id];
        if (!r) return '';
        return `${pathOf(r.Properties.ParentId?.Ref)}/${r.Properties.PathPart}`;
      };
      return Object.values(template.findResources('AWS::ApiGateway::Method')).map((m) => ({
        route: `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId.Ref) || '/'}`,
        authorization: m.Properties.AuthorizationType as string,
        authorizer: m.Properties.AuthorizerId ? flat(m.Properties.AuthorizerId) : undefined,
      }));
    };

    test('POST /mcp and ANY /api/{proxy+} have the TOKEN authorizer; GET /healthz, the page files, the OAuth routes (with OPTIONS for preflights) and GET, DELETE /mcp have none', () => {
      const template = templateOf(region);
      const authorizer = logicalId(template, 'AWS::ApiGateway::Authorizer');

      expect(methods(template).sort((a, b) => a.route.localeCompare(b.route))).toEqual([
        { route: 'ANY /api/{proxy+}', authorization: 'CUSTOM', authorizer: `\${${authorizer}}` },
        { route: 'DELETE /mcp', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /.well-known/oauth-authorization-server', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /.well-known/oauth-protected-resource', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /.well-known/oauth-protected-resource/mcp', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /app.css', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /app.js', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /healthz', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /mcp', authorization: 'NONE', authorizer: undefined },
        { route: 'GET /oauth/authorize', authorization: 'NONE', authorizer: undefined },
        { route: 'OPTIONS /.well-known/oauth-authorization-server', authorization: 'NONE', authorizer: undefined },
        { route: 'OPTIONS /.well-known/oauth-protected-resource', authorization: 'NONE', authorizer: undefined },
        { route: 'OPTIONS /.well-known/oauth-protected-resource/mcp', authorization: 'NONE', authorizer: undefined },
        { route: 'OPTIONS /oauth/register', authorization: 'NONE', authorizer: undefined },
        { route: 'OPTIONS /oauth/revoke', authorization: 'NONE', authorizer: undefined },
        { route: 'OPTIONS /oauth/token', authorization: 'NONE', authorizer: undefined },
        { route: 'POST /mcp', authorization: 'CUSTOM', authorizer: `\${${authorizer}}` },
        { route: 'POST /oauth/authorize', authorization: 'NONE', authorizer: undefined },
        { route: 'POST /oauth/register', authorization: 'NONE', authorizer: undefined },
        { route: 'POST /oauth/revoke', authorization: 'NONE', authorizer: undefined },
        { route: 'POST /oauth/token', authorization: 'NONE', authorizer: undefined },
      ]);
    });

    test("the authorizer reads the Authorization header, calls the authorizer function's live alias and caches briefly", () => {
      const template = templateOf(region);
      const authorizer = logicalId(template, 'AWS::Lambda::Alias', { FunctionName: { Ref: ids(template).authorizer } });

      template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: api.authorizerCacheSeconds,
      });
      const uri = flat(
        template.findResources('AWS::ApiGateway::Authorizer')[logicalId(template, 'AWS::ApiGateway::Authorizer')]?.Properties
          .AuthorizerUri,
      );
      expect(JSON.stringify(uri)).toContain(`\${${authorizer}}/invocations`);
    });

    test('the UNAUTHORIZED gateway response points OAuth clients at the protected resource metadata of this API', () => {
      const template = templateOf(region);
      const [response] = Object.values(
        template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: 'UNAUTHORIZED' } }),
      );
      const restApi = logicalId(template, 'AWS::ApiGateway::RestApi');

      expect(response?.Properties.StatusCode).toBe('401');
      expect(flat(response?.Properties.ResponseParameters)).toEqual({
        'gatewayresponse.header.WWW-Authenticate': `'Bearer resource_metadata="https://\${${restApi}}.execute-api.\${AWS::Region}.\${AWS::URLSuffix}/${api.stageName}/.well-known/oauth-protected-resource/mcp", scope="memory"'`,
      });
      expect(response?.Properties.ResponseTemplates).toEqual({ 'application/json': GATEWAY_RESPONSES.unauthorized.body });
    });

    test.each([['ACCESS_DENIED', GATEWAY_RESPONSES.accessDenied]] as const)(
      'the %s gateway response is the one lambda/http/api-gateway.ts declares',
      (type, response) => {
        const template = templateOf(region);

        template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
          ResponseType: type,
          StatusCode: String(response.status),
          ResponseParameters: Object.fromEntries(
            Object.entries(response.headers).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`]),
          ),
          ResponseTemplates: { 'application/json': response.body },
        });
      },
    );

    test.each(['AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR'])(
      'a failing authorizer (%s) answers 503 with Retry-After and a JSON message, not a bare 500',
      (type) => {
        const template = templateOf(region);

        template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
          ResponseType: type,
          StatusCode: '503',
          ResponseParameters: { 'gatewayresponse.header.Retry-After': "'5'" },
          ResponseTemplates: { 'application/json': GATEWAY_REFUSALS.authorizerFailure.body },
        });
        expect(JSON.parse(GATEWAY_REFUSALS.authorizerFailure.body)).toEqual({
          message: 'the endpoint cannot check keys right now; retry in a few seconds',
        });
      },
    );

    test("by default the stack sets the region's API Gateway account role, kept on delete, before the stage", () => {
      const template = templateOf(region);
      const account = logicalId(template, 'AWS::ApiGateway::Account');
      const role = String(flat(template.toJSON().Resources[account].Properties.CloudWatchRoleArn)).replace(
        /^\$\{(\w+)\.Arn\}$/,
        '$1',
      );
      const resources = template.toJSON().Resources;

      expect(resources[role]).toMatchObject({
        Type: 'AWS::IAM::Role',
        DeletionPolicy: 'Retain',
        Properties: {
          AssumeRolePolicyDocument: {
            Statement: [{ Action: 'sts:AssumeRole', Principal: { Service: 'apigateway.amazonaws.com' } }],
          },
        },
      });
      expect(flat(resources[role].Properties.ManagedPolicyArns)).toEqual([
        `arn:\${AWS::Partition}:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs`,
      ]);
      expect(resources[account].DeletionPolicy).toBe('Retain');
      expect(resources[logicalId(template, 'AWS::ApiGateway::Stage')].DependsOn).toContain(account);
    });

    test('the stage is throttled, tighter on /healthz, and access-logged to a log group with a retention', () => {
      const template = templateOf(region);
      const stage = template.findResources('AWS::ApiGateway::Stage')[logicalId(template, 'AWS::ApiGateway::Stage')];
      const retention = (CDK_CONTEXT['naaba:logs'] as { retentionDays: number }).retentionDays;

      expect(stage?.Properties.StageName).toBe(api.stageName);
      expect(stage?.Properties.MethodSettings).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: api.rateLimit,
            ThrottlingBurstLimit: api.burstLimit,
          }),
          expect.objectContaining({ HttpMethod: 'GET', ResourcePath: '/~1healthz' }),
        ]),
      );
      const destination = String(flat(stage?.Properties.AccessLogSetting.DestinationArn));
      const logs = /:log-group:\$\{(\w+)\}$/.exec(destination)?.[1] ?? '';
      expect(template.toJSON().Resources[logs]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: retention },
      });
      const format = String(stage?.Properties.AccessLogSetting.Format);
      expect(format).toContain('$context.requestId');
      expect(format).not.toMatch(/\$input|\$context\.identity\.apiKey|header/i);
    });
  });

  describe('functions', () => {
    test('all three run Node.js 24 on arm64, each with its own log group; all three are traced', () => {
      const template = templateOf(region);
      const { mcp, authorizer, sweeper: fn } = ids(template);
      const resources = template.toJSON().Resources;

      for (const id of [mcp, authorizer, fn]) {
        expect(resources[id].Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'] });
      }
      for (const id of [mcp, authorizer, fn]) expect(resources[id].Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(new Set([mcp, authorizer, fn].map((id) => ownLogs(template, id))).size).toBe(3);
    });

    test('each function is told the name of its own secret, never a connection string', () => {
      const template = templateOf(region);
      const all = Object.entries(ids(template)).map(([fn, id]) => [fn as FunctionName, environmentOf(template, id)] as const);

      expect(template.findResources('AWS::SecretsManager::Secret')).toEqual({});
      expect(new Set(all.map(([, env]) => env.NAABA_DATABASE_SECRET_ID)).size).toBe(3);
      for (const [fn, env] of all) {
        expect(env.NAABA_DATABASE_SECRET_ID).toBe(regionsContext[region]?.secrets[fn]);
        expect(env.NAABA_DATABASE_URL).toBeUndefined();
        // CockroachDB Cloud's name of the AWS region (naaba:database.regionNames): rows are homed by it.
        expect(env.NAABA_REGION).toBe(`aws-${region}`);
      }
      expect(JSON.stringify(template.toJSON())).not.toMatch(/postgres(ql)?:\/\//);
    });

    test(`the authorizer has ${concurrency.authorizerReserved} reserved (cdk.json), the MCP function ${concurrency.mcpReserved}, the sweeper none`, () => {
      const template = templateOf(region);
      const resources = template.toJSON().Resources;
      const reserved = (id: string) => resources[id].Properties.ReservedConcurrentExecutions;
      const { mcp, authorizer, sweeper: fn } = ids(template);

      expect([reserved(authorizer), reserved(mcp), reserved(fn)]).toEqual([
        concurrency.authorizerReserved === 'none' ? undefined : concurrency.authorizerReserved,
        concurrency.mcpReserved === 'none' ? undefined : concurrency.mcpReserved,
        undefined,
      ]);
    });

    test('only the MCP function is told about Bedrock, with the models its policy allows', () => {
      const template = templateOf(region);
      const { mcp, authorizer, sweeper: fn } = ids(template);
      const [geography] = Object.entries(bedrock.judgeProfiles).find(([, rs]) => rs.includes(region)) ?? [];

      expect(environmentOf(template, mcp)).toMatchObject({
        NAABA_EMBEDDER: 'bedrock',
        NAABA_JUDGE: 'bedrock',
        NAABA_BEDROCK_EMBEDDING_MODEL: bedrock.embeddingModel,
        NAABA_BEDROCK_JUDGE_MODEL: `${geography}.${bedrock.judgeModel}`,
      });
      for (const id of [authorizer, fn])
        expect(Object.keys(environmentOf(template, id)).filter((k) => k.includes('BEDROCK'))).toEqual([]);
    });
  });

  describe('sweeper', () => {
    test('the schedule targets the sweeper, with retries and the dead-letter queue', () => {
      const template = templateOf(region);
      const { sweeper: fn } = ids(template);
      const dlq = logicalId(template, 'AWS::SQS::Queue');
      const maxAge = sweeper.maxEventAgeHours * 3600;

      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: sweeper.schedule,
        State: 'ENABLED',
        Targets: [
          {
            Arn: { 'Fn::GetAtt': [fn, 'Arn'] },
            Id: 'Target0',
            RetryPolicy: { MaximumRetryAttempts: sweeper.retryAttempts, MaximumEventAgeInSeconds: maxAge },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': [dlq, 'Arn'] } },
          },
        ],
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [fn, 'Arn'] },
      });
    });

    test('the dead-letter queue exists, is encrypted, receives failed runs, and is watched by an alarm', () => {
      const template = templateOf(region);
      const { sweeper: fn } = ids(template);
      const dlq = logicalId(template, 'AWS::SQS::Queue');

      template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
      template.hasResourceProperties('AWS::Lambda::Function', {
        DeadLetterConfig: { TargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] } },
      });
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: fn },
        MaximumRetryAttempts: sweeper.retryAttempts,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
        Threshold: 0,
      });
    });
  });
});

test('the MCP function alone gets the text language (neutral unless cdk.json says otherwise) and its Host rule', () => {
  const { template } = firstStack({});
  const { mcp, authorizer, sweeper: fn } = ids(template);

  expect(environmentOf(template, mcp).NAABA_TEXT_LANGUAGE).toBe('neutral');
  // API Gateway routes only its own host names: the function checks Origin, not Host.
  expect(environmentOf(template, mcp).NAABA_ALLOWED_HOSTS).toBe('*');
  expect(environmentOf(template, authorizer).NAABA_TEXT_LANGUAGE).toBeUndefined();
  expect(environmentOf(template, fn).NAABA_TEXT_LANGUAGE).toBeUndefined();
});

test.each([
  ['for every region', { 'naaba:api': { ...api, accountRole: 'existing' } }, [] as string[]],
  [
    'for one region',
    {
      'naaba:regions': {
        ...regionsContext,
        [REGIONS[0] as string]: { ...regionsContext[REGIONS[0] as string], apiAccountRole: 'existing' },
      },
    },
    REGIONS.slice(1),
  ],
])('accountRole "existing" %s: those stacks leave the account setting alone', (_name, overrides, creating) => {
  const { stacks } = buildApp(overrides);

  const setting = stacks.filter((s) => Object.keys(Template.fromStack(s).findResources('AWS::ApiGateway::Account')).length === 1);

  expect(setting.map((s) => s.region)).toEqual(creating);
  for (const stack of stacks.filter((s) => !creating.includes(s.region))) {
    expect(
      Object.values(Template.fromStack(stack).findResources('AWS::IAM::Role')).map(
        (r) => r.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service,
      ),
    ).not.toContain('apigateway.amazonaws.com');
  }
});

test('one stack per region of cdk.json, named after it', () => {
  const { stacks } = buildApp();

  expect(stacks.map((s) => [s.stackName, s.region])).toEqual(REGIONS.map((r) => [`naaba-${r}`, r]));
});

test('curation rules from cdk.json reach the MCP function and the sweeper alike, and nothing else', () => {
  const rules = { kinds: { fact: { ceiling: 300 }, session: { ceiling: 50, ttl: '12h' } }, pin_limit: 20 };
  const { template } = firstStack({ 'naaba:curation': rules });
  const { mcp, authorizer, sweeper: fn } = ids(template);

  expect(JSON.parse(environmentOf(template, mcp).NAABA_CURATION ?? 'null')).toEqual(rules);
  expect(environmentOf(template, fn).NAABA_CURATION).toBe(environmentOf(template, mcp).NAABA_CURATION);
  expect(environmentOf(template, authorizer).NAABA_CURATION).toBeUndefined();
});

test('reserved concurrency comes from cdk.json, and "none" reserves nothing', () => {
  const reservedOf = (context: Record<string, unknown>) => {
    const { template } = firstStack({ 'naaba:concurrency': context });
    const resources = template.toJSON().Resources;
    return [/authorizer:/, /MCP endpoint/].map((d) => resources[functionId(template, d)].Properties.ReservedConcurrentExecutions);
  };

  expect(reservedOf({ authorizerReserved: 7, mcpReserved: 40 })).toEqual([7, 40]);
  expect(reservedOf({ authorizerReserved: 'none' })).toEqual([undefined, undefined]);
});

test('the security notes name every AWS managed policy the stack attaches, in every network mode, and no other', async () => {
  const { readFileSync } = await import('node:fs');
  const { vpcContext } = await import('./support.js');
  const doc = readFileSync(new URL('../../docs/deployment.md', import.meta.url), 'utf8');
  const bullet = /^- \*\*AWS managed policies attached\*\*[\s\S]*?(?=\n- )/m.exec(doc)?.[0] ?? '';
  const named = [...bullet.matchAll(/`((?:AWS|Amazon)[A-Za-z]+)`/g)].map((m) => m[1]).sort();
  const attached = new Set<string>();
  for (const context of [{}, vpcContext()]) {
    const { template } = firstStack(context);
    for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
      for (const arn of role.Properties.ManagedPolicyArns ?? []) attached.add(String(flat(arn)).split('/').pop() ?? '');
    }
  }

  expect(named).toEqual([...attached].sort());
  expect(named).not.toContain('AWSCodeDeployRoleForLambdaLimited');
});
