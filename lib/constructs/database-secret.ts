import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { SecretRef } from '../config/deploy-config.js';
import type { NaabaFunction } from './naaba-function.js';

export interface DatabaseSecretProps {
  readonly secret: SecretRef;
  readonly poolMax: number;
  readonly statementTimeoutMs: number;
}

/**
 * The region's CockroachDB connection string, kept in Secrets Manager and created by the operator
 * (never by this app, so its value never passes through a template). Functions get the secret's id,
 * never its value: they read it once per container at cold start.
 */
export class DatabaseSecret extends Construct {
  /** What the functions pass to GetSecretValue: the name or the complete ARN from cdk.json. */
  readonly secretId: string;
  /** The one resource GetSecretValue is allowed on. */
  readonly policyArn: string;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: DatabaseSecretProps,
  ) {
    super(scope, id);
    const secret = props.secret;
    this.secretId = secret.kind === 'arn' ? secret.arn : secret.name;
    // By name, IAM must allow the 6 random characters Secrets Manager appends: `?` matches exactly one.
    this.policyArn =
      secret.kind === 'arn'
        ? secret.arn
        : Stack.of(this).formatArn({
            service: 'secretsmanager',
            resource: 'secret',
            resourceName: `${secret.name}-??????`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          });
  }

  /** Lets the function read this secret and nothing else of Secrets Manager, and tells it where the database is. */
  grantRead(fn: NaabaFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({ sid: 'ReadDatabaseSecret', actions: ['secretsmanager:GetSecretValue'], resources: [this.policyArn] }),
      'secretsManager',
    );
    fn.addEnvironment('NAABA_DATABASE_SECRET_ID', this.secretId);
    fn.addEnvironment('NAABA_DB_ENGINE', 'cockroach');
    fn.addEnvironment('NAABA_DB_POOL_MAX', String(this.props.poolMax));
    fn.addEnvironment('NAABA_DB_STATEMENT_TIMEOUT_MS', String(this.props.statementTimeoutMs));
  }
}
