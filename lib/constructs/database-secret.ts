import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { SecretRef } from '../config/deploy-config.js';
import type { NaabaFunction } from './naaba-function.js';

/** How a function names a secret and what IAM allows it on: the name or the ARN from cdk.json. */
export interface SecretAddress {
  /** What the function passes to GetSecretValue. */
  readonly secretId: string;
  /** The one resource GetSecretValue is allowed on. */
  readonly policyArn: string;
}

/** A secret of cdk.json by name is allowed with the 6 random characters Secrets Manager appends (`?` matches exactly one). */
export function secretAddress(scope: Construct, secret: SecretRef): SecretAddress {
  if (secret.kind === 'arn') return { secretId: secret.arn, policyArn: secret.arn };
  return {
    secretId: secret.name,
    policyArn: Stack.of(scope).formatArn({
      service: 'secretsmanager',
      resource: 'secret',
      resourceName: `${secret.name}-??????`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    }),
  };
}

export interface DatabaseSecretProps {
  readonly secret: SecretRef;
  readonly poolMax: number;
  readonly statementTimeoutMs: number;
}

/**
 * One function's CockroachDB connection string, kept in Secrets Manager and created by the
 * operator (never by this app, so its value never passes through a template): the URL of that
 * function's own login (decision 0093). Functions get the secret's id, never its value: they read
 * it at cold start, and again when the database refuses the password (decision 0092).
 */
export class DatabaseSecret extends Construct implements SecretAddress {
  readonly secretId: string;
  readonly policyArn: string;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: DatabaseSecretProps,
  ) {
    super(scope, id);
    ({ secretId: this.secretId, policyArn: this.policyArn } = secretAddress(this, props.secret));
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
