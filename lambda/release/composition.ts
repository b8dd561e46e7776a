import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CloudWatchAlarmStates } from '../adapters/aws/cloudwatch-alarms.js';
import { CodeDeployHooks } from '../adapters/aws/codedeploy-hooks.js';
import { LambdaVersionInvoker } from '../adapters/aws/lambda-invoker.js';
import { environment } from '../config/env.js';
import { ConfigError } from '../config/errors.js';
import { type ReleaseCheckConfig, readReleaseCheckConfig } from '../config/release-check.js';
import type { AlarmStates } from './bake.js';
import type { VersionInvoker } from './checks.js';

export type { HookEvent } from '../adapters/aws/codedeploy-hooks.js';

/** What a release check works with: its settings and the AWS APIs it calls. */
export interface ReleaseCheckParts {
  readonly config: ReleaseCheckConfig;
  readonly invoker: VersionInvoker;
  readonly alarms: AlarmStates;
  readonly hooks: CodeDeployHooks;
  /** The verification key's token, read from its secret; never logged. */
  verificationKey(): Promise<string>;
}

/** A token naaba issued: its prefix, then 43 characters (the authorizer's own pattern lets nothing else through). */
const TOKEN = /^nba?_[A-Za-z0-9_-]{43}$/;

/**
 * The composition root of the release checks: their clients, with the SDK's defaults (region and
 * credentials of the Lambda environment; an endpoint from AWS_ENDPOINT_URL_* where one is set).
 */
export function releaseCheckParts(): ReleaseCheckParts {
  const config = readReleaseCheckConfig(environment());
  const secrets = new SecretsManagerClient({});
  return {
    config,
    invoker: new LambdaVersionInvoker(new LambdaClient({})),
    alarms: new CloudWatchAlarmStates(new CloudWatchClient({})),
    hooks: new CodeDeployHooks(new CodeDeployClient({})),
    async verificationKey() {
      const out = await secrets.send(new GetSecretValueCommand({ SecretId: config.keySecretId }));
      const token = out.SecretString?.trim() ?? '';
      if (!TOKEN.test(token)) {
        throw new ConfigError(
          `secret ${config.keySecretId} does not hold a naaba key (nb_ and 43 characters): see docs/deployment.md §6`,
        );
      }
      return token;
    },
  };
}
