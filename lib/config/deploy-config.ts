import {
  type ContextKey,
  type ContextValues,
  contextSchema,
  type DATABASE_FUNCTIONS,
  ENDPOINT_SERVICE,
  parseEntry,
  type RegionNetworkContext,
  SECRET_ARN,
} from './context-schema.js';

/** cdk.json context that cannot be deployed; the message lists every problem at once. */
export class DeployConfigError extends Error {
  override name = 'DeployConfigError';
}

/** Where a region's connection string lives: by name (IAM then allows its 6-character suffix) or by complete ARN. */
export type SecretRef = { readonly kind: 'name'; readonly name: string } | { readonly kind: 'arn'; readonly arn: string };

/** A function that logs in to the database with a login of its own (decision 0093). */
export type DatabaseFunction = (typeof DATABASE_FUNCTIONS)[number];

/** A region's secrets: each function's connection string, and the pre-traffic check's verification key. */
export type RegionSecrets = Readonly<Record<DatabaseFunction | 'verifyKey', SecretRef>>;

/** The models one region's MCP function may call, with the judge's inference profile resolved for that region. */
export interface RegionModels {
  readonly embeddingModelId: string;
  readonly embeddingDimensions: 256 | 512 | 1024;
  readonly judgeModelId: string;
  /** The geography inference profile the judge is called through, e.g. `eu.amazon.nova-micro-v1:0`. */
  readonly judgeProfileId: string;
  /** The regions that profile may route a request to: where the foundation model must be allowed. */
  readonly judgeRoutesTo: readonly string[];
}

/** One region's private network (`naaba:network` in mode `vpc`). */
export type RegionNetwork = RegionNetworkContext;

/** Everything one regional stack needs. */
export interface RegionConfig {
  readonly awsRegion: string;
  /**
   * The region name keys and rows carry (NAABA_REGION): a region of the database, since rows are
   * homed by it (decision 0031). By default the cluster's name of the AWS region (`naaba:database.regionNames`).
   */
  readonly naabaRegion: string;
  readonly secrets: RegionSecrets;
  readonly models: RegionModels;
  /** Whether this stack sets the account's API Gateway CloudWatch role in its region (decision 0048). */
  readonly apiAccountRole: 'create' | 'existing';
  /** The VPC placement of the functions, or undefined when they run outside any VPC (decision 0049). */
  readonly network: RegionNetwork | undefined;
  /** The region's custom domain (mapped at its root), or undefined for the execute-api URL (decision 0054). */
  readonly domain: { readonly name: string; readonly certificateArn: string } | undefined;
}

/** The typed deployment configuration: one stack per entry of `regions`. */
export interface DeployConfig {
  readonly stackPrefix: string;
  readonly account: string | undefined;
  readonly regions: readonly RegionConfig[];
  readonly api: ContextValues['naaba:api'];
  readonly sweeper: ContextValues['naaba:sweeper'];
  readonly logs: ContextValues['naaba:logs'];
  readonly database: ContextValues['naaba:database'];
  readonly alarms: Omit<ContextValues['naaba:alarms'], 'email'> & { readonly email: readonly string[] };
  /** How new versions of the MCP and authorizer functions take traffic, and how long they bake (decisions 0068, 0091). */
  readonly deploy: ContextValues['naaba:deploy'];
  /** Lambda concurrency reserved per function (decision 0096). */
  readonly concurrency: ContextValues['naaba:concurrency'];
  /** The optional per-address rate limit in front of the stage (decision 0070). */
  readonly waf: ContextValues['naaba:waf'];
  /** Inline curation rules for NAABA_CURATION, or undefined for the built-in defaults. */
  readonly curation: string | undefined;
  /** NAABA_TEXT_LANGUAGE of the MCP function: how stored and searched terms are made. */
  readonly textLanguage: ContextValues['naaba:textLanguage'];
}

/** Reads one context value, e.g. `app.node.tryGetContext`. */
export type ContextReader = (key: string) => unknown;

