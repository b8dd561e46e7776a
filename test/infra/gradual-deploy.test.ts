import type { Template } from 'aws-cdk-lib/assertions';
import {
  CDK_CONTEXT,
  firstStack,
  flat,
  functionId,
  type Json,
  logicalId,
  REGIONS,
  roleStatements,
  type Statement,
} from './support.js';

const REGION = REGIONS[0];

/**
 * Gradual deploys (decisions 0068, 0091): the MCP and authorizer functions are published as
 * versions behind the alias `live`, API Gateway calls the aliases, and CodeDeploy moves each alias
 * as `naaba:deploy` says after a check of the new version, bakes it after the shift, and rolls
 * back on the alarms that judge that version.
 */
const deploy = CDK_CONTEXT['naaba:deploy'] as { traffic: string; percent: number; intervalMinutes: number; bakeMinutes: number };

type Resources = Record<string, { Type: string; Properties: Record<string, Json>; [key: string]: Json }>;
const resourcesOf = (template: Template) => template.toJSON().Resources as Resources;
const fnIds = (template: Template) => ({
  mcp: functionId(template, /MCP endpoint/),
  authorizer: functionId(template, /authorizer/),
  sweeper: functionId(template, /sweeper/),
});
const aliasOf = (template: Template, fnId: string) => logicalId(template, 'AWS::Lambda::Alias', { FunctionName: { Ref: fnId } });
/** The logical ids of the alarms a deployment group watches. */
const watchedAlarms = (group: { Properties: Record<string, Json> }) =>
  ((group.Properties.AlarmConfiguration as { Alarms: { Name: { Ref: string } }[] }).Alarms ?? []).map((a) => a.Name.Ref);
/** The alarm's construct id (`McpReleaseErrors`) from its logical id (`ReleaseMcpReleaseErrors7FFB9291`). */
const alarmName = (id: string) => id.replace(/^(Alarms|Release)/, '').replace(/[0-9A-F]{8}$/, '');
const checkIds = (template: Template) => ({
  before: functionId(template, /release check before traffic/),
  after: functionId(template, /release check after traffic/),
});

