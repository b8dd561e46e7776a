import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { Stack } from 'aws-cdk-lib';
import { CHOSEN_AUTHORIZER_ERRORS } from '../../lib/constructs/function-crashes.js';
import { OUTCOMES, SECURITY_EVENTS, TOOLS } from '../../lib/constructs/naaba-metrics.js';
import { NO_SUBSCRIBER_WARNING } from '../../lib/constructs/region-alarms.js';
import { filterMatches } from './filter-pattern.js';
import { buildApp, CDK_CONTEXT, firstStack, flat, functionId, type Json, logicalId, REGIONS } from './support.js';

const alarms = CDK_CONTEXT['naaba:alarms'] as Record<string, number>;
const api = CDK_CONTEXT['naaba:api'] as { stageName: string };

interface AlarmProps {
  AlarmName?: Json;
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
  Metrics?: {
    Id: string;
    Expression?: string;
    MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions?: { Name: string; Value: Json }[] } };
  }[];
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

    // MCP and sweeper errors, authorizer crashes and refusals, 3 throttles; 5xx, latency, authorizer failures,
    // internal, embedder, security, judge, WAF blocks; 6 judging a new version; dead letters.
    expect(all).toHaveLength(2 + 2 + 3 + 8 + 6 + 1);
    for (const alarm of all) {
      expect([watched(alarm), alarm.AlarmActions, alarm.OKActions]).toEqual([watched(alarm), [{ Ref: topic }], [{ Ref: topic }]]);
    }
    expect(all.map(watched)).toContain(
      `AWS/SQS ApproximateNumberOfMessagesVisible QueueName=\${${logicalId(template, 'AWS::SQS::Queue')}.QueueName}`,
    );
  });

  test('the MCP function and the sweeper: Errors; every function: Throttles; at the thresholds of cdk.json', () => {
    const all = alarmsOf(template);
    const [mcp, authorizer, sweeper] = [/MCP endpoint/, /authorizer:/, /naaba sweeper/].map((d) => functionId(template, d));
    const count = (metric: string, fn: string | undefined) =>
      all.filter((a) => watched(a) === `AWS/Lambda ${metric} FunctionName=\${${fn}}`);

    for (const fn of [mcp, sweeper]) {
      expect(count('Errors', fn)).toEqual([expect.objectContaining({ Statistic: 'Sum', Threshold: alarms.functionErrors })]);
    }
    for (const fn of [mcp, authorizer, sweeper]) {
      expect(count('Throttles', fn)).toEqual([
        expect.objectContaining({
          Statistic: 'Sum',
          Threshold: alarms.functionThrottles,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        }),
      ]);
    }
  });

  test("no alarm counts the authorizer's Errors: a refused key and a 503 it chose are thrown, and Lambda counts them", () => {
    const authorizer = functionId(template, /authorizer:/);
    const readsAuthorizerErrors = (a: AlarmProps) =>
      [
        ...(a.MetricName === 'Errors' && a.Namespace === 'AWS/Lambda' ? [a.Dimensions ?? []] : []),
        ...(a.Metrics ?? [])
          .filter((m) => m.MetricStat?.Metric.MetricName === 'Errors')
          .map((m) => m.MetricStat?.Metric.Dimensions ?? []),
      ].some((dims) => JSON.stringify(dims).includes(authorizer));

    expect(alarmsOf(template).filter(readsAuthorizerErrors)).toEqual([]);
  });

  test('the authorizer crash count: metric filters on its own log group, matching crashes and timeouts only', () => {
    const authorizer = functionId(template, /authorizer:/);
    const logGroup = template.toJSON().Resources[authorizer].Properties.LoggingConfig.LogGroup;
    const filters = Object.values(template.findResources('AWS::Logs::MetricFilter')).map((f) => f.Properties);
    const patterns = filters.map((f) => String(f.FilterPattern));

    expect(filters.length).toBe(3);
    for (const f of filters) {
      expect(f).toMatchObject({
        LogGroupName: logGroup,
        MetricTransformations: [{ MetricNamespace: 'naaba', MetricName: 'authorizer_crash', MetricValue: '1' }],
      });
    }
    const crash = (line: string) => patterns.some((p) => filterMatches(p, line));
    // What the Lambda Node.js runtime writes (text log format) for each way an invocation can end.
    const id = '3f0b6a0e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
    const invokeError = (type: string, message: string) =>
      `2026-12-03T10:00:00.000Z\t${id}\tERROR\tInvoke Error \t{"errorType":"${type}","errorMessage":"${message}","stack":["${type}: ${message}","    at /var/task/index.js:1:2"]}`;
    const lines: [string, boolean][] = [
      [invokeError('Error', 'Unauthorized'), false],
      [invokeError('AuthorizerFailure', 'the key store could not be read'), false],
      [
        '{"level":"ERROR","message":"authorizer failure: the key store could not be read","service":"naaba","error":{"name":"Error","code":"ECONNREFUSED"}}',
        false,
      ],
      ['{"level":"INFO","message":"authorization","service":"naaba","effect":"unauthorized"}', false],
      [`REPORT RequestId: ${id}\tDuration: 12.31 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 88 MB`, false],
      [invokeError('TypeError', "Cannot read properties of undefined (reading 'keyId')"), true],
      [`2026-12-03T10:00:10.012Z ${id} Task timed out after 10.01 seconds`, true],
      ['INIT_REPORT Init Duration: 231.42 ms\tPhase: init\tStatus: error\tError Type: Runtime.ImportModuleError', true],
      [
        `2026-12-03T10:00:00.000Z\tundefined\tERROR\tUncaught Exception \t{"errorType":"Runtime.UserCodeSyntaxError","errorMessage":"SyntaxError: Unexpected token"}`,
        true,
      ],
      [
        `REPORT RequestId: ${id}\tDuration: 800.12 ms\tBilled Duration: 801 ms\tMemory Size: 512 MB\tMax Memory Used: 512 MB\tStatus: error\tError Type: Runtime.OutOfMemory`,
        true,
      ],
    ];

    expect(lines.map(([line]) => [line.slice(0, 60), crash(line)])).toEqual(lines.map(([line, c]) => [line.slice(0, 60), c]));
    expect(CHOSEN_AUTHORIZER_ERRORS).toEqual(['Unauthorized', 'AuthorizerFailure']);
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
    // Distinct refused tokens, not refusals: one stale client counts once (issue 48).
    ['authorization_unauthorized_source', 'authorizerUnauthorized'],
    ['tool_call_internal', 'toolInternal'],
    ['tool_call_embedder_unavailable', 'embedderUnavailable'],
    // Distinct sources of security events, besides security_event and security_<name> per event (issues 21, 48).
    ['security_source', 'securityEvents'],
  ])('the application count %s, namespace naaba, service=naaba', (metric, setting) => {
    expect(alarmsOf(template).filter((a) => watched(a) === `naaba ${metric} service=naaba`)).toEqual([
      expect.objectContaining({ Statistic: 'Sum', Threshold: alarms[setting], TreatMissingData: 'notBreaching' }),
    ]);
  });

  test('the judge-unavailable rate: judge_unavailable / judge_asked, 0 when nothing asked, over several periods', () => {
    const [alarm] = alarmsOf(template).filter((a) => a.Metrics && !String(flat(a.AlarmName ?? '')).includes('Release'));

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

/** The runbook entry of each alarm: the text from its heading to the next. */
function runbookEntries(): Map<string, string> {
  const runbook = readFileSync(new URL('../../docs/runbook.md', import.meta.url), 'utf8');
  const entries = new Map<string, string>();
  const parts = runbook.split(/^### `(\w+)`$/m);
  for (let i = 1; i < parts.length; i += 2) entries.set(parts[i] ?? '', (parts[i + 1] ?? '').split(/^## /m)[0] ?? '');
  return entries;
}

/** What an alarm reads, as the runbook must name it: each namespace and metric name, and whether only the new version. */
function readsOf(alarm: AlarmProps): { names: string[]; namespaces: string[]; version: boolean } {
  const metrics = alarm.Metrics
    ? alarm.Metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []))
    : [{ MetricName: alarm.MetricName ?? '', Namespace: alarm.Namespace ?? '', Dimensions: alarm.Dimensions }];
  return {
    names: [...new Set(metrics.map((m) => m.MetricName))].sort(),
    namespaces: [...new Set(metrics.map((m) => m.Namespace))].sort(),
    version: metrics.some((m) => (m.Dimensions ?? []).some((d) => d.Name === 'version' || d.Name === 'ExecutedVersion')),
  };
}

test('every alarm names its entry in docs/runbook.md, whose "Counts" line names what the template has it read', () => {
  const entries = runbookEntries();
  const all = alarmsOf(firstStack().template);
  const named = all.map((a) => /docs\/runbook\.md, "(\w+)"/.exec(String(a.AlarmDescription))?.[1]);

  expect(named).not.toContain(undefined);
  expect(named.filter((name) => !entries.has(name ?? ''))).toEqual([]);
  expect(named.length).toBe(22);
  for (const [i, alarm] of all.entries()) {
    const counts = /^\*\*Counts:\*\*(.*(?:\n(?!\n).*)*)/m.exec(entries.get(named[i] ?? '') ?? '')?.[1] ?? '';
    const reads = readsOf(alarm);
    const missing = [...reads.names, ...reads.namespaces].filter((n) => !counts.includes(`\`${n}\``));
    expect({ alarm: named[i], missing, version: reads.version && !counts.includes('new version') }).toEqual({
      alarm: named[i],
      missing: [],
      version: false,
    });
  }
});

test("every runbook entry's Counts line states the threshold the template gives its alarm (issue 48)", () => {
  const entries = runbookEntries();
  const all = alarmsOf(firstStack().template);
  const unstated = all
    .map((alarm) => {
      const name = /docs\/runbook\.md, "(\w+)"/.exec(String(alarm.AlarmDescription))?.[1] ?? '';
      const counts = /^\*\*Counts:\*\*(.*(?:\n(?!\n).*)*)/m.exec(entries.get(name) ?? '')?.[1] ?? '';
      return {
        name,
        threshold: alarm.Threshold,
        stated: new RegExp(`\\b${String(alarm.Threshold).replace('.', '\\.')}\\b`).test(counts),
      };
    })
    .filter((a) => !a.stated);

  expect(unstated).toEqual([]);
});

test('release alarms of the MCP function: the embedder rate over tool calls, the judge rate over its own asks, per version', () => {
  const all = alarmsOf(firstStack().template);
  const release = (id: string) => all.find((a) => String(flat(a.AlarmName ?? '')).includes(`-${id}-v`));
  const reads = (alarm: AlarmProps | undefined) =>
    Object.fromEntries(
      (alarm?.Metrics ?? []).filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat?.Metric.MetricName ?? '']),
    );

  const judge = release('McpReleaseJudge');
  expect(judge).toMatchObject({ Threshold: alarms.releaseJudgeFailureRate, EvaluationPeriods: 1 });
  expect(watched(judge as AlarmProps)).toBe('IF(FILL(asked, 0) > 0, FILL(unavailable, 0) / FILL(asked, 0), 0)');
  expect(reads(judge)).toEqual({ asked: 'judge_asked', unavailable: 'judge_unavailable' });
  expect(readsOf(judge as AlarmProps).version).toBe(true);

  const embedder = release('McpReleaseBedrock');
  expect(Object.values(reads(embedder)).sort()).toEqual(OUTCOMES.map((o) => `tool_call_${o}`).sort());
  expect(watched(embedder as AlarmProps)).toMatch(/^IF\(.+ > 0, FILL\(c_embedder_unavailable, 0\) \/ \(.+\), 0\)$/);
});

test('the runbook has no entry for an alarm the stack does not make', () => {
  const named = new Set(
    alarmsOf(firstStack().template).map((a) => /docs\/runbook\.md, "(\w+)"/.exec(String(a.AlarmDescription))?.[1]),
  );

  expect([...runbookEntries().keys()].filter((heading) => !named.has(heading))).toEqual([]);
});

test("every stack output the runbook's commands read exists", () => {
  const runbook = readFileSync(new URL('../../docs/runbook.md', import.meta.url), 'utf8');
  const read = new Set([...runbook.matchAll(/(?:\$\(|`)out (\w+)/g)].map((m) => m[1] as string));
  const outputs = Object.keys(firstStack().template.toJSON().Outputs ?? {});

  expect(read.size).toBeGreaterThan(5);
  expect([...read].filter((name) => !outputs.includes(name))).toEqual([]);
});

/** The warnings synthesis gives on a stack, as text. */
const warned = (stack: Stack) =>
  Annotations.fromStack(stack)
    .findWarning('*', Match.anyValue())
    .map((w) => String(w.entry.data));

test('no e-mail in cdk.json: no subscription, and synth warns that no one will be told; each address given gets one', () => {
  const committed = firstStack();
  expect(committed.template.findResources('AWS::SNS::Subscription')).toEqual({});
  expect(CDK_CONTEXT['naaba:alarms']).not.toHaveProperty('noSubscriberReason');
  expect(warned(committed.stack).filter((w) => w.includes(NO_SUBSCRIBER_WARNING) || w.startsWith('No one will be told'))).toEqual(
    [
      expect.stringMatching(
        /^No one will be told: the alarms of naaba-eu-central-1 notify a topic with no subscriber\. Set naaba:alarms\.email/,
      ),
    ],
  );

  const { stack, template } = firstStack({ 'naaba:alarms': { email: ['ops@example.com', 'oncall@example.com'] } });
  const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription')).map((s) => [
    s.Properties.Protocol,
    s.Properties.Endpoint,
  ]);

  expect(subscriptions.sort()).toEqual([
    ['email', 'oncall@example.com'],
    ['email', 'ops@example.com'],
  ]);
  expect(warned(stack).filter((w) => w.includes('subscribe'))).toEqual([]);
});

test('a reason for no subscriber is quoted in the warning, which still says the stack subscribes no one', () => {
  const reason = 'PagerDuty is subscribed to the topic by the platform team';
  const { stack } = firstStack({ 'naaba:alarms': { noSubscriberReason: reason } });

  expect(warned(stack).filter((w) => w.includes(reason))).toEqual([
    expect.stringContaining(
      `naaba-eu-central-1 subscribes no one to its alarms; naaba:alarms.noSubscriberReason says: "${reason}". Check that the subscription exists:`,
    ),
  ]);
});

test('thresholds come from cdk.json', () => {
  const { template } = firstStack({
    'naaba:alarms': { ...alarms, toolInternal: 7, judgeUnavailableRate: 0.5, judgePeriods: 6, securityEvents: 40 },
  });
  const all = alarmsOf(template);

  expect(all.find((a) => a.MetricName === 'tool_call_internal')?.Threshold).toBe(7);
  expect(all.find((a) => a.MetricName === 'security_source')?.Threshold).toBe(40);
  expect(all.find((a) => a.Metrics)).toMatchObject({ Threshold: 0.5, EvaluationPeriods: 6 });
});