/** A regional API's certificate must live in the API's own region. */
function certificateDomain(
  awsRegion: string,
  domain: { name: string; certificateArn: string } | undefined,
  problems: string[],
): RegionConfig['domain'] {
  const certificateRegion = domain?.certificateArn.split(':')[3];
  if (domain && certificateRegion !== awsRegion) {
    problems.push(
      `naaba:regions.${awsRegion}.domain.certificateArn: the certificate is in ${certificateRegion}; a regional API needs one in ${awsRegion}`,
    );
  }
  return domain;
}

function secretRef(path: string, awsRegion: string, secret: string, problems: string[]): SecretRef {
  const arn = SECRET_ARN.exec(secret);
  if (!arn) return { kind: 'name', name: secret };
  if (arn[1] !== awsRegion) {
    problems.push(`${path}: the secret is in ${arn[1]}; each region reads a secret of its own region`);
  }
  return { kind: 'arn', arn: secret };
}

/**
 * Each function's secret and the verification key's, checked for their region. One secret shared by
 * two functions would give both the same login, which is what per-function logins exist to stop.
 */
function regionSecrets(awsRegion: string, given: Record<keyof RegionSecrets, string>, problems: string[]): RegionSecrets {
  const path = `naaba:regions.${awsRegion}.secrets`;
  const names = Object.values(given);
  const shared = names.filter((name, i) => names.indexOf(name) !== i);
  if (shared.length > 0) {
    problems.push(
      `${path}: ${[...new Set(shared)].join(', ')} is named twice; each function logs in with its own secret (decision 0093)`,
    );
  }
  const ref = (key: keyof RegionSecrets) => secretRef(`${path}.${key}`, awsRegion, given[key], problems);
  return { mcp: ref('mcp'), authorizer: ref('authorizer'), sweeper: ref('sweeper'), verifyKey: ref('verifyKey') };
}

/** The default naaba region: the cluster's name of the AWS region; an explicit name must be one the cluster can have. */
function naabaRegion(awsRegion: string, explicit: string | undefined, names: string, problems: string[]): string {
  const prefix = names === 'cockroach-cloud' ? 'aws-' : '';
  if (explicit === undefined) return `${prefix}${awsRegion}`;
  if (prefix && !/^aws-[a-z]{2}(-gov)?-[a-z]+-\d$/.test(explicit)) {
    problems.push(
      `naaba:regions.${awsRegion}.naabaRegion: CockroachDB Cloud names AWS regions aws-<region> (aws-${awsRegion}); set naaba:database.regionNames to "aws" for a self-hosted cluster`,
    );
  }
  return explicit;
}

/** In mode `vpc`, each deployed region's network, checked against the region it is for. */
function regionNetworks(
  network: ContextValues['naaba:network'],
  awsRegions: readonly string[],
  problems: string[],
): Map<string, RegionNetwork> {
  const found = new Map<string, RegionNetwork>();
  if (network.mode !== 'vpc') return found;
  for (const [awsRegion, entry] of Object.entries(network.regions)) {
    const path = `naaba:network.regions.${awsRegion}`;
    if (!awsRegions.includes(awsRegion)) problems.push(`${path}: ${awsRegion} is not in naaba:regions`);
    const serviceRegion = ENDPOINT_SERVICE.exec(entry.databaseEndpointService)?.[1];
    if (serviceRegion !== awsRegion) {
      problems.push(
        `${path}.databaseEndpointService: the service is in ${serviceRegion}; an endpoint reaches a service of its own region`,
      );
    }
    for (const [i, subnet] of (entry.vpc?.subnets ?? []).entries()) {
      if (!subnet.availabilityZone.startsWith(awsRegion)) {
        problems.push(`${path}.vpc.subnets.${i}.availabilityZone: ${subnet.availabilityZone} is not in ${awsRegion}`);
      }
    }
    found.set(awsRegion, entry);
  }
  for (const awsRegion of awsRegions.filter((r) => !found.has(r))) {
    problems.push(`naaba:network.regions: mode "vpc" needs an entry for ${awsRegion} (its databaseEndpointService at least)`);
  }
  return found;
}

