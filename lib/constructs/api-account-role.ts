import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** The AWS managed policy API Gateway's account role carries: log groups and streams of API Gateway's own naming. */
const PUSH_TO_LOGS = 'service-role/AmazonAPIGatewayPushToCloudWatchLogs';

/**
 * API Gateway's account setting in this stack's region: the role it writes REST stage logs with.
 * There is one per account and region, shared by every REST API there, and a stage with access
 * logging cannot deploy until it is set. Both are kept when the stack is deleted, since other APIs
 * of the account may rely on them (docs/decisions/0048).
 */
export class ApiGatewayAccountRole extends Construct {
  readonly role: Role;
  readonly account: CfnAccount;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: "API Gateway's account role in this region: writes REST stage logs to CloudWatch Logs",
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName(PUSH_TO_LOGS)],
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${PUSH_TO_LOGS}]`,
      reason:
        'API Gateway writes to log groups it names itself (API-Gateway-Execution-Logs_<api>/<stage>) for every API of the account; the AWS managed policy is the documented grant for that account-wide role, and AWS keeps it in step with the service.',
    });
  }
}
