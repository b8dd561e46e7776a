import { Annotations, Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { DeployConfig } from '../config/deploy-config.js';
import { FunctionCrashes, CHOSEN_AUTHORIZER_ERRORS } from './function-crashes.js';
import { appCount, judgeUnavailableRate, PERIOD } from './naaba-metrics.js';
import type { NaabaFunction } from './naaba-function.js';

export interface RegionAlarmsProps {
  /** The functions to watch, by the name their alarms carry; the authorizer's errors are read from its log. */
  readonly functions: Readonly<{ Mcp: NaabaFunction; Authorizer: NaabaFunction; Sweeper: NaabaFunction }>;
  readonly stage: Stage;
  /** Alarms made elsewhere (the sweeper's dead-letter queue) that should notify the topic too. */
  readonly others: readonly Alarm[];
  readonly settings: DeployConfig['alarms'];
  /** WAF's count of blocked requests, when the web ACL is on. */
  readonly wafBlocked?: IMetric | undefined;
}

/** The id of the synth warning given when no one is subscribed to the alarm topic (decision 0095). */
export const NO_SUBSCRIBER_WARNING = 'naaba:alarms-no-subscriber';

export interface Watch {
  readonly metric: IMetric;
  readonly threshold: number;
  readonly description: string;
  readonly periods?: number;
}

/**
 * What pages the operator in one region: an encrypted SNS topic (with the e-mail subscriptions of
 * cdk.json, or a synth warning that there are none), and alarms on the MCP function's and the
 * sweeper's errors, the authorizer's crashes, refusals and failures (each counted apart), each
 * function's throttles, the API's 5xx and p99 latency, internal tool errors, an unavailable
 * embedder, a spike of security events, the judge's unavailable rate, WAF's blocks and the
 * sweeper's dead letters. Each notifies the topic on ALARM and again on OK; each description
 * points at its runbook entry.
 */
export class RegionAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  /** The patterns the authorizer's crash count reads its log with (tested against runtime lines). */
  readonly authorizerCrashPatterns: readonly string[];
  private readonly byName = new Map<string, Alarm>();

  constructor(scope: Construct, id: string, props: RegionAlarmsProps) {
    super(scope, id);
    const s = props.settings;
    this.topic = this.encryptedTopic();
    for (const email of s.email) this.topic.addSubscription(new EmailSubscription(email));

    // The MCP function and the sweeper fail an invocation only when something went wrong.
    for (const name of ['Mcp', 'Sweeper'] as const) {
      this.watch(`${name}Errors`, {
        metric: props.functions[name].function.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        threshold: s.functionErrors,
        description: `The naaba ${name} function failed (threw, timed out or ran out of memory); its log group has the error`,
      });
    }
    // The authorizer must throw to answer 401 or 503, and Lambda counts both in Errors: its log says which were crashes.
    const crashes = new FunctionCrashes(this, 'AuthorizerCrashLog', {
      logGroup: props.functions.Authorizer.logGroup,
      metricName: 'authorizer_crash',
      chosenErrors: CHOSEN_AUTHORIZER_ERRORS,
    });
    this.authorizerCrashPatterns = crashes.patterns;
    this.watch('AuthorizerCrashes', {
      metric: crashes.metric,
      threshold: s.authorizerCrashes,
      description:
        'The naaba authorizer crashed or timed out (not a refused key, not a 503 it chose): its log has the runtime error',
    });
    this.watch('AuthorizerUnauthorized', {
      metric: appCount('authorization_unauthorized_source'),
      threshold: s.authorizerUnauthorized,
      description: `The naaba authorizer refused ${s.authorizerUnauthorized} or more distinct unknown, malformed or revoked tokens in 5 minutes (401s): a flood of made-up tokens, not one stale client`,
    });
    for (const [name, fn] of Object.entries(props.functions)) {
      this.watch(`${name}Throttles`, {
        metric: fn.function.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
        threshold: s.functionThrottles,
        description: `The naaba ${name} function was throttled: its reserved concurrency, or the account's in this region, is exhausted`,
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
      description: `The naaba authorizer could not read keys ${s.authorizerFailures} or more times in 5 minutes (database unreachable?); callers got 503 with Retry-After`,
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
      metric: appCount('security_source'),
      threshold: s.securityEvents,
      description: `naaba saw security events from ${s.securityEvents} or more distinct sources (tokens, keys, addresses) in 5 minutes (code replays, refresh-token reuse, refused consents, revocations, rate limits, failed authentications); the security_<name> counts say which`,
    });
    this.watch('JudgeUnavailableRate', {
      metric: judgeUnavailableRate(),
      threshold: s.judgeUnavailableRate,
      periods: s.judgePeriods,
      description: `The naaba judge gave no verdict for at least ${Math.round(s.judgeUnavailableRate * 1000) / 10}% of remembers: near-duplicates are being stored instead of merged`,
    });
    if (props.wafBlocked) {
      this.watch('WafBlocked', {
        metric: props.wafBlocked,
        threshold: s.wafBlocked,
        description: `WAF blocked ${s.wafBlocked} or more requests to the naaba API in 5 minutes (per-address limit or a managed rule); its metrics per rule say which`,
      });
    }
    for (const alarm of props.others) this.notify(alarm);
    if (s.email.length === 0) this.warnNoSubscriber(s.noSubscriberReason);
  }

  /** Makes `alarm` notify this region's topic on ALARM and again on OK. */
  notify(alarm: Alarm): void {
    const action = new SnsAction(this.topic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }

  /** A warning in `cdk synth` (and `cdk deploy`) output: the stack subscribes no one to its alarms. */
  private warnNoSubscriber(reason: string | undefined): void {
    const stack = Stack.of(this).stackName;
    Annotations.of(this.topic).addWarningV2(
      NO_SUBSCRIBER_WARNING,
      reason === undefined
        ? `No one will be told: the alarms of ${stack} notify a topic with no subscriber. Set naaba:alarms.email, or subscribe a pager to the AlarmTopicArn output and say so in naaba:alarms.noSubscriberReason (docs/deployment.md, "Alarms and dashboard").`
        : `${stack} subscribes no one to its alarms; naaba:alarms.noSubscriberReason says: "${reason}". Check that the subscription exists: aws sns list-subscriptions-by-topic --topic-arn <AlarmTopicArn output>.`,
    );
  }

  /** One of this construct's alarms by the name it was made with (`McpErrors`, `Api5xx`, …): what CodeDeploy watches. */
  named(name: string): Alarm {
    const alarm = this.byName.get(name);
    if (!alarm) throw new Error(`no alarm named ${name}; there are ${[...this.byName.keys()].join(', ')}`);
    return alarm;
  }

  /** Adds an alarm of this region that notifies its topic; `name` sets a physical name (release alarms). */
  watch(id: string, watch: Watch, scope: Construct = this, name?: string): Alarm {
    const periods = watch.periods ?? 1;
    const alarm = new Alarm(scope, id, {
      ...(name === undefined ? {} : { alarmName: name }),
      metric: watch.metric,
      threshold: watch.threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: periods,
      datapointsToAlarm: periods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `${watch.description} (docs/runbook.md, "${id}")`,
    });
    this.notify(alarm);
    this.alarms.push(alarm);
    this.byName.set(id, alarm);
    return alarm;
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
