import type { Template } from 'aws-cdk-lib/assertions';
import { Template as T } from 'aws-cdk-lib/assertions';
import {
  buildApp,
  endpointService,
  flat,
  functionId,
  GIVEN_VPC,
  type Json,
  managedPolicies,
  REGIONS,
  vpcContext,
} from './support.js';

function firstTemplate(overrides: Record<string, unknown>): Template {
  const [stack] = buildApp(overrides).stacks;
  if (!stack) throw new Error('cdk.json names no region');
  return T.fromStack(stack);
}

const fnIds = (template: Template) => ({
  mcp: functionId(template, /MCP endpoint/),
  authorizer: functionId(template, /authorizer/),
  sweeper: functionId(template, /sweeper/),
});

/** The security group ids of a function's VpcConfig, as logical ids. */
function groupsOf(template: Template, fnId: string): string[] {
  const config = template.toJSON().Resources[fnId].Properties.VpcConfig as { SecurityGroupIds: Json[] };
  return config.SecurityGroupIds.map((g) => String(flat(g)).replace(/^\$\{(\w+)\.GroupId\}$/, '$1'));
}

/** Every egress rule of a security group (inline and separate), as "port → destination group". */
function egressOf(template: Template, groupId: string): string[] {
  const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, Json> }>;
  const inline = (resources[groupId]?.Properties.SecurityGroupEgress ?? []) as Record<string, Json>[];
  const separate = Object.values(resources)
    .filter(
      (r) =>
        r.Type === 'AWS::EC2::SecurityGroupEgress' && String(flat(r.Properties.GroupId as Json)) === `\${${groupId}.GroupId}`,
    )
    .map((r) => r.Properties);
  return [...inline, ...separate]
    .map(
      (rule) =>
        `${rule.IpProtocol}/${rule.FromPort}-${rule.ToPort} → ${String(flat((rule.DestinationSecurityGroupId ?? rule.CidrIp) as Json))}`,
    )
    .sort();
}

/** The logical id of the interface endpoint for this service name (a suffix is enough). */
function endpointId(template: Template, serviceName: RegExp): string {
  const endpoints = template.findResources('AWS::EC2::VPCEndpoint');
  const ids = Object.keys(endpoints).filter((id) => serviceName.test(String(endpoints[id]?.Properties.ServiceName)));
  if (ids.length !== 1) throw new Error(`expected one endpoint for ${serviceName}, found ${ids.length}`);
  return ids[0] as string;
}

const endpointGroup = (template: Template, id: string) =>
  String(flat(template.toJSON().Resources[id].Properties.SecurityGroupIds[0])).replace(/^\$\{(\w+)\.GroupId\}$/, '$1');