describe('the committed cdk.json', () => {
  const { template } = firstStack();
  const resources = resourcesOf(template);
  const ids = fnIds(template);

  test.each(['mcp', 'authorizer'] as const)(
    'the %s function: one published version, kept when replaced, behind the alias live',
    (fn) => {
      const alias = resources[aliasOf(template, ids[fn])];
      const versionId = String(flat(alias?.Properties.FunctionVersion as Json)).replace(/^\$\{(\w+)\.Version\}$/, '$1');

      expect(alias?.Properties.Name).toBe('live');
      expect(resources[versionId]).toMatchObject({
        Type: 'AWS::Lambda::Version',
        DeletionPolicy: 'Retain',
        Properties: { FunctionName: { Ref: ids[fn] } },
      });
    },
  );

  test('the sweeper has no alias: the schedule invokes the function itself, deployed at once (docs say why)', () => {
    expect(template.findResources('AWS::Lambda::Alias', { Properties: { FunctionName: { Ref: ids.sweeper } } })).toEqual({});
    template.hasResourceProperties('AWS::Events::Rule', { Targets: [{ Arn: { 'Fn::GetAtt': [ids.sweeper, 'Arn'] } }] });
  });

  test('every API route and the authorizer call the live aliases, and API Gateway may invoke only those', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const uris = methods.map((m) => JSON.stringify(flat((m.Properties.Integration as { Uri: Json }).Uri)));
    const authorizer = JSON.stringify(
      flat(Object.values(template.findResources('AWS::ApiGateway::Authorizer'))[0]?.Properties.AuthorizerUri),
    );
    const permissions = Object.values(
      template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } }),
    );

    expect(methods.length).toBeGreaterThan(10);
    for (const uri of uris) expect(uri).toContain(`/functions/\${${aliasOf(template, ids.mcp)}}/invocations`);
    expect(authorizer).toContain(`/functions/\${${aliasOf(template, ids.authorizer)}}/invocations`);
    expect(permissions.length).toBeGreaterThan(10);
    const invoked = new Set(permissions.map((p) => JSON.stringify(p.Properties.FunctionName)));
    expect([...invoked].sort()).toEqual(
      [aliasOf(template, ids.authorizer), aliasOf(template, ids.mcp)].map((id) => JSON.stringify({ Ref: id })).sort(),
    );
  });

  test.each([
    ['mcp', ['McpReleaseErrors', 'McpReleaseUnavailable', 'McpReleaseInternal', 'McpReleaseBedrock', 'McpReleaseJudge']],
    ['authorizer', ['AuthorizerReleaseFailures', 'AuthorizerCrashes']],
  ] as const)('CodeDeploy moves the %s alias after the checks, and rolls it back when %j fire', (fn, alarms) => {
    const alias = resources[aliasOf(template, ids[fn])] as {
      UpdatePolicy?: { CodeDeployLambdaAliasUpdate: Record<string, Json> };
    };
    const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
    const groupId = (update?.DeploymentGroupName as { Ref: string } | undefined)?.Ref ?? '';
    const group = resources[groupId];

    expect(update).toMatchObject({
      ApplicationName: { Ref: logicalId(template, 'AWS::CodeDeploy::Application') },
      BeforeAllowTrafficHook: { Ref: checkIds(template).before },
      AfterAllowTrafficHook: { Ref: checkIds(template).after },
    });
    expect(group?.Properties).toMatchObject({
      DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
      AlarmConfiguration: { Enabled: true },
      AutoRollbackConfiguration: {
        Enabled: true,
        Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
      },
    });
    expect(watchedAlarms(group as { Properties: Record<string, Json> }).map(alarmName)).toEqual(alarms);
    for (const id of watchedAlarms(group as { Properties: Record<string, Json> }))
      expect(resources[id]?.Type).toBe('AWS::CloudWatch::Alarm');
  });

  test.each(['mcp', 'authorizer'] as const)(
    "the %s group's release alarms read the version this deploy publishes, and carry it in their name",
    (fn) => {
      const alias = resources[aliasOf(template, ids[fn])];
      const version = String(flat(alias?.Properties.FunctionVersion as Json));
      const group = Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup')).find((g) =>
        JSON.stringify(resources[aliasOf(template, ids[fn])]?.UpdatePolicy).includes(
          Object.keys(template.findResources('AWS::CodeDeploy::DeploymentGroup')).find((id) => g === resources[id]) ?? '?',
        ),
      );
      const released = watchedAlarms(group as { Properties: Record<string, Json> }).filter((id) => id.startsWith('Release'));

      expect(released.length).toBeGreaterThan(0);
      for (const id of released) {
        const alarm = resources[id]?.Properties as Record<string, Json>;
        const text = JSON.stringify(flat(alarm));
        expect(String(flat(alarm.AlarmName as Json))).toBe(`naaba-${REGION}-${alarmName(id)}-v${version}`);
        // ExecutedVersion (Lambda's own metrics) or version (the functions' counts): never the function as a whole.
        expect(text).toMatch(new RegExp(`"(ExecutedVersion|version)","Value":"${version.replace(/[$.{}]/g, '\\$&')}"`));
      }
    },
  );

  test.each(['mcp', 'authorizer'] as const)(
    'the %s alias is updated after its hooks and the alarms its group watches (DependsOn, issue 48)',
    (fn) => {
      const alias = resources[aliasOf(template, ids[fn])] as { DependsOn?: string[]; UpdatePolicy?: Json };
      const groupId = String(
        (flat(alias.UpdatePolicy as Json) as { CodeDeployLambdaAliasUpdate: { DeploymentGroupName: string } })
          .CodeDeployLambdaAliasUpdate.DeploymentGroupName,
      ).replace(/^\$\{(\w+)\}$/, '$1');
      const watched = watchedAlarms(resources[groupId] as { Properties: Record<string, Json> });
      const { before, after } = checkIds(template);

      expect(alias.DependsOn ?? []).toEqual(expect.arrayContaining([before, after, ...watched]));
      expect(watched.length).toBeGreaterThan(1);
    },
  );

  test('the checks: before traffic they invoke the new versions with the verification key; after, they also bake on the alarms', () => {
    const { before, after } = checkIds(template);
    const envOf = (id: string) => flat(resources[id]?.Properties.Environment as Json) as { Variables: Record<string, string> };
    const versionOf = (fn: 'mcp' | 'authorizer') =>
      String(flat(resources[aliasOf(template, ids[fn])]?.Properties.FunctionVersion as Json)).replace(/\.Version\}$/, '}');

    for (const id of [before, after]) {
      expect(envOf(id).Variables).toMatchObject({
        NAABA_CHECK_MCP: versionOf('mcp'),
        NAABA_CHECK_AUTHORIZER: versionOf('authorizer'),
        NAABA_CHECK_KEY_SECRET_ID: `naaba/${REGION}/verify-key`,
      });
      expect(roleStatements(template, id).filter((s) => s.Sid === 'InvokeNewVersions')).toEqual([
        {
          Sid: 'InvokeNewVersions',
          Effect: 'Allow',
          Action: 'lambda:InvokeFunction',
          Resource: [versionOf('authorizer'), versionOf('mcp')],
        },
      ]);
      // Outside the private network: they call AWS APIs, never the database.
      expect(resources[id]?.Properties.VpcConfig).toBeUndefined();
    }
    const bake = JSON.parse(envOf(after).Variables.NAABA_BAKE_ALARMS ?? '[]') as { group: string; alarms: string[] }[];
    expect(envOf(after).Variables.NAABA_BAKE_MINUTES).toBe(String(deploy.bakeMinutes));
    expect(bake.map((g) => g.alarms.map((a) => alarmName(a.replace(/^\$\{|\}$/g, ''))))).toEqual([
      ['McpReleaseErrors', 'McpReleaseUnavailable', 'McpReleaseInternal', 'McpReleaseBedrock', 'McpReleaseJudge'],
      ['AuthorizerReleaseFailures', 'AuthorizerCrashes'],
    ]);
    // A Lambda hook runs at most 15 minutes: the bake and a margin.
    expect(resources[after]?.Properties.Timeout).toBe((deploy.bakeMinutes + 3) * 60);
  });

  test(`traffic moves as cdk.json says: ${deploy.traffic} ${deploy.percent} % for ${deploy.intervalMinutes} minutes`, () => {
    const config = logicalId(template, 'AWS::CodeDeploy::DeploymentConfig');

    expect(resources[config]?.Properties).toEqual({
      ComputePlatform: 'Lambda',
      TrafficRoutingConfig: {
        Type: 'TimeBasedCanary',
        TimeBasedCanary: { CanaryPercentage: deploy.percent, CanaryInterval: deploy.intervalMinutes },
      },
    });
    for (const group of Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'))) {
      expect(group.Properties.DeploymentConfigName).toEqual({ Ref: config });
    }
  });

  test("CodeDeploy's role: trusted by CodeDeploy only, no managed policy, this stack's two aliases, their alarms and the checks", () => {
    const roleId = String(
      flat(Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'))[0]?.Properties.ServiceRoleArn),
    ).replace(/^\$\{(\w+)\.Arn\}$/, '$1');
    const role = resources[roleId];
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap((p) => flat(p.Properties.PolicyDocument.Statement) as unknown as Statement[]);
    const { before, after } = checkIds(template);
    const alarmArns = (group: string) =>
      watchedAlarms(resources[group] as { Properties: Record<string, Json> })
        .map((id) => `\${${id}.Arn}`)
        .sort();
    const groups = Object.keys(template.findResources('AWS::CodeDeploy::DeploymentGroup'));
    const [mcpGroup, authorizerGroup] = ['Mcp', 'Authorizer'].map(
      (n) => groups.find((g) => g.startsWith(`Deployment${n}`)) ?? '',
    );
    const moves = ['lambda:GetAlias', 'lambda:GetProvisionedConcurrencyConfig', 'lambda:UpdateAlias'];
    const checks = [`\${${after}.Arn}`, `\${${before}.Arn}`];

    expect(role?.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'codedeploy.amazonaws.com' } }],
    });
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role?.Properties.Policies).toBeUndefined();
    expect(statements).toEqual([
      { Sid: 'MoveMcpAlias', Effect: 'Allow', Action: moves, Resource: `\${${aliasOf(template, ids.mcp)}}` },
      { Sid: 'ReadMcpAlarms', Effect: 'Allow', Action: 'cloudwatch:DescribeAlarms', Resource: alarmArns(mcpGroup ?? '') },
      { Sid: 'InvokeMcpChecks', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: checks },
      { Sid: 'MoveAuthorizerAlias', Effect: 'Allow', Action: moves, Resource: `\${${aliasOf(template, ids.authorizer)}}` },
      {
        Sid: 'ReadAuthorizerAlarms',
        Effect: 'Allow',
        Action: 'cloudwatch:DescribeAlarms',
        Resource: alarmArns(authorizerGroup ?? ''),
      },
      { Sid: 'InvokeAuthorizerChecks', Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: checks },
    ]);
  });

  test('the CodeDeploy application is a stack output, for the runbook', () => {
    template.hasOutput('DeployApplication', { Value: { Ref: logicalId(template, 'AWS::CodeDeploy::Application') } });
  });
});

