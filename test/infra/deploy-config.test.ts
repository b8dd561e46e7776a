import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environment } from '../../lambda/config/env.js';
import { REPO_ROOT } from '../../lib/bundling.js';
import { DeployConfigError, readDeployConfig } from '../../lib/config/deploy-config.js';
import { CDK_CONTEXT } from './support.js';

const reader = (overrides: Record<string, unknown>) => {
  const context: Record<string, unknown> = { ...CDK_CONTEXT, ...overrides };
  return (key: string) => context[key];
};

const vpce = (region: string) => `com.amazonaws.vpce.${region}.vpce-svc-0123456789abcdef0`;
const bothRegions = {
  'eu-central-1': { databaseEndpointService: vpce('eu-central-1') },
  'us-east-1': { databaseEndpointService: vpce('us-east-1') },
};
/** One secret per function and the verification key's, named under `base` (decision 0093). */
const secrets = (base = 'db') => ({
  mcp: `${base}/mcp`,
  authorizer: `${base}/authorizer`,
  sweeper: `${base}/sweeper`,
  verifyKey: `${base}/verify-key`,
});
const subnet = (zone: string, n = 0) => ({ subnetId: `subnet-0123456789abcdef${n}`, availabilityZone: `eu-central-1${zone}` });

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

test('the committed cdk.json parses: regions with a secret per function, the verification key and the judge profile', () => {
  const config = readDeployConfig(reader({}));
  const named = (name: string) => ({ kind: 'name', name });

  expect(config.regions.map((r) => [r.awsRegion, r.naabaRegion, r.models.judgeProfileId])).toEqual([
    ['eu-central-1', 'aws-eu-central-1', 'eu.amazon.nova-micro-v1:0'],
    ['us-east-1', 'aws-us-east-1', 'us.amazon.nova-micro-v1:0'],
  ]);
  for (const r of config.regions) {
    expect(r.secrets).toEqual({
      mcp: named(`naaba/${r.awsRegion}/database/mcp`),
      authorizer: named(`naaba/${r.awsRegion}/database/authorizer`),
      sweeper: named(`naaba/${r.awsRegion}/database/sweeper`),
      verifyKey: named(`naaba/${r.awsRegion}/verify-key`),
    });
  }
  expect(config.regions.map((r) => [r.apiAccountRole, r.network])).toEqual([
    ['create', undefined],
    ['create', undefined],
  ]);
  expect(config.account).toBeUndefined();
  expect(config.curation).toBeUndefined();
});

test('settings left out take their defaults', () => {
  const config = readDeployConfig(
    reader({
      'naaba:api': undefined,
      'naaba:sweeper': undefined,
      'naaba:logs': undefined,
      'naaba:database': undefined,
      'naaba:network': undefined,
      'naaba:alarms': { email: 'ops@example.com' },
      'naaba:deploy': undefined,
      'naaba:waf': undefined,
      'naaba:concurrency': undefined,
    }),
  );

  expect(config.api).toEqual({
    stageName: 'v1',
    rateLimit: 50,
    burstLimit: 100,
    healthzRateLimit: 5,
    healthzBurstLimit: 10,
    authorizerCacheSeconds: 60,
    accountRole: 'create',
    keyRateLimit: 10,
    keyBurstLimit: 20,
    keyBuckets: 50,
  });
  expect(config.deploy).toEqual({ traffic: 'canary', percent: 10, intervalMinutes: 5, alarms: 'rollback', bakeMinutes: 10 });
  expect(config.waf).toEqual({ enabled: true, requestsPerAddress: 1000, windowSeconds: 300 });
  expect(config.concurrency).toEqual({ authorizerReserved: 20, mcpReserved: 'none' });
  expect(config.sweeper.schedule).toBe('rate(1 hour)');
  expect(config.logs).toEqual({ level: 'INFO', retentionDays: 30 });
  expect(config.database.regionNames).toBe('cockroach-cloud');
  expect(config.regions.map((r) => r.network)).toEqual([undefined, undefined]);
  expect(config.alarms).toEqual({
    email: ['ops@example.com'],
    functionErrors: 1,
    functionThrottles: 1,
    api5xx: 5,
    apiLatencyP99Ms: 5000,
    authorizerCrashes: 1,
    authorizerFailures: 5,
    storeUnavailable: 5,
    authorizerUnauthorized: 100,
    wafBlocked: 100,
    releaseBedrockFailureRate: 0.5,
    releaseJudgeFailureRate: 0.5,
    toolInternal: 1,
    embedderUnavailable: 5,
    judgeUnavailableRate: 0.2,
    judgePeriods: 3,
    securityEvents: 20,
  });
});