describe.each([
  ['a VPC this stack creates', vpcContext()],
  ['a given VPC', vpcContext({ vpc: GIVEN_VPC })],
])('naaba:network mode vpc, with %s', (_name, context) => {
  let template: Template;
  beforeAll(() => {
    template = firstTemplate(context);
  });
  const region = REGIONS[0] as string;

  test('interface endpoints for Secrets Manager and Bedrock Runtime (private DNS) and the database service', () => {
    const endpoints = Object.values(template.findResources('AWS::EC2::VPCEndpoint')).map((e) => ({
      service: e.Properties.ServiceName,
      type: e.Properties.VpcEndpointType,
      privateDns: e.Properties.PrivateDnsEnabled,
    }));

    expect(endpoints.sort((a, b) => a.service.localeCompare(b.service))).toEqual([
      { service: `com.amazonaws.${region}.bedrock-runtime`, type: 'Interface', privateDns: true },
      { service: `com.amazonaws.${region}.secretsmanager`, type: 'Interface', privateDns: true },
      { service: endpointService(region), type: 'Interface', privateDns: true },
    ]);
    template.hasOutput('DatabaseEndpointId', { Value: { Ref: endpointId(template, /vpce-svc-/) } });
  });

  test('no NAT gateway, no internet gateway, no route out, no public subnet', () => {
    for (const type of [
      'AWS::EC2::NatGateway',
      'AWS::EC2::InternetGateway',
      'AWS::EC2::VPCGatewayAttachment',
      'AWS::EC2::Route',
      'AWS::EC2::EIP',
    ]) {
      expect([type, Object.keys(template.findResources(type))]).toEqual([type, []]);
    }
    for (const subnet of Object.values(template.findResources('AWS::EC2::Subnet'))) {
      expect(subnet.Properties.MapPublicIpOnLaunch).toBe(false);
    }
  });

  test('all three functions run in the private subnets, each with a security group of its own', () => {
    const ids = fnIds(template);
    const subnets = Object.values(template.findResources('AWS::EC2::VPCEndpoint'))[0]?.Properties.SubnetIds;

    for (const id of Object.values(ids)) {
      expect(template.toJSON().Resources[id].Properties.VpcConfig.SubnetIds).toEqual(subnets);
      expect(groupsOf(template, id)).toHaveLength(1);
    }
    expect(new Set(Object.values(ids).flatMap((id) => groupsOf(template, id))).size).toBe(3);
    expect(subnets).toHaveLength(2);
  });

  test('functions may open connections only to their endpoints: 443 to AWS, the database port to the database', () => {
    const ids = fnIds(template);
    const secrets = endpointGroup(template, endpointId(template, /secretsmanager$/));
    const bedrock = endpointGroup(template, endpointId(template, /bedrock-runtime$/));
    const database = endpointGroup(template, endpointId(template, /vpce-svc-/));
    const toDatabase = [`tcp/26257-26257 → \${${database}.GroupId}`, `tcp/443-443 → \${${secrets}.GroupId}`];

    expect(egressOf(template, groupsOf(template, ids.mcp)[0] as string)).toEqual(
      [...toDatabase, `tcp/443-443 → \${${bedrock}.GroupId}`].sort(),
    );
    expect(egressOf(template, groupsOf(template, ids.authorizer)[0] as string)).toEqual(toDatabase.sort());
    expect(egressOf(template, groupsOf(template, ids.sweeper)[0] as string)).toEqual(toDatabase.sort());
  });

  test('each endpoint admits exactly the functions that use it, on its port, and sends nothing', () => {
    const ids = fnIds(template);
    const [mcp, authorizer, sweeper] = [ids.mcp, ids.authorizer, ids.sweeper].map((id) => groupsOf(template, id)[0]);
    const ingress = (group: string) =>
      Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))
        .filter((r) => String(flat(r.Properties.GroupId)) === `\${${group}.GroupId}`)
        .map(
          (r) =>
            `${r.Properties.FromPort} ← ${String(flat(r.Properties.SourceSecurityGroupId)).replace(/^\$\{(\w+)\.GroupId\}$/, '$1')}`,
        )
        .sort();

    const groups = ['secretsmanager$', 'bedrock-runtime$', 'vpce-svc-'].map((s) =>
      endpointGroup(template, endpointId(template, new RegExp(s))),
    );
    expect(groups.map(ingress)).toEqual([
      [`443 ← ${authorizer}`, `443 ← ${mcp}`, `443 ← ${sweeper}`].sort(),
      [`443 ← ${mcp}`],
      [`26257 ← ${authorizer}`, `26257 ← ${mcp}`, `26257 ← ${sweeper}`].sort(),
    ]);
    for (const group of groups) expect(egressOf(template, group)).toEqual(['icmp/252-86 → 255.255.255.255/32']);
    // Nothing is open to an address range.
    for (const r of Object.values(template.findResources('AWS::EC2::SecurityGroupIngress')))
      expect(r.Properties.CidrIp).toBeUndefined();
  });

  test("endpoint policies: Secrets Manager passes each role only GetSecretValue on its own secret, Bedrock only the MCP role's two model grants", () => {
    const ids = fnIds(template);
    const roleOf = (fnId: string) =>
      String(flat(template.toJSON().Resources[fnId].Properties.Role)).replace(/^\$\{(\w+)\.Arn\}$/, '$1');
    const policyOf = (id: string) =>
      (flat(template.toJSON().Resources[id].Properties.PolicyDocument?.Statement ?? null) ?? []) as {
        Sid: string;
        Principal: { AWS: string };
        Action: string;
        Resource: Json;
      }[];
    const roles = { Mcp: roleOf(ids.mcp), Authorizer: roleOf(ids.authorizer), Sweeper: roleOf(ids.sweeper) };
    const secret = (name: string) =>
      `arn:aws:secretsmanager:${region}:\${AWS::AccountId}:secret:naaba/${region}/database/${name.toLowerCase()}-??????`;

    const secrets = policyOf(endpointId(template, /secretsmanager$/));
    const bedrock = policyOf(endpointId(template, /bedrock-runtime$/));

    expect(secrets.map((s) => [s.Sid, s.Principal.AWS, s.Action, s.Resource]).sort()).toEqual(
      Object.entries(roles)
        .map(([name, role]) => [`ReadDatabaseSecret${name}`, `\${${role}.Arn}`, 'secretsmanager:GetSecretValue', secret(name)])
        .sort(),
    );
    expect(bedrock.map((s) => [s.Sid, s.Principal.AWS, s.Action])).toEqual([
      ['EmbedWithTitanMcp', `\${${roles.Mcp}.Arn}`, 'bedrock:InvokeModel'],
      ['JudgeThroughGeographyProfileMcp', `\${${roles.Mcp}.Arn}`, 'bedrock:InvokeModel'],
    ]);
    expect(JSON.stringify(bedrock.map((s) => s.Resource))).toMatch(
      /foundation-model\/amazon\.titan-embed-text-v2:0.*inference-profile\/\w+\.amazon\.nova-micro-v1:0/,
    );
    // PrivateLink to a service that is not AWS's takes no endpoint policy: the security groups and TLS guard it.
    expect(template.toJSON().Resources[endpointId(template, /vpce-svc-/)].Properties.PolicyDocument).toBeUndefined();
  });

  test("Lambda may manage the functions' network interfaces, through the ENI-only managed policy", () => {
    const ids = fnIds(template);
    const eni = `arn:\${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaENIManagementAccess`;

    expect(managedPolicies(template, ids.mcp)).toEqual([eni, `arn:\${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess`]);
    const xray = `arn:\${AWS::Partition}:iam::aws:policy/AWSXRayDaemonWriteAccess`;
    expect(managedPolicies(template, ids.authorizer)).toEqual([eni, xray]);
    expect(managedPolicies(template, ids.sweeper)).toEqual([eni, xray]);
  });
});

