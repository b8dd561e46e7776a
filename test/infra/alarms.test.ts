import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { OUTCOMES, SECURITY_EVENTS, TOOLS } from '../../lib/constructs/naaba-metrics.js';
import { buildApp, CDK_CONTEXT, firstStack, flat, functionId, type Json, logicalId, REGIONS } from './support.js';

const alarms = CDK_CONTEXT['naaba:alarms'] as Record<string, number>;
const api = CDK_CONTEXT['naaba:api'] as { stageName: string };

interface AlarmProps {
  MetricName?: string;
  Namespace?: string;
  Dimensions?: { Name: string; Value: Json }[];
  Statistic?: string;
  ExtendedStatistic?: string;
  Threshold: number;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number;
  ComparisonOperator: string;
  TreatMissingData?: string;
  AlarmActions?: Json[];
  AlarmDescription?: string;
  OKActions?: Json[];
  Metrics?: { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Namespace: string } } }[];
}

const alarmsOf = (template: Template) =>
  Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties as AlarmProps);

/** What an alarm watches, in a line: `AWS/Lambda Errors <fn>` or `naaba tool_call_internal` or the expression. */
function watched(alarm: AlarmProps): string {
  if (alarm.Metrics) return alarm.Metrics.find((m) => m.Expression)?.Expression ?? '?';
  const dims = (alarm.Dimensions ?? []).map((d) => `${d.Name}=${String(flat(d.Value))}`).join(',');
  return `${alarm.Namespace} ${alarm.MetricName} ${dims}`;
}

describe.each(REGIONS)('region %s', (region) => {
  let template: Template;
  beforeAll(() => {
    const stack = buildApp().stacks.find((s) => s.region === region);
    if (!stack) throw new Error(`no stack for ${region}`);
    template = Template.fromStack(stack);
  });

  test('one SNS topic, encrypted with a rotated customer managed key CloudWatch may use, and TLS-only', () => {
    const topic = logicalId(template, 'AWS::SNS::Topic');
    const key = logicalId(template, 'AWS::KMS::Key');

    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [key, 'Arn'] } });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const keyPolicy = flat(template.toJSON().Resources[key].Properties.KeyPolicy.Statement) as { Sid?: string }[];
    expect(keyPolicy.find((s) => s.Sid === 'CloudWatchAlarmsEncrypt')).toEqual({
      Sid: 'CloudWatchAlarmsEncrypt',
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Resource: '*',
      Condition: { StringEquals: { 'aws:SourceAccount': `\${AWS::AccountId}` } },
    });
    const topicPolicy = flat(
      Object.values(template.findResources('AWS::SNS::TopicPolicy'))[0]?.Properties.PolicyDocument.Statement,
    ) as { Sid?: string; Effect: string; Condition?: Json }[];
    expect(topicPolicy).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        {
          Sid: 'CloudWatchAlarmsPublish',
          Effect: 'Allow',
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: 'sns:Publish',
          Resource: `\${${topic}}`,
          Condition: { StringEquals: { 'aws:SourceAccount': `\${AWS::AccountId}` } },
        },
      ]),
    );
  });

  test('every alarm, the dead-letter alarm included, notifies the topic on ALARM and on OK', () => {
    const topic = logicalId(template, 'AWS::SNS::Topic');
    const all = alarmsOf(template);

    // 3 functions × (errors, throttles); 5xx, latency, authorizer, internal, embedder, security, judge; dead letters.
    expect(all).toHaveLength(3 * 2 + 7 + 1);
    for (const alarm of all) {
      expect([watched(alarm), alarm.AlarmActions, alarm.OKActions]).toEqual([watched(alarm), [{ Ref: topic }], [{ Ref: topic }]]);
    }
    expect(all.map(watched)).toContain(
      `AWS/SQS ApproximateNumberOfMessagesVisible QueueName=\${${logicalId(template, 'AWS::SQS::Queue')}.QueueName}`,
    );
  });

  test('each function: Errors and Throttles at the thresholds of cdk.json', () => {
    const all = alarmsOf(template);
    const functions = [/MCP endpoint/, /authorizer/, /sweeper/].map((d) => functionId(template, d));

    for (const fn of functions) {
      for (const [metric, threshold] of [
        ['Errors', alarms.functionErrors],
        ['Throttles', alarms.functionThrottles],
      ] as const) {
        const found = all.filter((a) => watched(a) === `AWS/Lambda ${metric} FunctionName=\${${fn}}`);
        expect(found).toEqual([
          expect.objectContaining({
            Statistic: 'Sum',
            Threshold: threshold,
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          }),
        ]);
      }
    }
  });

  test('the API: 5XXError sum and p99 Latency of the stage, by ApiName and Stage', () => {
    const all = alarmsOf(template);
    const restApi = logicalId(template, 'AWS::ApiGateway::RestApi');
    const apiName = template.toJSON().Resources[restApi].Properties.Name;
    const stage = logicalId(template, 'AWS::ApiGateway::Stage');
    const dims = `ApiName=${apiName},Stage=\${${stage}}`;

    expect(all.filter((a) => watched(a) === `AWS/ApiGateway 5XXError ${dims}`)).toEqual([
      expect.objectContaining({ Statistic: 'Sum', Threshold: alarms.api5xx, EvaluationPeriods: 1 }),
    ]);
    expect(all.filter((a) => watched(a) === `AWS/ApiGateway Latency ${dims}`)).toEqual([
      expect.objectContaining({
        ExtendedStatistic: 'p99',
        Threshold: alarms.apiLatencyP99Ms,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 3,
      }),
    ]);
    expect(api.stageName).toBeTruthy();
  });

  test.each([
    ['authorizer_failure', 'authorizerFailures'],
    ['tool_call_internal', 'toolInternal'],
    ['tool_call_embedder_unavailable', 'embedderUnavailable'],
    // The contract with the functions (issue 21): one security_event per event, besides security_<name>.
    ['security_event', 'securityEvents'],
  ])('the application count %s, namespace naaba, service=naaba', (metric, setting) => {
    expect(alarmsOf(template).filter((a) => watched(a) === `naaba ${metric} service=naaba`)).toEqual([
      expect.objectContaining({ Statistic: 'Sum', Threshold: alarms[setting], TreatMissingData: 'notBreaching' }),
    ]);
  });

  test('the judge-unavailable rate: judge_unavailable / judge_asked, 0 when nothing asked, over several periods', () => {
    const [alarm] = alarmsOf(template).filter((a) => a.Metrics);

    expect(alarm).toMatchObject({
      Threshold: alarms.judgeUnavailableRate,
      EvaluationPeriods: alarms.judgePeriods,
      DatapointsToAlarm: alarms.judgePeriods,
      TreatMissingData: 'notBreaching',
    });
    const metrics = Object.fromEntries(
      (alarm?.Metrics ?? [])
        .filter((m) => m.MetricStat)
        .map((m) => [m.Id, `${m.MetricStat?.Metric.Namespace} ${m.MetricStat?.Metric.MetricName}`]),
    );
    expect(metrics).toEqual({ asked: 'naaba judge_asked', unavailable: 'naaba judge_unavailable' });
    expect(watched(alarm as AlarmProps)).toBe('IF(FILL(asked, 0) > 0, FILL(unavailable, 0) / FILL(asked, 0), 0)');
  });

  test('the dashboard, named after the stack, shows every tool and outcome, latency, errors and the judge rate', () => {
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0];
    const body = String(flat(dashboard?.Properties.DashboardBody));

    expect(dashboard?.Properties.DashboardName).toBe(`naaba-${region}`);
    for (const outcome of OUTCOMES) {
      expect(body).toContain(`"tool_call_${outcome}"`);
      for (const tool of TOOLS) expect(body).toContain(`"${tool}_${outcome}"`);
    }
    for (const part of ['"Latency"', '"5XXError"', '"Errors"', '"Throttles"', 'judge_asked', 'judge_unavailable', 'p99']) {
      expect(body).toContain(part);
    }
    for (const event of SECURITY_EVENTS) expect(body).toContain(`"security_${event}"`);
  });
});