describe('who is told when an alarm fires (decision 0095)', () => {
  test.each([
    ['no naaba:alarms at all', undefined],
    ['thresholds but no one to tell', { api5xx: 3 }],
    ['an empty list of addresses', { email: [] }],
  ])('%s: the configuration is accepted (synth then warns that no one will be told)', (_name, alarms) => {
    const config = readDeployConfig(reader({ 'naaba:alarms': alarms }));

    expect(config.alarms.email).toEqual([]);
    expect(config.alarms.noSubscriberReason).toBeUndefined();
  });

  test('the CDK app synthesizes the committed cdk.json and prints the warning, with exit status 0', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'naaba-synth-'));
    try {
      const context = { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] };
      const run = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [join(REPO_ROOT, 'node_modules/tsx/dist/cli.mjs'), join(REPO_ROOT, 'bin/app.ts')], {
          env: { ...environment(), CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
        });
        let output = '';
        child.stdout.on('data', (d) => {
          output += d;
        });
        child.stderr.on('data', (d) => {
          output += d;
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, output }));
      });

      expect(run.code).toBe(0);
      for (const region of Object.keys(CDK_CONTEXT['naaba:regions'] as object)) {
        expect(run.output).toContain(`No one will be told: the alarms of naaba-${region} notify a topic with no subscriber.`);
      }
      expect(readdirSync(outdir)).toContain('naaba-eu-central-1.template.json');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });

  test('an explicit reason is accepted, and kept with the configuration', () => {
    const reason = 'paged through PagerDuty, subscribed outside the stack';

    const config = readDeployConfig(reader({ 'naaba:alarms': { noSubscriberReason: reason } }));

    expect(config.alarms).toMatchObject({ email: [], noSubscriberReason: reason });
  });

  test('the committed cdk.json names no placeholder reason: as it is, it tells no one, and synth says so', () => {
    const alarms = CDK_CONTEXT['naaba:alarms'] as { email?: unknown; noSubscriberReason?: string };

    expect(alarms.email).toBeUndefined();
    expect(alarms.noSubscriberReason).toBeUndefined();
  });

  test.each([
    [
      'addresses and a reason at once',
      { email: 'ops@example.com', noSubscriberReason: 'subscribed elsewhere as well' },
      /naaba:alarms\.noSubscriberReason: set it only when naaba:alarms\.email is empty/,
    ],
    ['a reason too short to say anything', { noSubscriberReason: 'none' }, /naaba:alarms\.noSubscriberReason: a sentence/],
  ])('%s is refused', (_name, alarms, message) => {
    expect(problemsWith({ 'naaba:alarms': alarms })).toMatch(message);
  });
});

test.each([
  ['cockroach-cloud', undefined, 'aws-eu-central-1'],
  ['aws', undefined, 'eu-central-1'],
  ['cockroach-cloud', 'aws-eu-west-1', 'aws-eu-west-1'],
  ['aws', 'frankfurt', 'frankfurt'],
])('regionNames %s with naabaRegion %s: the stack serves %s', (regionNames, naabaRegion, expected) => {
  const config = readDeployConfig(
    reader({
      'naaba:regions': { 'eu-central-1': { secrets: secrets(), ...(naabaRegion ? { naabaRegion } : {}) } },
      'naaba:database': { regionNames },
    }),
  );

  expect(config.regions[0]?.naabaRegion).toBe(expected);
});

test('mode vpc: each region gets its own network, with the defaults of the database endpoint', () => {
  const service = (r: string) => `com.amazonaws.vpce.${r}.vpce-svc-0123456789abcdef0`;
  const config = readDeployConfig(
    reader({
      'naaba:network': {
        mode: 'vpc',
        regions: {
          'eu-central-1': { databaseEndpointService: service('eu-central-1') },
          'us-east-1': { databaseEndpointService: service('us-east-1'), databasePort: 5432 },
        },
      },
    }),
  );

  expect(config.regions.map((r) => r.network)).toEqual([
    { databaseEndpointService: service('eu-central-1'), databasePort: 26257, databasePrivateDns: true },
    { databaseEndpointService: service('us-east-1'), databasePort: 5432, databasePrivateDns: true },
  ]);
});

test('one e-mail address or several', () => {
  expect(readDeployConfig(reader({ 'naaba:alarms': { email: 'ops@example.com' } })).alarms.email).toEqual(['ops@example.com']);
  expect(readDeployConfig(reader({ 'naaba:alarms': { email: ['a@example.com', 'b@example.com'] } })).alarms.email).toHaveLength(
    2,
  );
});

test('a -c override arrives as JSON text and is read as JSON', () => {
  const config = readDeployConfig(
    reader({ 'naaba:regions': JSON.stringify({ 'eu-west-1': { secrets: secrets('db/eu-west-1') } }) }),
  );

  expect(config.regions.map((r) => r.awsRegion)).toEqual(['eu-west-1']);
});