test('a created VPC has isolated subnets only, DNS on (private DNS needs it), and flow logs of rejected traffic', () => {
  const template = firstTemplate(vpcContext({ vpcCidr: '10.42.0.0/20' }));

  template.hasResourceProperties('AWS::EC2::VPC', {
    CidrBlock: '10.42.0.0/20',
    EnableDnsHostnames: true,
    EnableDnsSupport: true,
  });
  template.resourceCountIs('AWS::EC2::Subnet', 2);
  template.hasResourceProperties('AWS::EC2::FlowLog', { ResourceType: 'VPC', TrafficType: 'REJECT' });
});

test('a given VPC is used as is: no VPC or subnet is created, the given subnets are used', () => {
  const template = firstTemplate(vpcContext({ vpc: GIVEN_VPC }));

  template.resourceCountIs('AWS::EC2::VPC', 0);
  template.resourceCountIs('AWS::EC2::Subnet', 0);
  template.hasResourceProperties('AWS::EC2::VPCEndpoint', {
    VpcId: GIVEN_VPC.vpcId,
    SubnetIds: GIVEN_VPC.subnets.map((s) => s.subnetId),
  });
});

test('the database port and private DNS come from cdk.json', () => {
  const template = firstTemplate(vpcContext({ databasePort: 5432, databasePrivateDns: false }));
  const database = endpointId(template, /vpce-svc-/);

  expect(template.toJSON().Resources[database].Properties.PrivateDnsEnabled).toBe(false);
  template.hasResourceProperties('AWS::EC2::SecurityGroupEgress', { FromPort: 5432, ToPort: 5432 });
});

test('in mode public (the default) the functions run outside any VPC and nothing of EC2 is created', () => {
  const template = firstTemplate({});

  for (const id of Object.values(fnIds(template))) expect(template.toJSON().Resources[id].Properties.VpcConfig).toBeUndefined();
  expect(
    Object.values(template.toJSON().Resources).filter((r) => String((r as { Type: string }).Type).startsWith('AWS::EC2::')),
  ).toEqual([]);
});
