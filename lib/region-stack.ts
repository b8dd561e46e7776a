import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { DeployConfig, RegionConfig } from './config/deploy-config.js';
import { BedrockModels } from './constructs/bedrock-models.js';
import { DatabaseSecret, secretAddress } from './constructs/database-secret.js';
import { GradualDeployment } from './constructs/gradual-deployment.js';
import { McpApi } from './constructs/mcp-api.js';
import { MemorySweeper } from './constructs/memory-sweeper.js';
import { NaabaFunction } from './constructs/naaba-function.js';
import { PrivateNetwork } from './constructs/private-network.js';
import { RegionAlarms } from './constructs/region-alarms.js';
import { RegionDashboard } from './constructs/region-dashboard.js';
import { ReleaseAlarms } from './constructs/release-alarms.js';
import { ReleaseChecks } from './constructs/release-checks.js';

export interface RegionStackProps extends StackProps {
  readonly config: DeployConfig;
  readonly region: RegionConfig;
}

/**
 * Everything naaba runs in one AWS region, against the shared multi-region CockroachDB cluster:
 * the API, the MCP function, the authorizer and the scheduled sweeper, optionally in a private
 * network, with the alarms and the dashboard that watch them. Each function gets exactly the
 * grants composed here, each grant together with the variable that points the code at it.
 */
export class RegionStack extends Stack {
  readonly api: McpApi;
  readonly mcp: NaabaFunction;
  readonly authorizer: NaabaFunction;
  readonly sweeper: MemorySweeper;
  /** Each function's own database login, in a secret of its own (decision 0093). */
  readonly databases: Readonly<Record<'mcp' | 'authorizer' | 'sweeper', DatabaseSecret>>;
  readonly models: BedrockModels;
  /** The private network, when `naaba:network` is in mode `vpc`. */
  readonly network: PrivateNetwork | undefined;
  readonly alarms: RegionAlarms;
  /** The alarms that judge a new version during its deploy (decision 0091). */
  readonly releaseAlarms: ReleaseAlarms;
  readonly dashboard: RegionDashboard;
  /** CodeDeploy for the two functions API Gateway calls; the sweeper is deployed at once (decision 0068). */
  readonly deployment: GradualDeployment;
  /** The checks a new version passes before and after it takes traffic (decision 0091). */
  readonly releaseChecks: ReleaseChecks;

