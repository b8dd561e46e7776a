import * as z from 'zod';
import { ENDPOINT_SERVICE, type RegionNetworkContext, regionNetwork } from './network-context.js';

/**
 * The shape of naaba's cdk.json context keys. Every key is its own top-level context entry so an
 * operator can override one on the command line (`cdk synth -c 'naaba:api={"rateLimit":20,...}'`).
 * Objects are strict: a misspelt setting is an error, not a silently ignored line.
 */

const AWS_REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$/;
const NAABA_REGION = /^[a-z0-9][a-z0-9-]{0,62}$/;
const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/;
const DOMAIN_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[0-9a-f-]{36}$/;
const MODEL_ID = /^[a-z0-9-]+\.[a-z0-9.-]+(:\d+)?$/;
const SCHEDULE = /^(rate\(([1-9]\d*) (minute|minutes|hour|hours|day|days)\)|cron\(\S+( \S+){5}\))$/;
/** CloudWatch Logs accepts these retention periods only (days). */
export const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

export const awsRegion = z.string().regex(AWS_REGION, 'expected an AWS region name such as eu-central-1');

const accountRole = z.enum(
  ['create', 'existing'],
  'either "create" (this stack sets the role) or "existing" (the account has one)',
);

const secretId = z
  .string()
  .refine(
    (s) => SECRET_NAME.test(s) || SECRET_ARN.test(s),
    'expected a secret name, or a complete secret ARN (with its 6-character suffix)',
  );

/** The functions that log in to the database, each with a login of its own (decision 0093). */
export const DATABASE_FUNCTIONS = ['mcp', 'authorizer', 'sweeper'] as const;

const regionEntry = z.strictObject({
  /**
   * One secret per function, each holding the connection string of that function's own login, and
   * the verification key the pre-traffic check signs in with (decisions 0091, 0093).
   */
  secrets: z.strictObject(
    {
      mcp: secretId,
      authorizer: secretId,
      sweeper: secretId,
      verifyKey: secretId,
    },
    {
      error: (issue) =>
        issue.input === undefined
          ? 'missing: {"mcp": …, "authorizer": …, "sweeper": …, "verifyKey": …}, a secret name or ARN each (docs/deployment.md §3)'
          : undefined,
    },
  ),
  /** Replaced by `secrets` (one login per function): refused with what to write instead. */
  secret: z
    .unknown()
    .refine(
      () => false,
      'one secret per function now (decision 0093): replace "secret" by "secrets": {"mcp": …, "authorizer": …, "sweeper": …, "verifyKey": …} (docs/deployment.md §3)',
    )
    .optional(),
  naabaRegion: z.string().regex(NAABA_REGION, 'lowercase letters, digits and dashes').optional(),
  /** Overrides `naaba:api.accountRole` for this region. */
  apiAccountRole: accountRole.optional(),
  /**
   * A custom domain mapped at its root, so the endpoint's URLs have no stage segment: what OAuth
   * clients need to find the authorization server metadata (decision 0054).
   */
  domain: z
    .strictObject({
      name: z.string().regex(DOMAIN_NAME, 'a lower-case DNS name such as memory.example.com'),
      certificateArn: z
        .string()
        .regex(CERTIFICATE_ARN, 'an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>)'),
    })
    .optional(),
});

const EMAIL = z.email('an e-mail address');

/** Each bucket is two resources (an API key and its usage-plan key); 100 keep a stack far from CloudFormation's 500. */
export const MAX_KEY_BUCKETS = 100;

/** How CodeDeploy moves traffic to a new version (decision 0068). */
export const TRAFFIC_SHIFTS = ['canary', 'linear', 'all-at-once'] as const;

/** The evaluation windows WAF accepts for a rate-based rule, in seconds. */
const WAF_WINDOWS = [60, 120, 300, 600] as const;

