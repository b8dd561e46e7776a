import { Annotations, CfnOutput, Stack } from 'aws-cdk-lib';
import {
  FlowLogDestination,
  FlowLogTrafficType,
  type IConnectable,
  InterfaceVpcEndpoint,
  InterfaceVpcEndpointAwsService,
  InterfaceVpcEndpointService,
  IpAddresses,
  type IVpc,
  Port,
  SecurityGroup,
  type SubnetSelection,
  SubnetType,
  Vpc,
} from 'aws-cdk-lib/aws-ec2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { RegionNetwork } from '../config/deploy-config.js';

/** The address range of a VPC this construct creates when cdk.json names none. */
export const DEFAULT_VPC_CIDR = '10.80.0.0/16';

const HTTPS = Port.tcp(443);

export interface PrivateNetworkProps {
  readonly network: RegionNetwork;
  readonly logRetentionDays: number;
}

/**
 * The functions' private network in one region: private isolated subnets (of a given VPC, or of
 * one created here) with no route out, interface endpoints for Secrets Manager and Bedrock Runtime
 * with private DNS, and an endpoint to the database's PrivateLink service. Each function gets a
 * security group that allows nothing out until it is connected to an endpoint, on that endpoint's
 * port only (docs/decisions/0049).
 */
export class PrivateNetwork extends Construct {
  readonly vpc: IVpc;
  readonly subnets: SubnetSelection;
  readonly secretsManager: InterfaceVpcEndpoint;
  readonly bedrockRuntime: InterfaceVpcEndpoint;
  readonly database: InterfaceVpcEndpoint;
  readonly databasePort: Port;

  constructor(scope: Construct, id: string, props: PrivateNetworkProps) {
    super(scope, id);
    const { network } = props;
    this.vpc = network.vpc
      ? this.importVpc(network.vpc)
      : this.createVpc(network.vpcCidr ?? DEFAULT_VPC_CIDR, props.logRetentionDays);
    this.subnets = { subnetType: SubnetType.PRIVATE_ISOLATED };
    this.databasePort = Port.tcp(network.databasePort);
    this.secretsManager = this.endpoint('SecretsManager', InterfaceVpcEndpointAwsService.SECRETS_MANAGER, true);
    this.bedrockRuntime = this.endpoint('BedrockRuntime', InterfaceVpcEndpointAwsService.BEDROCK_RUNTIME, true);
    this.database = this.endpoint(
      'Database',
      new InterfaceVpcEndpointService(network.databaseEndpointService, network.databasePort),
      network.databasePrivateDns,
    );
    new CfnOutput(Stack.of(this), 'DatabaseEndpointId', {
      value: this.database.vpcEndpointId,
      description: "The database's PrivateLink endpoint: allow this id in the database provider's console",
    });
  }

  /** A security group for one function: no way out until {@link allow} opens one. */
  securityGroupFor(scope: Construct): SecurityGroup {
    return new SecurityGroup(scope, 'SecurityGroup', {
      vpc: this.vpc,
      allowAllOutbound: false,
      description: 'naaba function: out only to the endpoints it is connected to',
    });
  }

  /** Lets the function reach Secrets Manager and the database, on their ports only. */
  connectDatabase(fn: IConnectable): void {
    fn.connections.allowTo(this.secretsManager, HTTPS, 'Secrets Manager endpoint');
    fn.connections.allowTo(this.database, this.databasePort, 'database PrivateLink endpoint');
  }

  /** Lets the function reach Bedrock Runtime on 443. */
  connectBedrock(fn: IConnectable): void {
    fn.connections.allowTo(this.bedrockRuntime, HTTPS, 'Bedrock Runtime endpoint');
  }

  private endpoint(id: string, service: InterfaceVpcEndpointAwsService | InterfaceVpcEndpointService, privateDns: boolean) {
    const securityGroup = new SecurityGroup(this, `${id}Access`, {
      vpc: this.vpc,
      allowAllOutbound: false,
      description: `naaba ${id} endpoint: in from the naaba functions only`,
    });
    return new InterfaceVpcEndpoint(this, id, {
      vpc: this.vpc,
      service,
      subnets: this.subnets,
      privateDnsEnabled: privateDns,
      securityGroups: [securityGroup],
      open: false,
    });
  }

  private importVpc(given: NonNullable<RegionNetwork['vpc']>): IVpc {
    const routeTables = given.subnets.map((s) => s.routeTableId);
    const vpc = Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: given.vpcId,
      availabilityZones: given.subnets.map((s) => s.availabilityZone),
      isolatedSubnetIds: given.subnets.map((s) => s.subnetId),
      ...(routeTables.every((r) => r !== undefined) ? { isolatedSubnetRouteTableIds: routeTables } : {}),
    });
    // Interface endpoints and Lambda need no routes; only gateway endpoints would read route tables.
    Annotations.of(this).acknowledgeWarning(
      '@aws-cdk/aws-ec2:noSubnetRouteTableId',
      'naaba adds interface endpoints only, which need no route table',
    );
    return vpc;
  }

  private createVpc(cidr: string, logRetentionDays: number): Vpc {
    const flowLogs = new LogGroup(this, 'FlowLogs', { retention: logRetentionDays as RetentionDays });
    return new Vpc(this, 'Vpc', {
      ipAddresses: IpAddresses.cidr(cidr),
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'Functions', subnetType: SubnetType.PRIVATE_ISOLATED }],
      // Nothing is placed in the default security group; restricting it would deploy a custom-resource Lambda.
      restrictDefaultSecurityGroup: false,
      flowLogs: {
        Rejected: { destination: FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: FlowLogTrafficType.REJECT },
      },
    });
  }
}