function regionModels(awsRegion: string, bedrock: ContextValues['naaba:bedrock'], problems: string[]): RegionModels {
  const geographies = Object.entries(bedrock.judgeProfiles).filter(([, regions]) => regions?.includes(awsRegion));
  const [geography, routesTo] = geographies[0] ?? [];
  if (geographies.length !== 1 || !geography || !routesTo) {
    const known = Object.keys(bedrock.judgeProfiles).join(', ') || 'none';
    problems.push(
      geographies.length === 0
        ? `naaba:bedrock.judgeProfiles: ${awsRegion} is in no geography (${known}); add it to the one whose inference profile serves it`
        : `naaba:bedrock.judgeProfiles: ${awsRegion} is in several geographies (${geographies.map(([g]) => g).join(', ')})`,
    );
  }
  return {
    embeddingModelId: bedrock.embeddingModel,
    embeddingDimensions: bedrock.embeddingDimensions,
    judgeModelId: bedrock.judgeModel,
    judgeProfileId: `${geography ?? 'unknown'}.${bedrock.judgeModel}`,
    judgeRoutesTo: [...new Set(routesTo ?? [])].sort(),
  };
}

/**
 * Both an address and a reason for having none contradict each other. Having neither is allowed,
 * but synth says so in a warning on the alarm topic (decision 0095): a deploy of the repository as
 * it is tells no one, and says so.
 */
function alarmSubscribers(alarms: ContextValues['naaba:alarms'] | undefined, problems: string[]): void {
  if (!alarms) return;
  const emails = [alarms.email ?? []].flat();
  if (emails.length > 0 && alarms.noSubscriberReason !== undefined) {
    problems.push('naaba:alarms.noSubscriberReason: set it only when naaba:alarms.email is empty; both are given');
  }
}

/**
 * Parses naaba's cdk.json context into a {@link DeployConfig}, or throws a
 * {@link DeployConfigError} naming every problem with its context path.
 */
export function readDeployConfig(context: ContextReader): DeployConfig {
  const problems: string[] = [];
  const values: Partial<ContextValues> = {};
  for (const key of Object.keys(contextSchema) as ContextKey[]) {
    const parsed = parseEntry(key, context(key));
    problems.push(...parsed.problems);
    if (parsed.value !== undefined) Object.assign(values, { [key]: parsed.value });
  }
  const entries = Object.entries(values['naaba:regions'] ?? {});
  const { 'naaba:bedrock': bedrock, 'naaba:api': api, 'naaba:database': database, 'naaba:network': network } = values;
  const networks = network
    ? regionNetworks(
        network,
        entries.map(([r]) => r),
        problems,
      )
    : new Map<string, RegionNetwork>();
  const regions: RegionConfig[] =
    bedrock && api && database
      ? entries.map(([awsRegion, entry]) => ({
          awsRegion,
          naabaRegion: naabaRegion(awsRegion, entry.naabaRegion, database.regionNames, problems),
          secrets: regionSecrets(awsRegion, entry.secrets, problems),
          models: regionModels(awsRegion, bedrock, problems),
          apiAccountRole: entry.apiAccountRole ?? api.accountRole,
          network: networks.get(awsRegion),
          domain: certificateDomain(awsRegion, entry.domain, problems),
        }))
      : [];
  alarmSubscribers(values['naaba:alarms'], problems);
  const naabaRegions = regions.map((r) => r.naabaRegion);
  const repeated = naabaRegions.filter((r, i) => naabaRegions.indexOf(r) !== i);
  if (repeated.length > 0) problems.push(`naaba:regions: naaba region ${repeated.join(', ')} is served by more than one stack`);
  if (problems.length > 0) throw new DeployConfigError(`cdk.json context is not deployable:\n  ${problems.join('\n  ')}`);
  const v = values as ContextValues;
  return {
    stackPrefix: v['naaba:stackPrefix'],
    account: v['naaba:account'],
    regions,
    api: v['naaba:api'],
    sweeper: v['naaba:sweeper'],
    logs: v['naaba:logs'],
    database: v['naaba:database'],
    alarms: { ...v['naaba:alarms'], email: [v['naaba:alarms'].email ?? []].flat() },
    deploy: v['naaba:deploy'],
    concurrency: v['naaba:concurrency'],
    waf: v['naaba:waf'],
    curation: v['naaba:curation'] === undefined ? undefined : JSON.stringify(v['naaba:curation']),
    textLanguage: v['naaba:textLanguage'],
  };
}
