import { Template } from 'aws-cdk-lib/assertions';
import { readDeployConfig } from '../../lib/config/deploy-config.js';
import { buildApp, CDK_CONTEXT, domainContext, flat, REGIONS } from './support.js';

/**
 * A custom domain mapped at its root gives the endpoint stage-less URLs, which is what OAuth
 * clients need to find the authorization server metadata (RFC 8414 path insertion); the 401's
 * challenge, McpUrl and PageUrl all name the domain then.
 */

const region = REGIONS[0] ?? '';
const name = `memory-${region}.example.com`;

test('the domain is a regional TLS 1.2 domain name mapped at its root, and every URL the stack gives out names it', () => {
  const [stack] = buildApp(domainContext()).stacks;
  if (!stack) throw new Error('no stack');
  const template = Template.fromStack(stack);

  template.hasResourceProperties('AWS::ApiGateway::DomainName', {
    DomainName: name,
    EndpointConfiguration: { Types: ['REGIONAL'] },
    SecurityPolicy: 'TLS_1_2',
  });
  const mappings = Object.values(template.findResources('AWS::ApiGateway::BasePathMapping'));
  expect(mappings).toHaveLength(1);
  expect(mappings[0]?.Properties.BasePath).toBeUndefined();
  const [unauthorized] = Object.values(
    template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: 'UNAUTHORIZED' } }),
  );
  expect(flat(unauthorized?.Properties.ResponseParameters)).toEqual({
    'gatewayresponse.header.WWW-Authenticate': `'Bearer resource_metadata="https://${name}/.well-known/oauth-protected-resource/mcp", scope="memory"'`,
  });
  const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
  expect(flat(outputs.McpUrl?.Value as never)).toBe(`https://${name}/mcp`);
  expect(flat(outputs.PageUrl?.Value as never)).toBe(`https://${name}/`);
  expect(outputs.DomainTarget).toBeDefined();
});

test('a certificate of another region is refused with the reason', () => {
  const context = domainContext();
  const regions = context['naaba:regions'] as Record<string, { domain: { certificateArn: string } }>;
  const first = regions[region];
  if (!first) throw new Error('no region');
  first.domain.certificateArn = first.domain.certificateArn.replace(`:acm:${region}:`, ':acm:ap-south-1:');
  const read = (key: string) => ({ ...CDK_CONTEXT, ...context })[key];

  expect(() => readDeployConfig(read)).toThrow(`the certificate is in ap-south-1; a regional API needs one in ${region}`);
});
