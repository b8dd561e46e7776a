import { Duration } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ILambdaDeploymentConfig,
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias, IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { DeployConfig } from '../config/deploy-config.js';

export interface GradualDeploymentProps {
  readonly settings: DeployConfig['deploy'];
}

/** The checks a deployment group runs: before any traffic moves, and after all of it has. */
export interface DeploymentHooks {
  readonly beforeTraffic: IFunction;
  readonly afterTraffic: IFunction;
}

/**
 * Gradual deploys for the functions API Gateway calls (decisions 0068, 0091): one CodeDeploy
 * application per stack and one deployment group per alias. A deploy that publishes a new version
 * makes CloudFormation hand the alias to CodeDeploy, which runs the pre-traffic check on the new
 * version, shifts traffic as `naaba:deploy` says, runs the post-traffic check (the bake) and, when
 * a check fails or a watched alarm fires, moves the alias back and fails the stack update (which
 * CloudFormation then rolls back as a whole).
 *
 * CodeDeploy's role may move exactly these aliases, read exactly their alarms and invoke exactly
 * these checks (decision 0094). aws-cdk-lib 2.276.0's LambdaDeploymentGroup attaches the AWS
 * managed AWSCodeDeployRoleForLambdaLimited (every alias of the account) to any role it is given
 * that it can change, so it is given an immutable view of the role instead.
 */
export class GradualDeployment extends Construct {
  readonly application: LambdaApplication;
  readonly role: Role;
  readonly config: ILambdaDeploymentConfig;
  readonly groups: LambdaDeploymentGroup[] = [];

  constructor(
    scope: Construct,
    id: string,
    private readonly props: GradualDeploymentProps,
  ) {
    super(scope, id);
    this.application = new LambdaApplication(this, 'Application');
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      description: "CodeDeploy for naaba: moves this stack's live aliases, reads their alarms, invokes their checks",
    });
    this.config = trafficConfig(this, props.settings);
  }

  /**
   * Puts `alias` under CodeDeploy: each new version is checked before it takes traffic, takes it
   * gradually, bakes, and goes back when a check fails or one of `alarms` fires.
   */
  shift(id: string, alias: Alias, alarms: readonly IAlarm[], hooks: DeploymentHooks): LambdaDeploymentGroup {
    const rollback = this.props.settings.alarms === 'rollback';
    const group = new LambdaDeploymentGroup(this, id, {
      application: this.application,
      alias,
      deploymentConfig: this.config,
      role: Role.fromRoleArn(this, `${id}RoleView`, this.role.roleArn, { mutable: false }),
      alarms: [...alarms],
      ignoreAlarmConfiguration: !rollback,
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: rollback },
      preHook: hooks.beforeTraffic,
      postHook: hooks.afterTraffic,
    });
    this.role.addToPolicy(
      new PolicyStatement({
        sid: `Move${id}Alias`,
        actions: ['lambda:GetAlias', 'lambda:UpdateAlias', 'lambda:GetProvisionedConcurrencyConfig'],
        resources: [alias.functionArn],
      }),
    );
    if (alarms.length > 0) {
      this.role.addToPolicy(
        new PolicyStatement({
          sid: `Read${id}Alarms`,
          actions: ['cloudwatch:DescribeAlarms'],
          resources: alarms.map((a) => a.alarmArn),
        }),
      );
    }
    this.role.addToPolicy(
      new PolicyStatement({
        sid: `Invoke${id}Checks`,
        actions: ['lambda:InvokeFunction'],
        resources: [hooks.beforeTraffic.functionArn, hooks.afterTraffic.functionArn],
      }),
    );
    this.groups.push(group);
    return group;
  }
}

/** The traffic shape of `naaba:deploy`: a custom canary or linear configuration, or CodeDeploy's all-at-once. */
function trafficConfig(scope: Construct, settings: DeployConfig['deploy']): ILambdaDeploymentConfig {
  const interval = Duration.minutes(settings.intervalMinutes);
  switch (settings.traffic) {
    case 'all-at-once':
      return LambdaDeploymentConfig.ALL_AT_ONCE;
    case 'canary':
      return new LambdaDeploymentConfig(scope, 'Traffic', {
        trafficRouting: TrafficRouting.timeBasedCanary({ interval, percentage: settings.percent }),
      });
    case 'linear':
      return new LambdaDeploymentConfig(scope, 'Traffic', {
        trafficRouting: TrafficRouting.timeBasedLinear({ interval, percentage: settings.percent }),
      });
  }
}
