import { Duration, Stack } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { SecretAddress } from './database-secret.js';
import { NaabaFunction } from './naaba-function.js';

export interface ReleaseChecksProps {
  readonly naabaRegion: string;
  readonly logLevel: string;
  readonly logRetentionDays: number;
  readonly mcp: Alias;
  readonly authorizer: Alias;
  /** The secret that holds the verification key the checks sign in with. */
  readonly verifyKey: SecretAddress;
  /** How long the post-traffic check watches the alarms once all traffic has moved; 0 for not at all. */
  readonly bakeMinutes: number;
}

/** A Lambda hook runs at most 15 minutes: the bake, the checks around it and a margin. */
const HOOK_MARGIN_MINUTES = 3;

/**
 * The checks a release must pass (decision 0091), as CodeDeploy lifecycle hooks: before any traffic
 * moves, the new versions are invoked directly — the MCP function's health check, `tools/list` and
 * a recall signed in with the verification key; the authorizer with that key (must allow) and an
 * unknown one (must refuse) — and any failure fails the deployment. After all traffic has moved,
 * the same checks run again and the deployment group's alarms are watched for `bakeMinutes`; an
 * alarm in ALARM fails it. Both report to CodeDeploy themselves; a failed report is a failed hook.
 *
 * They run outside the private network: they call AWS APIs only (Lambda, CodeDeploy, CloudWatch,
 * Secrets Manager), never the database.
 */
export class ReleaseChecks extends Construct {
  readonly beforeTraffic: NaabaFunction;
  readonly afterTraffic: NaabaFunction;
  /** Each deployment group the bake watches, with its alarms' names: JSON in NAABA_BAKE_ALARMS. */
  private readonly bakeAlarms: { group: string; alarms: string[] }[] = [];

  constructor(scope: Construct, id: string, props: ReleaseChecksProps) {
    super(scope, id);
    const common = {
      entry: 'release-check' as const,
      naabaRegion: props.naabaRegion,
      logLevel: props.logLevel,
      logRetentionDays: props.logRetentionDays,
      memorySize: 256,
    };
    this.beforeTraffic = new NaabaFunction(this, 'BeforeTraffic', {
      ...common,
      handler: 'beforeTraffic',
      description: 'naaba release check before traffic: invokes the new versions, reports to CodeDeploy',
      timeout: Duration.minutes(HOOK_MARGIN_MINUTES),
    });
    this.afterTraffic = new NaabaFunction(this, 'AfterTraffic', {
      ...common,
      handler: 'afterTraffic',
      description: 'naaba release check after traffic: the checks again, then the bake on the alarms',
      timeout: Duration.minutes(props.bakeMinutes + HOOK_MARGIN_MINUTES),
    });
    for (const fn of [this.beforeTraffic, this.afterTraffic]) {
      fn.addEnvironment('NAABA_CHECK_MCP', props.mcp.version.functionArn);
      fn.addEnvironment('NAABA_CHECK_AUTHORIZER', props.authorizer.version.functionArn);
      fn.addEnvironment('NAABA_CHECK_KEY_SECRET_ID', props.verifyKey.secretId);
      fn.addToRolePolicy(
        new PolicyStatement({
          sid: 'InvokeNewVersions',
          actions: ['lambda:InvokeFunction'],
          resources: [props.mcp.version.functionArn, props.authorizer.version.functionArn],
        }),
      );
      fn.addToRolePolicy(
        new PolicyStatement({
          sid: 'ReadVerificationKey',
          actions: ['secretsmanager:GetSecretValue'],
          resources: [props.verifyKey.policyArn],
        }),
      );
    }
    this.afterTraffic.addEnvironment('NAABA_BAKE_MINUTES', String(props.bakeMinutes));
    // Resolved at synthesis, so groups added later by bakeOn() are in it.
    this.afterTraffic.addEnvironment('NAABA_BAKE_ALARMS', Stack.of(this).toJsonString(this.bakeAlarms));
  }

  /** Bakes a deployment of `group` on `alarms`: the post-traffic check reads their states (and only theirs). */
  bakeOn(group: LambdaDeploymentGroup, alarms: readonly IAlarm[]): void {
    this.bakeAlarms.push({ group: group.deploymentGroupName, alarms: alarms.map((a) => a.alarmName) });
    this.afterTraffic.addToRolePolicy(
      new PolicyStatement({
        sid: `Read${group.node.id}Deployments`,
        actions: ['codedeploy:GetDeployment'],
        resources: [group.deploymentGroupArn],
      }),
    );
    if (alarms.length > 0) {
      this.afterTraffic.addToRolePolicy(
        new PolicyStatement({
          sid: `Read${group.node.id}Alarms`,
          actions: ['cloudwatch:DescribeAlarms'],
          resources: alarms.map((a) => a.alarmArn),
        }),
      );
    }
  }
}
