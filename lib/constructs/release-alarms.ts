import { Stack } from 'aws-cdk-lib';
import { type Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { DeployConfig } from '../config/deploy-config.js';
import { PERIOD, releaseCount, releaseEmbedderFailureRate, releaseJudgeFailureRate } from './naaba-metrics.js';
import type { RegionAlarms } from './region-alarms.js';

export interface ReleaseAlarmsProps {
  readonly mcp: Alias;
  readonly authorizer: Alias;
  readonly alarms: RegionAlarms;
  readonly settings: DeployConfig['alarms'];
}

/**
 * The alarms that judge a new version while CodeDeploy shifts traffic to it and while it bakes
 * (decision 0091): each reads the metrics of the version this deploy publishes, never the
 * function as a whole, so the old version's trouble (an outage being fixed) neither stops the
 * fix nor is blamed on it. Each carries the version in its name, so a deploy replaces it with a
 * new alarm that starts without a state instead of an old one still in ALARM.
 *
 * What CloudWatch cannot split by version stays function-wide, where the deploy watches it too:
 * the authorizer's crashes (counted from a log that does not carry the version). The API's 5xx
 * cannot be split at all and only pages.
 */
export class ReleaseAlarms extends Construct {
  /** What the MCP function's deployment group watches. */
  readonly mcp: Alarm[];
  /** What the authorizer's deployment group watches (its crash alarm is added by the stack). */
  readonly authorizer: Alarm[];

  constructor(scope: Construct, id: string, props: ReleaseAlarmsProps) {
    super(scope, id);
    const s = props.settings;
    const stack = Stack.of(this).stackName;
    const mcpVersion = props.mcp.version.version;
    const authorizerVersion = props.authorizer.version.version;
    const watch = (alarmId: string, version: string, watch: Parameters<RegionAlarms['watch']>[1]) =>
      props.alarms.watch(alarmId, watch, this, `${stack}-${alarmId}-v${version}`);

    this.mcp = [
      watch('McpReleaseErrors', mcpVersion, {
        metric: lambdaErrorsOf(props.mcp),
        threshold: s.functionErrors,
        description: 'During its deploy, the new version of the naaba MCP function failed invocations (threw, timed out)',
      }),
      watch('McpReleaseUnavailable', mcpVersion, {
        metric: releaseCount('store_unavailable', mcpVersion),
        threshold: s.storeUnavailable,
        description: `During its deploy, the new version of the naaba MCP function answered 503 ${s.storeUnavailable} or more times: it could not reach its database`,
      }),
      watch('McpReleaseInternal', mcpVersion, {
        metric: releaseCount('tool_call_internal', mcpVersion),
        threshold: s.toolInternal,
        description: 'During its deploy, tool calls to the new version of the naaba MCP function ended in an internal error',
      }),
      watch('McpReleaseBedrock', mcpVersion, {
        metric: releaseEmbedderFailureRate(mcpVersion),
        threshold: s.releaseBedrockFailureRate,
        description: `During its deploy, at least ${Math.round(s.releaseBedrockFailureRate * 100)}% of the new version's tool calls failed for want of Bedrock embeddings`,
      }),
      watch('McpReleaseJudge', mcpVersion, {
        metric: releaseJudgeFailureRate(mcpVersion),
        threshold: s.releaseJudgeFailureRate,
        description: `During its deploy, the new version's judge gave no verdict for at least ${Math.round(s.releaseJudgeFailureRate * 100)}% of the times it was asked`,
      }),
    ];
    this.authorizer = [
      watch('AuthorizerReleaseFailures', authorizerVersion, {
        metric: releaseCount('authorizer_failure', authorizerVersion),
        threshold: s.authorizerFailures,
        description: `During its deploy, the new version of the naaba authorizer could not read keys ${s.authorizerFailures} or more times (503s)`,
      }),
    ];
  }
}

/** Lambda's `Errors` of the version an alias now points at: invocations through the alias that version ran. */
function lambdaErrorsOf(alias: Alias): Metric {
  const functionName = alias.version.lambda.functionName;
  return new Metric({
    namespace: 'AWS/Lambda',
    metricName: 'Errors',
    dimensionsMap: {
      FunctionName: functionName,
      Resource: `${functionName}:${alias.aliasName}`,
      ExecutedVersion: alias.version.version,
    },
    statistic: 'Sum',
    period: PERIOD,
  });
}
