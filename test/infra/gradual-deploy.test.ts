import type { Template } from 'aws-cdk-lib/assertions';
import { CDK_CONTEXT, firstStack, flat, functionId, type Json, logicalId } from './support.js';

/**
 * Gradual deploys (decision 0068): the MCP and authorizer functions are published as versions
 * behind the alias `live`, API Gateway calls the aliases, and CodeDeploy moves each alias as
 * `naaba:deploy` says, rolling back on the error alarms.
 */
const deploy = CDK_CONTEXT['naaba:deploy'] as { traffic: string; percent: number; intervalMinutes: number };

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
/** The alarm's construct id (`McpErrors`) from its logical id (`AlarmsMcpErrors23235A89`). */
const alarmName = (id: string) => id.replace(/^Alarms/, '').replace(/[0-9A-F]{8}$/, '');

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
    ['mcp', ['McpErrors', 'ToolInternalErrors', 'Api5xx']],
    ['authorizer', ['AuthorizerErrors', 'AuthorizerFailures', 'Api5xx']],
  ] as const)('CodeDeploy moves the %s alias and rolls it back when %j fire', (fn, alarms) => {
    const alias = resources[aliasOf(template, ids[fn])] as {
      UpdatePolicy?: { CodeDeployLambdaAliasUpdate: Record<string, Json> };
    };
    const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
    const groupId = (update?.DeploymentGroupName as { Ref: string } | undefined)?.Ref ?? '';
    const group = resources[groupId];

    expect(update?.ApplicationName).toEqual({ Ref: logicalId(template, 'AWS::CodeDeploy::Application') });
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

  test("CodeDeploy's role is trusted by CodeDeploy only and carries AWS's limited Lambda policy, nothing else", () => {
    const roleId = String(
      flat(Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'))[0]?.Properties.ServiceRoleArn),
    ).replace(/^\$\{(\w+)\.Arn\}$/, '$1');
    const role = resources[roleId];

    expect(role?.Properties.AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'codedeploy.amazonaws.com' } }],
    });
    expect(flat(role?.Properties.ManagedPolicyArns as Json)).toEqual([
      `arn:\${AWS::Partition}:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited`,
    ]);
    expect(role?.Properties.Policies).toBeUndefined();
    expect(Object.values(template.findResources('AWS::IAM::Policy')).filter((p) => JSON.stringify(p).includes(roleId))).toEqual(
      [],
    );
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

test('all at once uses CodeDeploy\'s own configuration; "ignore" deploys without watching the alarms', () => {
  const { template } = firstStack({ 'naaba:deploy': { traffic: 'all-at-once', alarms: 'ignore' } });
  const groups = Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'));

  expect(template.findResources('AWS::CodeDeploy::DeploymentConfig')).toEqual({});
  expect(groups).toHaveLength(2);
  for (const group of groups) {
    expect(group.Properties.DeploymentConfigName).toBe('CodeDeployDefault.LambdaAllAtOnce');
    expect(group.Properties.AlarmConfiguration).toMatchObject({ Enabled: false });
    expect(group.Properties.AutoRollbackConfiguration.Events).not.toContain('DEPLOYMENT_STOP_ON_ALARM');
  }
});