test('a complete secret ARN is used as is', () => {
  const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:naaba/db-AbC123';

  const config = readDeployConfig(reader({ 'naaba:regions': { 'eu-central-1': { secrets: { ...secrets(), mcp: arn } } } }));

  expect(config.regions[0]?.secrets.mcp).toEqual({ kind: 'arn', arn });
  expect(config.regions[0]?.secrets.authorizer).toEqual({ kind: 'name', name: 'db/authorizer' });
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
    { 'naaba:regions': { 'sa-east-1': { secrets: secrets() } } },
    /sa-east-1 is in no geography \(eu, us, apac\)/,
  ],
  [
    'a secret of another region',
    {
      'naaba:regions': {
        'eu-central-1': { secrets: { ...secrets(), sweeper: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:db-AbC123' } },
      },
    },
    /naaba:regions\.eu-central-1\.secrets\.sweeper: the secret is in us-east-1; each region reads a secret of its own region/,
  ],
  [
    'one secret for two functions',
    { 'naaba:regions': { 'eu-central-1': { secrets: { ...secrets(), authorizer: 'db/mcp' } } } },
    /naaba:regions\.eu-central-1\.secrets: db\/mcp is named twice; each function logs in with its own secret/,
  ],
  [
    'the one secret of before (a login shared by every function)',
    { 'naaba:regions': { 'eu-central-1': { secret: 'naaba/eu-central-1/database' } } },
    /naaba:regions\.eu-central-1\.secret: one secret per function now \(decision 0093\): replace "secret" by "secrets"/,
  ],
  [
    'a function without its secret',
    { 'naaba:regions': { 'eu-central-1': { secrets: { mcp: 'a', authorizer: 'b', sweeper: 'c' } } } },
    /naaba:regions\.eu-central-1\.secrets\.verifyKey/,
  ],
  [
    'a reservation of no concurrency',
    { 'naaba:concurrency': { authorizerReserved: 0 } },
    /naaba:concurrency\.authorizerReserved/,
  ],
  ['a bake longer than a hook may run', { 'naaba:deploy': { bakeMinutes: 20 } }, /naaba:deploy\.bakeMinutes/],
  ['an override that is not JSON', { 'naaba:api': '{rateLimit: 5}' }, /naaba:api: the override is not valid JSON/],
  ['an account id that is not one', { 'naaba:account': '1234' }, /naaba:account: a 12-digit AWS account id/],
  ['an unknown account role choice', { 'naaba:api': { accountRole: 'maybe' } }, /naaba:api\.accountRole: either "create"/],
  [
    'an unknown account role choice for a region',
    { 'naaba:regions': { 'eu-central-1': { secrets: secrets(), apiAccountRole: 'no' } } },
    /naaba:regions\.eu-central-1\.apiAccountRole: either "create"/,
  ],
  [
    'an unknown region naming',
    { 'naaba:database': { regionNames: 'gcp' } },
    /naaba:database\.regionNames: either "cockroach-cloud"/,
  ],
  [
    'a CockroachDB Cloud region without its prefix',
    { 'naaba:regions': { 'eu-central-1': { secrets: secrets(), naabaRegion: 'eu-central-1' } } },
    /naaba:regions\.eu-central-1\.naabaRegion: CockroachDB Cloud names AWS regions aws-<region> \(aws-eu-central-1\)/,
  ],
  ['an unknown network mode', { 'naaba:network': { mode: 'private' } }, /naaba:network(\.mode)?: expected \{"mode": "public"\}/],
  ['mode vpc without regions', { 'naaba:network': { mode: 'vpc' } }, /naaba:network\.regions/],
  [
    'mode vpc missing a deployed region',
    { 'naaba:network': { mode: 'vpc', regions: { 'eu-central-1': { databaseEndpointService: vpce('eu-central-1') } } } },
    /naaba:network\.regions: mode "vpc" needs an entry for us-east-1/,
  ],
  [
    'a network for a region that is not deployed',
    {
      'naaba:network': { mode: 'vpc', regions: { ...bothRegions, 'eu-west-1': { databaseEndpointService: vpce('eu-west-1') } } },
    },
    /naaba:network\.regions\.eu-west-1: eu-west-1 is not in naaba:regions/,
  ],
  [
    'an endpoint service of another region',
    {
      'naaba:network': {
        mode: 'vpc',
        regions: { ...bothRegions, 'eu-central-1': { databaseEndpointService: vpce('us-east-1') } },
      },
    },
    /naaba:network\.regions\.eu-central-1\.databaseEndpointService: the service is in us-east-1/,
  ],
  [
    'an endpoint service name that is not one',
    {
      'naaba:network': {
        mode: 'vpc',
        regions: { ...bothRegions, 'eu-central-1': { databaseEndpointService: 'cluster.example.com' } },
      },
    },
    /naaba:network\.regions\.eu-central-1\.databaseEndpointService: the endpoint service name/,
  ],
  [
    'a given VPC with one subnet',
    {
      'naaba:network': {
        mode: 'vpc',
        regions: {
          ...bothRegions,
          'eu-central-1': { ...bothRegions['eu-central-1'], vpc: { vpcId: 'vpc-0123456789abcdef0', subnets: [subnet('a')] } },
        },
      },
    },
    /naaba:network\.regions\.eu-central-1\.vpc\.subnets: at least two private subnets/,
  ],
  [
    'two subnets in one zone',
    {
      'naaba:network': {
        mode: 'vpc',
        regions: {
          ...bothRegions,
          'eu-central-1': {
            ...bothRegions['eu-central-1'],
            vpc: { vpcId: 'vpc-0123456789abcdef0', subnets: [subnet('a'), subnet('a', 1)] },
          },
        },
      },
    },
    /vpc\.subnets: one subnet per availability zone/,
  ],
  [
    'a subnet in another region',
    {
      'naaba:network': {
        mode: 'vpc',
        regions: {
          ...bothRegions,
          'eu-central-1': {
            ...bothRegions['eu-central-1'],
            vpc: {
              vpcId: 'vpc-0123456789abcdef0',
              subnets: [subnet('a'), { subnetId: 'subnet-0123456789abcdef9', availabilityZone: 'us-east-1b' }],
            },
          },
        },
      },
    },
    /vpc\.subnets\.1\.availabilityZone: us-east-1b is not in eu-central-1/,
  ],
  [
    'a VPC id that is not one',
    {
      'naaba:network': {
        mode: 'vpc',
        regions: {
          ...bothRegions,
          'eu-central-1': { ...bothRegions['eu-central-1'], vpc: { vpcId: 'default', subnets: [subnet('a'), subnet('b', 1)] } },
        },
      },
    },
    /vpc\.vpcId: a VPC id such as vpc-/,
  ],
  [
    'a CIDR next to a given VPC',
    {
      'naaba:network': {
        mode: 'vpc',
        regions: {
          ...bothRegions,
          'eu-central-1': {
            ...bothRegions['eu-central-1'],
            vpcCidr: '10.1.0.0/16',
            vpc: { vpcId: 'vpc-0123456789abcdef0', subnets: [subnet('a'), subnet('b', 1)] },
          },
        },
      },
    },
    /eu-central-1\.vpcCidr: vpcCidr is for the VPC this stack creates/,
  ],
  ['an e-mail address that is not one', { 'naaba:alarms': { email: 'ops at example' } }, /naaba:alarms\.email/],
  ['a judge rate above 1', { 'naaba:alarms': { judgeUnavailableRate: 20 } }, /naaba:alarms\.judgeUnavailableRate/],
  ['a misspelt alarm setting', { 'naaba:alarms': { api500: 3 } }, /naaba:alarms: .*api500/],
  [
    'an unknown traffic shift',
    { 'naaba:deploy': { traffic: 'blue-green' } },
    /naaba:deploy\.traffic: one of canary, linear, all-at-once/,
  ],
  ['a canary of all the traffic', { 'naaba:deploy': { percent: 100 } }, /naaba:deploy\.percent/],
  [
    'alarms neither watched nor ignored',
    { 'naaba:deploy': { alarms: 'maybe' } },
    /naaba:deploy\.alarms: either "rollback" or "ignore"/,
  ],
  ['more key buckets than a stack holds', { 'naaba:api': { keyBuckets: 101 } }, /naaba:api\.keyBuckets/],
  ["a WAF limit below WAF's lowest", { 'naaba:waf': { enabled: true, requestsPerAddress: 5 } }, /naaba:waf\.requestsPerAddress/],
  [
    'a WAF window WAF does not offer',
    { 'naaba:waf': { windowSeconds: 900 } },
    /naaba:waf\.windowSeconds: one of 60, 120, 300, 600/,
  ],
])('%s is refused with a message naming the setting', (_name, overrides, message) => {
  expect(problemsWith(overrides)).toMatch(message);
});

test('every problem is reported at once', () => {
  const message = problemsWith({ 'naaba:logs': { level: 'LOUD' }, 'naaba:api': { burstLimit: -1 } });

  expect(message).toMatch(/^cdk.json context is not deployable:/);
  expect(message).toContain('naaba:logs.level');
  expect(message).toContain('naaba:api.burstLimit');
});