export const contextSchema = {
  'naaba:stackPrefix': z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9-]{0,40}$/, 'letters, digits and dashes, starting with a letter')
    .default('naaba'),
  'naaba:account': z
    .string()
    .regex(/^\d{12}$/, 'a 12-digit AWS account id')
    .optional(),
  'naaba:regions': z
    .record(awsRegion, regionEntry, {
      error: (issue) =>
        issue.input === undefined
          ? 'missing: map each AWS region to {"secrets": {"mcp": …, "authorizer": …, "sweeper": …, "verifyKey": …}}'
          : undefined,
    })
    .refine((r) => Object.keys(r).length > 0, 'name at least one region'),
  'naaba:bedrock': z.strictObject({
    embeddingModel: z.string().regex(MODEL_ID, 'a Bedrock model id').default('amazon.titan-embed-text-v2:0'),
    embeddingDimensions: z.union([z.literal(256), z.literal(512), z.literal(1024)]).default(1024),
    judgeModel: z.string().regex(MODEL_ID, 'a Bedrock model id').default('amazon.nova-micro-v1:0'),
    /** Geography prefix of the judge's inference profile → the regions that profile serves and routes to. */
    judgeProfiles: z.partialRecord(z.enum(['eu', 'us', 'apac', 'ca', 'jp', 'au', 'us-gov']), z.array(awsRegion).min(1)),
  }),
  'naaba:api': z
    .strictObject({
      stageName: z
        .string()
        .regex(/^[A-Za-z0-9_]{1,64}$/, 'letters, digits and underscores')
        .default('v1'),
      rateLimit: z.number().positive().default(50),
      burstLimit: z.number().int().positive().default(100),
      healthzRateLimit: z.number().positive().default(5),
      healthzBurstLimit: z.number().int().positive().default(10),
      authorizerCacheSeconds: z.number().int().min(0).max(3600).default(60),
      /** The account's API Gateway CloudWatch role (per account and region), which stage access logging needs. */
      accountRole: accountRole.default('create'),
      /**
       * Per-key throttling (decision 0070): requests per second and burst of one usage bucket. Each
       * key is placed in one of `keyBuckets` buckets by its id; a bucket is an API Gateway API key of
       * the stack's usage plan, named by the authorizer as the request's usage identifier.
       */
      keyRateLimit: z.number().positive().default(10),
      keyBurstLimit: z.number().int().positive().default(20),
      keyBuckets: z.number().int().min(1).max(MAX_KEY_BUCKETS).default(50),
    })
    .prefault({}),
  'naaba:sweeper': z
    .strictObject({
      schedule: z
        .string()
        .regex(SCHEDULE, 'an EventBridge expression: rate(1 hour) or cron(0 3 * * ? *)')
        .default('rate(1 hour)'),
      retryAttempts: z.number().int().min(0).max(2).default(2),
      maxEventAgeHours: z.number().int().min(1).max(6).default(6),
      batchSize: z.number().int().min(1).max(10_000).default(500),
      maxBatches: z.number().int().min(1).max(100_000).default(200),
    })
    .prefault({}),
  'naaba:logs': z
    .strictObject({
      level: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
      retentionDays: z
        .number()
        .refine((d) => (RETENTION_DAYS as readonly number[]).includes(d), `one of ${RETENTION_DAYS.join(', ')}`)
        .default(30),
    })
    .prefault({}),
  'naaba:database': z
    .strictObject({
      poolMax: z.number().int().min(1).max(20).default(2),
      statementTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
      /**
       * How the cluster names the AWS regions, and so the default naaba region of each stack: CockroachDB
       * Cloud says `aws-eu-central-1`; a self-hosted cluster started with `--locality=region=eu-central-1` says `aws`.
       */
      regionNames: z
        .enum(['cockroach-cloud', 'aws'], 'either "cockroach-cloud" (aws-eu-central-1) or "aws" (eu-central-1)')
        .default('cockroach-cloud'),
    })
    .prefault({}),
  /** Where the functions run: outside any VPC, or in private isolated subnets reaching AWS and the database over PrivateLink. */
  'naaba:network': z
    .discriminatedUnion(
      'mode',
      [
        z.strictObject({ mode: z.literal('public') }),
        z.strictObject({
          mode: z.literal('vpc'),
          regions: z.record(awsRegion, regionNetwork, {
            error: (issue) =>
              issue.input === undefined
                ? 'missing: map each AWS region to {"databaseEndpointService": "com.amazonaws.vpce.<region>.vpce-svc-…"}'
                : undefined,
          }),
        }),
      ],
      { error: 'expected {"mode": "public"} or {"mode": "vpc", "regions": {...}}' },
    )
    .default({ mode: 'public' }),
  /** Who is told, and when: every alarm notifies the region's SNS topic; thresholds per 5-minute period. */
  'naaba:alarms': z
    .strictObject({
      email: z.union([EMAIL, z.array(EMAIL)]).optional(),
      /**
       * Why no address is subscribed by the stack (e.g. the topic is subscribed outside it). Without
       * `email` or this, synthesis fails: an alarm topic nobody reads pages no one.
       */
      noSubscriberReason: z.string().trim().min(10, 'a sentence saying who is told instead, or why no one is').optional(),
      /** Failed invocations of the MCP function and the sweeper (neither fails on purpose). */
      functionErrors: z.number().int().min(1).default(1),
      functionThrottles: z.number().int().min(1).default(1),
      api5xx: z.number().int().min(1).default(5),
      apiLatencyP99Ms: z.number().int().min(100).max(29_000).default(5000),
      /** Authorizer invocations that crashed or timed out: never a refused key, never a 503 it chose (decision 0090). */
      authorizerCrashes: z.number().int().min(1).default(1),
      /** 503s the authorizer gave because it could not read keys, per 5 minutes. */
      authorizerFailures: z.number().int().min(1).default(5),
      /** 503s the MCP function gave because it could not reach its database, per 5 minutes (a deploy's new version). */
      storeUnavailable: z.number().int().min(1).default(5),
      /**
       * Distinct refused tokens (unknown, malformed, revoked) per 5 minutes, each counted once per
       * container: a flood of made-up tokens, not one client left with an old key (decision 0133).
       */
      authorizerUnauthorized: z.number().int().min(1).default(100),
      /** Requests WAF blocked per 5 minutes (its rate rule and the managed rule groups together). */
      wafBlocked: z.number().int().min(1).default(100),
      /**
       * During a deploy, the share of the new version's tool calls that failed for want of
       * embeddings, over one period: a rollback alarm (decisions 0091, 0133).
       */
      releaseBedrockFailureRate: z.number().gt(0).max(1).default(0.5),
      /** During a deploy, the share of the new version's judge calls without a verdict: a rollback alarm (decision 0133). */
      releaseJudgeFailureRate: z.number().gt(0).max(1).default(0.5),
      toolInternal: z.number().int().min(1).default(1),
      embedderUnavailable: z.number().int().min(1).default(5),
      /** Share of the judge's calls that got no verdict, over `judgePeriods` 5-minute periods in a row. */
      judgeUnavailableRate: z.number().gt(0).max(1).default(0.2),
      judgePeriods: z.number().int().min(1).max(12).default(3),
      /**
       * Distinct sources of security events (a refused token, a key, an address) per 5 minutes, each
       * counted once per event kind and container (decision 0133).
       */
      securityEvents: z.number().int().min(1).default(20),
    })
    .prefault({}),
  /**
   * How a new version of the MCP and authorizer functions receives traffic: CodeDeploy shifts
   * `percent` first (canary) or every interval (linear), watching the error alarms, and rolls back
   * when one fires; `alarms: "ignore"` is for a fix deployed while an alarm is already firing.
   */
  'naaba:deploy': z
    .strictObject({
      traffic: z.enum(TRAFFIC_SHIFTS, `one of ${TRAFFIC_SHIFTS.join(', ')}`).default('canary'),
      percent: z.number().int().min(1).max(99).default(10),
      intervalMinutes: z.number().int().min(1).max(2880).default(5),
      alarms: z.enum(['rollback', 'ignore'], 'either "rollback" or "ignore"').default('rollback'),
      /**
       * After all traffic has moved, how long the post-traffic check watches the new version's
       * alarms before the deploy succeeds (0 = not at all); a Lambda hook runs at most 15 minutes.
       */
      bakeMinutes: z.number().int().min(0).max(12).default(10),
    })
    .prefault({}),
  /**
   * Lambda concurrency reserved for a function: a share other workloads of the account cannot
   * take, and a cap on its connections (decision 0096). `"none"` reserves nothing.
   */
  'naaba:concurrency': z
    .strictObject({
      authorizerReserved: z.union([z.number().int().min(1).max(1000), z.literal('none')]).default(20),
      mcpReserved: z.union([z.number().int().min(1).max(1000), z.literal('none')]).default('none'),
    })
    .prefault({}),
  /**
   * A WAF web ACL on the stage (decisions 0070, 0094): AWS's managed rule groups for a public API
   * and one rate-based rule per client address. On by default.
   */
  'naaba:waf': z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Requests one address may make in `windowSeconds` before WAF answers 429; WAF's lowest is 10. */
      requestsPerAddress: z.number().int().min(10).max(2_000_000_000).default(1000),
      windowSeconds: z
        .number()
        .refine((w) => (WAF_WINDOWS as readonly number[]).includes(w), `one of ${WAF_WINDOWS.join(', ')}`)
        .default(300),
    })
    .prefault({}),
  /** Curation rules as the Lambda reads them (NAABA_CURATION); checked in full by the functions at cold start. */
  'naaba:curation': z.record(z.string(), z.unknown()).optional(),
  /**
   * The lexical arm's text language (NAABA_TEXT_LANGUAGE; the list is lambda/memory/lexical.ts's
   * TEXT_LANGUAGES, kept in step by test/infra/in-step.test.ts). Changing it needs `naaba reembed`.
   */
  'naaba:textLanguage': z.enum(['neutral', 'english']).default('neutral'),
} as const;

export type ContextKey = keyof typeof contextSchema;
export type ContextValues = { [K in ContextKey]: z.output<(typeof contextSchema)[K]> };

/** Parses one context entry; `-c key=value` overrides arrive as strings, so JSON text is read as JSON. */
export function parseEntry<K extends ContextKey>(key: K, raw: unknown): { value?: ContextValues[K]; problems: string[] } {
  let input = raw;
  if (typeof raw === 'string' && /^\s*[[{]/.test(raw)) {
    try {
      input = JSON.parse(raw);
    } catch {
      return { problems: [`${key}: the override is not valid JSON`] };
    }
  }
  const result = contextSchema[key].safeParse(input);
  if (result.success) return { value: result.data as ContextValues[K], problems: [] };
  return {
    problems: result.error.issues.map((issue) => {
      const path = [key, ...issue.path.map(String)].join('.');
      return `${path}: ${issue.message}`;
    }),
  };
}

export { ENDPOINT_SERVICE, type RegionNetworkContext, SECRET_ARN };