  constructor(scope: Construct, id: string, props: RegionStackProps) {
    const { config, region } = props;
    super(scope, id, {
      ...props,
      env: { account: config.account, region: region.awsRegion },
      description: `naaba MCP endpoint of region ${region.naabaRegion} (${region.awsRegion})`,
    });
    this.network = region.network
      ? new PrivateNetwork(this, 'Network', { network: region.network, logRetentionDays: config.logs.retentionDays })
      : undefined;
    const common = {
      naabaRegion: region.naabaRegion,
      logLevel: config.logs.level,
      logRetentionDays: config.logs.retentionDays,
      network: this.network,
    };
    const database = (id: string, secret: keyof typeof region.secrets) =>
      new DatabaseSecret(this, id, { secret: region.secrets[secret], ...config.database });
    this.databases = {
      mcp: database('McpDatabase', 'mcp'),
      authorizer: database('AuthorizerDatabase', 'authorizer'),
      sweeper: database('SweeperDatabase', 'sweeper'),
    };
    const reserved = (setting: number | 'none') => (setting === 'none' ? undefined : setting);
    this.models = new BedrockModels(this, 'Models', region.models);

    this.mcp = new NaabaFunction(this, 'Mcp', {
      ...common,
      entry: 'mcp',
      description: 'naaba MCP endpoint: stateless MCP over HTTP for one authorized key',
      memorySize: 1024,
      timeout: Duration.seconds(25),
      reservedConcurrency: reserved(config.concurrency.mcpReserved),
    });
    this.mcp.enableActiveTracing();
    this.databases.mcp.grantRead(this.mcp);
    this.models.grantInvoke(this.mcp);

    this.authorizer = new NaabaFunction(this, 'Authorizer', {
      ...common,
      entry: 'authorizer',
      description: "naaba authorizer: bearer token to principal; other regions' keys denied",
      memorySize: 512,
      timeout: Duration.seconds(10),
      // Another workload of the account must not starve it into a storm of 503s, nor a flood of tokens take every slot.
      reservedConcurrency: reserved(config.concurrency.authorizerReserved),
    });
    this.databases.authorizer.grantRead(this.authorizer);
    // Traced like the MCP function (issue 48): a slow key lookup or a cold start shows in X-Ray.
    this.authorizer.enableActiveTracing();

    this.sweeper = new MemorySweeper(this, 'Sweeper', { ...common, ...config.sweeper });
    this.databases.sweeper.grantRead(this.sweeper.function);
    this.sweeper.function.enableActiveTracing();

    // In the private network each function may open exactly the connections its grants are for.
    for (const fn of [this.mcp, this.authorizer, this.sweeper.function]) this.network?.connectDatabase(fn.function);
    this.network?.connectBedrock(this.mcp.function);

    // The MCP function and the sweeper must apply the same curation rules.
    if (config.curation !== undefined) {
      for (const fn of [this.mcp, this.sweeper.function]) fn.addEnvironment('NAABA_CURATION', config.curation);
    }

    // Only the MCP function makes lexical terms (remember and recall).
    this.mcp.addEnvironment('NAABA_TEXT_LANGUAGE', config.textLanguage);
    // API Gateway answers only to its own domain names, so Host needs no second check there;
    // a foreign Origin is still refused by the function (decision 0044).
    this.mcp.addEnvironment('NAABA_ALLOWED_HOSTS', '*');

    // API Gateway calls the `live` aliases, which CodeDeploy moves from version to version.
    const mcpLive = this.mcp.liveAlias();
    const authorizerLive = this.authorizer.liveAlias();
    this.api = new McpApi(this, 'Api', {
      ...config.api,
      mcpFunction: mcpLive,
      authorizerFunction: authorizerLive,
      logRetentionDays: config.logs.retentionDays,
      accountRole: region.apiAccountRole,
      domain: region.domain,
      waf: config.waf,
    });
    this.api.keyThrottle.nameBucketsIn(this.authorizer);
    if (this.api.domain) {
      new CfnOutput(this, 'DomainTarget', {
        value: this.api.domain.domainNameAliasDomainName,
        description: `Point ${region.domain?.name} at this name (CNAME, or a Route 53 alias)`,
      });
    }
    new CfnOutput(this, 'PageUrl', {
      value: `${this.api.baseUrl}/`,
      description: 'The memory page (sign in with a key of this region); keep the trailing slash',
    });
    new CfnOutput(this, 'McpUrl', { value: this.api.mcpUrl, description: 'Give MCP clients this URL and a key of this region' });
    new CfnOutput(this, 'NaabaRegion', {
      value: region.naabaRegion,
      description: 'The region its keys are issued for (naaba issue-key --region) and its rows are homed in',
    });

    const functions = { Mcp: this.mcp, Authorizer: this.authorizer, Sweeper: this.sweeper.function };
    const stage = this.api.api.deploymentStage;
    this.alarms = new RegionAlarms(this, 'Alarms', {
      functions,
      stage,
      others: [this.sweeper.alarm],
      settings: config.alarms,
      wafBlocked: this.api.firewall?.blocked,
    });
    this.releaseAlarms = new ReleaseAlarms(this, 'Release', {
      mcp: mcpLive,
      authorizer: authorizerLive,
      alarms: this.alarms,
      settings: config.alarms,
    });
    this.dashboard = new RegionDashboard(this, 'Dashboard', {
      dashboardName: this.stackName,
      functions,
      stage,
      alarms: [...this.alarms.alarms, this.sweeper.alarm],
      judgeUnavailableRate: config.alarms.judgeUnavailableRate,
      securityEvents: config.alarms.securityEvents,
    });

    // A new version proves itself before traffic, is judged by its own alarms while it takes traffic and bakes.
    const rollback = config.deploy.alarms === 'rollback';
    this.releaseChecks = new ReleaseChecks(this, 'ReleaseChecks', {
      naabaRegion: region.naabaRegion,
      logLevel: config.logs.level,
      logRetentionDays: config.logs.retentionDays,
      mcp: mcpLive,
      authorizer: authorizerLive,
      verifyKey: secretAddress(this, region.secrets.verifyKey),
      bakeMinutes: rollback ? config.deploy.bakeMinutes : 0,
    });
    const hooks = {
      beforeTraffic: this.releaseChecks.beforeTraffic.function,
      afterTraffic: this.releaseChecks.afterTraffic.function,
    };
    this.deployment = new GradualDeployment(this, 'Deployment', { settings: config.deploy });
    const mcpAlarms = this.releaseAlarms.mcp;
    // The authorizer's crashes cannot be told apart by version (its log carries none): function-wide.
    const authorizerAlarms = [...this.releaseAlarms.authorizer, this.alarms.named('AuthorizerCrashes')];
    this.releaseChecks.bakeOn(this.deployment.shift('Mcp', mcpLive, mcpAlarms, hooks), mcpAlarms);
    this.releaseChecks.bakeOn(this.deployment.shift('Authorizer', authorizerLive, authorizerAlarms, hooks), authorizerAlarms);
    // An alias update starts the CodeDeploy deployment, which invokes the hooks and reads the alarms of
    // this very template: CloudFormation must have updated both first (the hooks' environment names the
    // new versions; the release alarms carry them in their names), which nothing else in the template
    // orders (issue 48, decision 0134).
    for (const [alias, alarms] of [
      [mcpLive, mcpAlarms],
      [authorizerLive, authorizerAlarms],
    ] as const) {
      alias.node.addDependency(this.releaseChecks.beforeTraffic.function, this.releaseChecks.afterTraffic.function, ...alarms);
    }
    // What the runbook's commands need, without a search through the console.
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'Every alarm of this region notifies this topic on ALARM and OK; subscribe a pager or a chat here',
    });
    new CfnOutput(this, 'SweeperDeadLetterQueue', {
      value: this.sweeper.deadLetters.queueUrl,
      description: 'Failed sweeps land here, with ErrorCode and ErrorMessage attributes',
    });
    new CfnOutput(this, 'AccessLogGroup', { value: this.api.accessLogs.logGroupName, description: "The API's access log" });
    for (const [name, fn] of Object.entries(functions)) {
      new CfnOutput(this, `${name}FunctionName`, { value: fn.function.functionName, description: `The ${name} function` });
      new CfnOutput(this, `${name}LogGroup`, { value: fn.logGroup.logGroupName, description: `The ${name} function's log` });
    }
    for (const [name, fn] of Object.entries({
      BeforeTraffic: this.releaseChecks.beforeTraffic,
      AfterTraffic: this.releaseChecks.afterTraffic,
    })) {
      new CfnOutput(this, `${name}CheckLogGroup`, {
        value: fn.logGroup.logGroupName,
        description: `The release check ${name}'s log`,
      });
    }
    new CfnOutput(this, 'DeployApplication', {
      value: this.deployment.application.applicationName,
      description: 'The CodeDeploy application whose deployments shift traffic to new versions (docs/runbook.md)',
    });
  }
}
