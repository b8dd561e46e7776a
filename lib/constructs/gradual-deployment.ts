import { Duration, Validations } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ILambdaDeploymentConfig,
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { DeployConfig } from '../config/deploy-config.js';

/** What CodeDeploy needs to move a Lambda alias and read the alarms that may stop it; nothing else. */
const CODEDEPLOY_LAMBDA = 'service-role/AWSCodeDeployRoleForLambdaLimited';

export interface GradualDeploymentProps {
  readonly settings: DeployConfig['deploy'];
}

/**
 * Gradual deploys for the functions API Gateway calls (decision 0068): one CodeDeploy application
 * per stack and one deployment group per alias. A deploy that publishes a new version makes
 * CloudFormation hand the alias to CodeDeploy, which shifts traffic as `naaba:deploy` says and,
 * when a watched alarm fires, moves the alias back and fails the stack update (which CloudFormation
 * then rolls back as a whole).
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
      description: 'CodeDeploy for naaba: moves the live aliases and reads the alarms that stop a deploy',
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName(CODEDEPLOY_LAMBDA)],
    });
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${CODEDEPLOY_LAMBDA}]`,
      reason:
        "CodeDeploy's AWS managed policy for Lambda deployments grants only reading and moving aliases, reading alarm states and invoking hooks named CodeDeployHook_*; AWS keeps it in step with what the service calls, which a hand-written copy could not be tested against here.",
    });
    this.config = trafficConfig(this, props.settings);
  }

  /** Puts `alias` under CodeDeploy: each new version takes traffic gradually and goes back when one of `alarms` fires. */
  shift(id: string, alias: Alias, alarms: readonly IAlarm[]): LambdaDeploymentGroup {
    const rollback = this.props.settings.alarms === 'rollback';
    const group = new LambdaDeploymentGroup(this, id, {
      application: this.application,
      alias,
      deploymentConfig: this.config,
      role: this.role,
      alarms: [...alarms],
      ignoreAlarmConfiguration: !rollback,
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: rollback },
    });
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