test.each([
  [
    'linear 20 % every 3 minutes',
    { traffic: 'linear', percent: 20, intervalMinutes: 3 },
    { Type: 'TimeBasedLinear', TimeBasedLinear: { LinearPercentage: 20, LinearInterval: 3 } },
  ],
  [
    'canary 25 % for 15 minutes',
    { traffic: 'canary', percent: 25, intervalMinutes: 15 },
    { Type: 'TimeBasedCanary', TimeBasedCanary: { CanaryPercentage: 25, CanaryInterval: 15 } },
  ],
])('naaba:deploy %s', (_name, settings, routing) => {
  const { template } = firstStack({ 'naaba:deploy': settings });

  template.hasResourceProperties('AWS::CodeDeploy::DeploymentConfig', { TrafficRoutingConfig: routing });
});

test('all at once uses CodeDeploy\'s own configuration; "ignore" deploys without watching the alarms, still checked, not baked', () => {
  const { template } = firstStack({ 'naaba:deploy': { traffic: 'all-at-once', alarms: 'ignore' } });
  const groups = Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'));
  const after = functionId(template, /release check after traffic/);
  const env = template.toJSON().Resources[after].Properties.Environment.Variables;

  expect(env.NAABA_BAKE_MINUTES).toBe('0');
  for (const alias of Object.values(template.findResources('AWS::Lambda::Alias'))) {
    expect(alias.UpdatePolicy.CodeDeployLambdaAliasUpdate.BeforeAllowTrafficHook).toEqual({
      Ref: functionId(template, /release check before traffic/),
    });
  }

  expect(template.findResources('AWS::CodeDeploy::DeploymentConfig')).toEqual({});
  expect(groups).toHaveLength(2);
  for (const group of groups) {
    expect(group.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaAllAtOnce');
    expect(group.Properties.AlarmConfiguration).toMatchObject({ Enabled: false });
    expect(group.Properties.AutoRollbackConfiguration.Events).not.toContain('DEPLOYMENT_STOP_ON_ALARM');
  }
});
