import { join } from 'node:path';
import { type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, type CfnFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUNDLING, ENTRY_POINTS, type EntryPoint, pageScriptCommand, REPO_ROOT, SILENCED_WARNINGS } from '../bundling.js';
import type { PrivateNetwork } from './private-network.js';

/** The alias callers invoke: CodeDeploy moves it from one published version to the next (decision 0068). */
export const LIVE_ALIAS = 'live';

/** What Lambda needs to attach a function to its subnets: network interface actions, no logs, no data. */
const ENI_MANAGEMENT = 'service-role/AWSLambdaENIManagementAccess';

export interface NaabaFunctionProps {
  readonly entry: EntryPoint;
  /** The exported handler of the entry point; `handler` unless the module exports several. */
  readonly handler?: string;
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  /** NAABA_REGION: the region whose keys and rows this function serves. */
  readonly naabaRegion: string;
  readonly logLevel: string;
  readonly logRetentionDays: number;
  /** Asynchronous invocations (the schedule) retry this often, then land in this queue. */
  readonly asyncFailures?: { readonly queue: IQueue; readonly retryAttempts: number; readonly maxEventAge: Duration };
  /** Runs the function in these private subnets, with a security group of its own that allows nothing out yet. */
  readonly network?: PrivateNetwork | undefined;
  /** Concurrency reserved for this function: guaranteed to it, and its ceiling (decision 0096). */
  readonly reservedConcurrency?: number | undefined;
}

/**
 * A naaba Lambda function with the house defaults: Node.js 24 on arm64, bundled by the local
 * esbuild (no Docker) as minified CommonJS, its own log group with a retention, and its own role that may write to
 * that log group and nothing else until a grant adds exactly what the function needs. Grants come
 * paired with the environment variables that tell the code where to look.
 */
export class NaabaFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /** The private network the function runs in, or undefined outside any VPC. */
  readonly network: PrivateNetwork | undefined;
  private readonly entry: EntryPoint;
  private live: Alias | undefined;

  constructor(scope: Construct, id: string, props: NaabaFunctionProps) {
    super(scope, id);
    this.network = props.network;
    this.entry = props.entry;
    this.logGroup = new LogGroup(this, 'Logs', { retention: props.logRetentionDays as RetentionDays });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `naaba ${props.entry} function: its log group, plus the grants added next to it`,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs:* on every log group): this function's group only.
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'WriteOwnLogGroup',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    this.function = new NodejsFunction(this, 'Function', {
      entry: join(REPO_ROOT, ENTRY_POINTS[props.entry]),
      handler: props.handler ?? 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
      // Published versions outlive the deploy that replaced them: a manual rollback moves the alias back to one.
      currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
      environment: { NAABA_REGION: props.naabaRegion, NAABA_LOG_LEVEL: props.logLevel },
      ...(props.network ? this.placement(props.network) : {}),
      ...(props.asyncFailures
        ? {
            deadLetterQueue: props.asyncFailures.queue,
            retryAttempts: props.asyncFailures.retryAttempts,
            maxEventAge: props.asyncFailures.maxEventAge,
          }
        : {}),
      bundling: {
        format: BUNDLING.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
        target: BUNDLING.target,
        minify: BUNDLING.minify,
        sourceMap: BUNDLING.sourcemap,
        mainFields: [...BUNDLING.mainFields],
        externalModules: [...BUNDLING.external],
        define: { ...BUNDLING.define },
        esbuildArgs: {
          ...Object.fromEntries(Object.keys(SILENCED_WARNINGS).map((id) => [`--log-override:${id}`, 'silent'])),
          ...Object.fromEntries(Object.entries(BUNDLING.alias).map(([name, path]) => [`--alias:${name}`, path])),
        },
        forceDockerBundling: false,
        // The page's script is built from web/src/ before the bundle inlines it (decision 0138).
        commandHooks: {
          beforeBundling: (inputDir: string) => [pageScriptCommand(inputDir)],
          beforeInstall: () => [],
          afterBundling: () => [],
        },
      },
    });
  }

  /** The VPC settings of a function in the private network; Lambda creates its interfaces with the function's own role. */
  private placement(network: PrivateNetwork) {
    this.role.addManagedPolicy(ManagedPolicy.fromAwsManagedPolicyName(ENI_MANAGEMENT));
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${ENI_MANAGEMENT}]`,
      reason:
        "Lambda creates and deletes the function's network interfaces with its execution role; this AWS managed policy grants only those EC2 network-interface actions (no logs, unlike AWSLambdaVPCAccessExecutionRole), and they accept no narrower resource for the Describe calls.",
    });
    return { vpc: network.vpc, vpcSubnets: network.subnets, securityGroups: [network.securityGroupFor(this)] };
  }

  /**
   * This deploy's code and configuration published as a version, behind the alias callers are
   * pointed at. A change of either publishes a new version; the alias then moves to it, all at once
   * or gradually when a CodeDeploy group watches it (gradual-deployment.ts). Earlier versions
   * are kept, so a rollback has something to return to.
   */
  liveAlias(): Alias {
    this.live ??= new Alias(this, 'Live', {
      aliasName: LIVE_ALIAS,
      version: this.function.currentVersion,
      description: 'The version API Gateway invokes; moved by CodeDeploy on each deploy',
    });
    return this.live;
  }

  /** Sets one environment variable; the grant methods of the other constructs call this. */
  addEnvironment(name: string, value: string): void {
    this.function.addEnvironment(name, value);
  }

  /**
   * Adds one statement to this function's role. `through` names the interface endpoint the call
   * takes in the private network: that endpoint's policy then admits this role for exactly the same
   * actions and resources, so the endpoint passes nothing the functions were not granted.
   */
  addToRolePolicy(statement: PolicyStatement, through?: 'secretsManager' | 'bedrockRuntime'): void {
    this.role.addToPolicy(statement);
    const endpoint = through === undefined ? undefined : this.network?.[through];
    const sid = `${statement.sid ?? 'Allow'}${this.entry[0]?.toUpperCase()}${this.entry.slice(1)}`;
    endpoint?.addToPolicy(statement.copy({ sid, principals: [this.role] }));
  }

  /**
   * Active X-Ray tracing for the Powertools tracer. Set on the resource directly: the L2 `tracing`
   * option would write `xray:Put*` on `Resource: "*"` into this project's policy. X-Ray's write
   * actions support no resource-level permission, so the AWS managed policy that grants just them
   * is attached instead, and acknowledged here.
   */
  enableActiveTracing(): void {
    (this.function.node.defaultChild as CfnFunction).tracingConfig = { mode: 'Active' };
    this.role.addManagedPolicy(ManagedPolicy.fromAwsManagedPolicyName('AWSXRayDaemonWriteAccess'));
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AWSXRayDaemonWriteAccess]',
      reason:
        'X-Ray PutTraceSegments/PutTelemetryRecords and the sampling reads accept no resource ARN; this AWS managed policy grants only those actions, and keeps Resource "*" out of the policies this project writes.',
    });
  }
}
