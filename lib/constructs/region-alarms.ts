import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { DeployConfig } from '../config/deploy-config.js';
import { appCount, judgeUnavailableRate, PERIOD } from './naaba-metrics.js';
import type { NaabaFunction } from './naaba-function.js';

export interface RegionAlarmsProps {
  /** The functions to watch, by the name their alarms carry. */
  readonly functions: Readonly<Record<string, NaabaFunction>>;
  readonly stage: Stage;
  /** Alarms made elsewhere (the sweeper's dead-letter queue) that should notify the topic too. */
  readonly others: readonly Alarm[];
  readonly settings: DeployConfig['alarms'];
}

interface Watch {
  readonly metric: IMetric;
  readonly threshold: number;
  readonly description: string;
  readonly periods?: number;
}

/**
 * What pages the operator in one region: an encrypted SNS topic (with the e-mail subscriptions of
 * cdk.json), and alarms on each function's errors and throttles, the API's 5xx and p99 latency,
 * authorizer failures, internal tool errors, an unavailable embedder, a spike of security events,
 * the judge's unavailable rate and the sweeper's dead letters. Each notifies the topic on ALARM and
 * again on OK; each description points at its runbook entry.
 */
export class RegionAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly byName = new Map<string, Alarm>();

  constructor(scope: Construct, id: string, props: RegionAlarmsProps) {
    super(scope, id);
    const s = props.settings;
    this.topic = this.encryptedTopic();
    for (const email of s.email) this.topic.addSubscription(new EmailSubscription(email));

    for (const [name, fn] of Object.entries(props.functions)) {
      this.watch(`${name}Errors`, {
        metric: fn.function.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        threshold: s.functionErrors,
        description: `The naaba ${name} function failed (threw, timed out or ran out of memory); its log group has the error`,
      });
      this.watch(`${name}Throttles`, {
        metric: fn.function.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        threshold: s.functionThrottles,
        description: `The naaba ${name} function was throttled: the account's Lambda concurrency in this region is exhausted`,
      });
    }
    this.watch('Api5xx', {
      metric: props.stage.metricServerError({ period: PERIOD, statistic: 'Sum' }),
      threshold: s.api5xx,
      description: 'The naaba API answered 5xx (the access log has errorType and integrationStatus per request)',
    });
    this.watch('ApiLatencyP99', {
      metric: props.stage.metricLatency({ period: PERIOD, statistic: 'p99' }),
      threshold: s.apiLatencyP99Ms,
      periods: 3,
      description: `The naaba API's p99 latency stayed at or above ${s.apiLatencyP99Ms} ms for 15 minutes`,
    });
    this.watch('AuthorizerFailures', {
      metric: appCount('authorizer_failure'),
      threshold: s.authorizerFailures,
      description: 'The naaba authorizer could not decide (database unreachable?); callers got 503 with Retry-After',
    });
    this.watch('ToolInternalErrors', {
      metric: appCount('tool_call_internal'),
      threshold: s.toolInternal,
      description: "A naaba tool call ended in an internal error; the MCP function's log has it with its correlation id",
    });
    this.watch('EmbedderUnavailable', {
      metric: appCount('tool_call_embedder_unavailable'),
      threshold: s.embedderUnavailable,
      description: 'naaba tool calls failed because Bedrock embeddings were unavailable (model access, throttling, outage)',
    });
    this.watch('SecurityEvents', {
      metric: appCount('security_event'),
      threshold: s.securityEvents,
      description: `naaba counted ${s.securityEvents} or more security events in 5 minutes (code replays, refresh-token reuse, refused consents, revocations, rate limits, failed authentications); the security_<name> counts say which`,
    });
    this.watch('JudgeUnavailableRate', {
      metric: judgeUnavailableRate(),
      threshold: s.judgeUnavailableRate,
      periods: s.judgePeriods,
      description: `The naaba judge gave no verdict for at least ${Math.round(s.judgeUnavailableRate * 1000) / 10}% of remembers: near-duplicates are being stored instead of merged`,
    });
    const action = new SnsAction(this.topic);
    for (const alarm of [...this.alarms, ...props.others]) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
  }

  /** One of this construct's alarms by the name it was made with (`McpErrors`, `Api5xx`, …): what CodeDeploy watches. */
  named(name: string): Alarm {
    const alarm = this.byName.get(name);
    if (!alarm) throw new Error(`no alarm named ${name}; there are ${[...this.byName.keys()].join(', ')}`);
    return alarm;
  }

  private watch(id: string, watch: Watch): void {
    const periods = watch.periods ?? 1;
    const alarm = new Alarm(this, id, {
      metric: watch.metric,
      threshold: watch.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `${watch.description} (docs/runbook.md, "${id}")`,
    });
    this.alarms.push(alarm);
    this.byName.set(id, alarm);
  }

  /**
   * SNS with a customer managed key: CloudWatch cannot publish to a topic under the AWS managed
   * `aws/sns` key, whose policy admits no service. Only this account's alarms may use either.
   */
  private encryptedTopic(): Topic {
    const account = Stack.of(this).account;
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const fromThisAccount = { StringEquals: { 'aws:SourceAccount': account } };
    const key = new Key(this, 'TopicKey', {
      description: 'naaba alarm topic: lets CloudWatch alarms of this account publish encrypted notifications',
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsEncrypt',
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: fromThisAccount,
      }),
    );
    const topic = new Topic(this, 'Topic', { displayName: 'naaba alarms', masterKey: key, enforceSSL: true });
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: fromThisAccount,
      }),
    );
    return topic;
  }
}