test('every alarm names its entry in docs/runbook.md, and the runbook has an entry for each', () => {
  const runbook = readFileSync(new URL('../../docs/runbook.md', import.meta.url), 'utf8');
  const headings = new Set([...runbook.matchAll(/^### `(\w+)`/gm)].map((m) => m[1]));
  const named = alarmsOf(firstStack().template).map((a) => /docs\/runbook\.md, "(\w+)"/.exec(String(a.AlarmDescription))?.[1]);

  expect(named).not.toContain(undefined);
  expect(named.filter((name) => !headings.has(name))).toEqual([]);
  expect(named.length).toBe(14);
});

test("every stack output the runbook's commands read exists", () => {
  const runbook = readFileSync(new URL('../../docs/runbook.md', import.meta.url), 'utf8');
  const read = new Set([...runbook.matchAll(/(?:\$\(|`)out (\w+)/g)].map((m) => m[1] as string));
  const outputs = Object.keys(firstStack().template.toJSON().Outputs ?? {});

  expect(read.size).toBeGreaterThan(5);
  expect([...read].filter((name) => !outputs.includes(name))).toEqual([]);
});

test('no e-mail in cdk.json: no subscription; each address given gets one', () => {
  expect(firstStack().template.findResources('AWS::SNS::Subscription')).toEqual({});

  const { template } = firstStack({ 'naaba:alarms': { email: ['ops@example.com', 'oncall@example.com'] } });
  const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription')).map((s) => [
    s.Properties.Protocol,
    s.Properties.Endpoint,
  ]);

  expect(subscriptions.sort()).toEqual([
    ['email', 'oncall@example.com'],
    ['email', 'ops@example.com'],
  ]);
});

test('thresholds come from cdk.json', () => {
  const { template } = firstStack({
    'naaba:alarms': { ...alarms, toolInternal: 7, judgeUnavailableRate: 0.5, judgePeriods: 6, securityEvents: 40 },
  });
  const all = alarmsOf(template);

  expect(all.find((a) => a.MetricName === 'tool_call_internal')?.Threshold).toBe(7);
  expect(all.find((a) => a.MetricName === 'security_event')?.Threshold).toBe(40);
  expect(all.find((a) => a.Metrics)).toMatchObject({ Threshold: 0.5, EvaluationPeriods: 6 });
});
