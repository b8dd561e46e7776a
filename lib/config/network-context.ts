import * as z from 'zod';

/**
 * The shape of one region's entry of `naaba:network` in mode `vpc` (docs/decisions/0049): the
 * functions' VPC, given by id and subnets (a lookup would need AWS credentials at synth) or created
 * when left out, and the database's PrivateLink endpoint service.
 */

const VPC_ID = /^vpc-[0-9a-f]{8,17}$/;
const SUBNET_ID = /^subnet-[0-9a-f]{8,17}$/;
const ROUTE_TABLE_ID = /^rtb-[0-9a-f]{8,17}$/;
const AVAILABILITY_ZONE = /^[a-z]{2}(-gov)?-[a-z]+-\d[a-z]$/;
const CIDR = /^(\d{1,3}\.){3}\d{1,3}\/(1[6-9]|2[0-4])$/;
/** A PrivateLink endpoint service name; the capture is its region. */
export const ENDPOINT_SERVICE = /^com\.amazonaws\.vpce\.([a-z0-9-]+)\.vpce-svc-[0-9a-f]{8,17}$/;

const givenVpc = z.strictObject({
  vpcId: z.string().regex(VPC_ID, 'a VPC id such as vpc-0123456789abcdef0'),
  subnets: z
    .array(
      z.strictObject({
        subnetId: z.string().regex(SUBNET_ID, 'a subnet id such as subnet-0123456789abcdef0'),
        availabilityZone: z.string().regex(AVAILABILITY_ZONE, 'an availability zone such as eu-central-1a'),
        routeTableId: z.string().regex(ROUTE_TABLE_ID, 'a route table id such as rtb-0123456789abcdef0').optional(),
      }),
    )
    .min(2, 'at least two private subnets, in different availability zones')
    .refine(
      (subnets) => new Set(subnets.map((s) => s.availabilityZone)).size === subnets.length,
      'one subnet per availability zone',
    )
    .refine(
      (subnets) => new Set(subnets.map((s) => s.routeTableId === undefined)).size === 1,
      'give routeTableId for every subnet or for none',
    ),
});

/** One region's private network: the VPC (given, or created when left out) and the database's PrivateLink service. */
export const regionNetwork = z
  .strictObject({
    vpc: givenVpc.optional(),
    /** The address range of the VPC this stack creates when `vpc` is left out. */
    vpcCidr: z.string().regex(CIDR, 'an IPv4 CIDR block from /16 to /24, such as 10.80.0.0/16').optional(),
    databaseEndpointService: z
      .string('required: the PrivateLink endpoint service name of the database in this region')
      .regex(ENDPOINT_SERVICE, 'the endpoint service name the database provider gives, com.amazonaws.vpce.<region>.vpce-svc-…'),
    databasePort: z.number().int().min(1).max(65535).default(26257),
    /** Private DNS on the database endpoint: the cluster's own host name then resolves to it (TLS verify-full needs that name). */
    databasePrivateDns: z.boolean().default(true),
  })
  .refine((n) => !(n.vpc && n.vpcCidr), {
    message: 'vpcCidr is for the VPC this stack creates; leave it out when you give a vpc',
    path: ['vpcCidr'],
  });

export type RegionNetworkContext = z.output<typeof regionNetwork>;
