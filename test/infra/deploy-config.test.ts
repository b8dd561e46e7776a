import { DeployConfigError, readDeployConfig } from '../../lib/config/deploy-config.js';
import { CDK_CONTEXT } from './support.js';

const reader = (overrides: Record<string, unknown>) => {
  const context: Record<string, unknown> = { ...CDK_CONTEXT, ...overrides };
  return (key: string) => context[key];
};

/** The message of the DeployConfigError these overrides cause. */
function problemsWith(overrides: Record<string, unknown>): string {
  try {
    readDeployConfig(reader(overrides));
  } catch (error) {
    if (error instanceof DeployConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a DeployConfigError');
}

test('the committed cdk.json parses: regions with their secret and judge profile', () => {
  const config = readDeployConfig(reader({}));

  expect(config.regions.map((r) => [r.awsRegion, r.naabaRegion, r.secret, r.models.judgeProfileId])).toEqual([
    ['eu-central-1', 'eu-central-1', { kind: 'name', name: 'naaba/eu-central-1/database' }, 'eu.amazon.nova-micro-v1:0'],
    ['us-east-1', 'us-east-1', { kind: 'name', name: 'naaba/us-east-1/database' }, 'us.amazon.nova-micro-v1:0'],
  ]);
  expect(config.account).toBeUndefined();
  expect(config.curation).toBeUndefined();
});

test('settings left out take their defaults', () => {
  const config = readDeployConfig(
    reader({ 'naaba:api': undefined, 'naaba:sweeper': undefined, 'naaba:logs': undefined, 'naaba:database': undefined }),
  );

  expect(config.api).toEqual({
    stageName: 'v1',
    rateLimit: 50,
    burstLimit: 100,
    healthzRateLimit: 5,
    healthzBurstLimit: 10,
    authorizerCacheSeconds: 60,
  });
  expect(config.sweeper.schedule).toBe('rate(1 hour)');
  expect(config.logs).toEqual({ level: 'INFO', retentionDays: 30 });
});

test('a -c override arrives as JSON text and is read as JSON', () => {
  const config = readDeployConfig(reader({ 'naaba:regions': '{"eu-west-1": {"secret": "db/eu-west-1"}}' }));

  expect(config.regions.map((r) => r.awsRegion)).toEqual(['eu-west-1']);
});

test('a complete secret ARN is used as is', () => {
  const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:naaba/db-AbC123';

  const config = readDeployConfig(reader({ 'naaba:regions': { 'eu-central-1': { secret: arn } } }));

  expect(config.regions[0]?.secret).toEqual({ kind: 'arn', arn });
});

test.each([
  ['no regions', { 'naaba:regions': undefined }, /naaba:regions: missing: map each AWS region to/],
  ['an empty region list', { 'naaba:regions': {} }, /naaba:regions: name at least one region/],
  ['a misspelt setting', { 'naaba:api': { rateLimt: 5 } }, /naaba:api: .*rateLimt/],
  ['a bad schedule', { 'naaba:sweeper': { schedule: 'every hour' } }, /naaba:sweeper\.schedule: an EventBridge expression/],
  ['a retention CloudWatch refuses', { 'naaba:logs': { retentionDays: 31 } }, /naaba:logs\.retentionDays: one of 1, 3, 5/],
  [
    'a titan dimension that does not exist',
    { 'naaba:bedrock': { ...(CDK_CONTEXT['naaba:bedrock'] as object), embeddingDimensions: 768 } },
    /embeddingDimensions/,
  ],
  [
    'a region without a judge geography',
    { 'naaba:regions': { 'sa-east-1': { secret: 'db' } } },
    /sa-east-1 is in no geography \(eu, us, apac\)/,
  ],
  [
    'a secret of another region',
    { 'naaba:regions': { 'eu-central-1': { secret: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:db-AbC123' } } },
    /the secret is in us-east-1; each region reads a secret of its own region/,
  ],
  ['an override that is not JSON', { 'naaba:api': '{rateLimit: 5}' }, /naaba:api: the override is not valid JSON/],
  ['an account id that is not one', { 'naaba:account': '1234' }, /naaba:account: a 12-digit AWS account id/],
])('%s is refused with a message naming the setting', (_name, overrides, message) => {
  expect(problemsWith(overrides)).toMatch(message);
});

test('every problem is reported at once', () => {
  const message = problemsWith({ 'naaba:logs': { level: 'LOUD' }, 'naaba:api': { burstLimit: -1 } });

  expect(message).toMatch(/^cdk.json context is not deployable:/);
  expect(message).toContain('naaba:logs.level');
  expect(message).toContain('naaba:api.burstLimit');
});
