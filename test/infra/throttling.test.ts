import { randomUUID } from 'node:crypto';
import type { Template } from 'aws-cdk-lib/assertions';
import { usageBuckets, usageIdentifier } from '../../lambda/auth/usage-identifier.js';
import { THROTTLED } from '../../lib/constructs/mcp-api.js';
import { CDK_CONTEXT, environmentOf, firstStack, flat, functionId, type Json, logicalId } from './support.js';

/**
 * Abuse in AWS (decision 0070): per-key throttling through a usage plan whose API keys are buckets
 * the authorizer names, the 429 API Gateway answers, the optional per-address WAF rule, and
 * tracing from the stage on.
 */
const api = CDK_CONTEXT['naaba:api'] as { keyRateLimit: number; keyBurstLimit: number; keyBuckets: number; stageName: string };
const waf = CDK_CONTEXT['naaba:waf'] as { enabled: boolean; requestsPerAddress: number; windowSeconds: number };

const { stack, template } = firstStack();

/** Every method as `VERB path`, with whether it needs an API key. */
function methodKeys(t: Template): Record<string, boolean> {
  const resources = t.findResources('AWS::ApiGateway::Resource');
  const pathOf = (id: string | undefined): string => {
    const r = id === undefined ? undefined : resources[id];
    return r ? `${pathOf(r.Properties.ParentId?.Ref)}/${r.Properties.PathPart}` : '';
  };
  return Object.fromEntries(
    Object.values(t.findResources('AWS::ApiGateway::Method')).map((m) => [
      `${m.Properties.HttpMethod} ${pathOf(m.Properties.ResourceId.Ref) || '/'}`,
      m.Properties.ApiKeyRequired === true,
    ]),
  );
}

describe('per-key throttling', () => {
  const keyValues = Object.values(template.findResources('AWS::ApiGateway::ApiKey')).map((k) => String(k.Properties.Value));

  test('the API counts the key the authorizer names, and only the routes behind the authorizer need one', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    const keyed = Object.entries(methodKeys(template)).filter(([, required]) => required);

    expect(keyed.map(([route]) => route).sort()).toEqual(['ANY /api/{proxy+}', 'POST /mcp']);
  });

  test(`a usage plan of the stage throttles each bucket to ${api.keyRateLimit}/s, burst ${api.keyBurstLimit}`, () => {
    const plan = logicalId(template, 'AWS::ApiGateway::UsagePlan');

    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: api.keyRateLimit, BurstLimit: api.keyBurstLimit },
      ApiStages: [
        {
          ApiId: { Ref: logicalId(template, 'AWS::ApiGateway::RestApi') },
          Stage: { Ref: logicalId(template, 'AWS::ApiGateway::Stage') },
        },
      ],
    });
    const planKeys = Object.values(template.findResources('AWS::ApiGateway::UsagePlanKey'));
    expect(planKeys).toHaveLength(api.keyBuckets);
    for (const k of planKeys) expect(k.Properties).toMatchObject({ UsagePlanId: { Ref: plan }, KeyType: 'API_KEY' });
  });

  test(`${api.keyBuckets} bucket keys, all distinct, each of them in the plan`, () => {
    const keys = template.findResources('AWS::ApiGateway::ApiKey');
    const inPlan = Object.values(template.findResources('AWS::ApiGateway::UsagePlanKey')).map((k) => k.Properties.KeyId.Ref);

    expect(new Set(keyValues).size).toBe(api.keyBuckets);
    expect(keyValues.every((v) => v.length >= 20 && v.startsWith(`${stack.stackName}-usage-bucket-`))).toBe(true);
    expect(new Set(inPlan)).toEqual(new Set(Object.keys(keys)));
  });

  test("the authorizer is told the buckets, and names one of the stack's keys for any key id", () => {
    const env = environmentOf(template, functionId(template, /authorizer/));
    const buckets = usageBuckets(env);
    const named = Array.from({ length: 2000 }, () => usageIdentifier(randomUUID(), buckets ?? { prefix: '', count: 1 }));

    expect(buckets).toEqual({ prefix: `${stack.stackName}-usage-bucket-`, count: api.keyBuckets });
    expect(named.filter((value) => !keyValues.includes(value))).toEqual([]);
    // Spread over the buckets: with 2,000 keys every one of 50 buckets is used (a miss has odds of about 1e-17).
    expect(new Set(named).size).toBe(api.keyBuckets);
    for (const id of ['mcp', 'sweeper'] as const) {
      const other = environmentOf(template, functionId(template, id === 'mcp' ? /MCP endpoint/ : /sweeper/));
      expect(other.NAABA_USAGE_KEY_PREFIX).toBeUndefined();
    }
  });

  test('throttled requests get a 429 with Retry-After and a JSON message, not a bare one', () => {
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'THROTTLED',
      StatusCode: '429',
      ResponseParameters: { 'gatewayresponse.header.Retry-After': "'1'" },
      ResponseTemplates: { 'application/json': THROTTLED.body },
    });
    expect(JSON.parse(THROTTLED.body).message).toMatch(/retry/);
  });

  test('the bucket count and limits come from cdk.json', () => {
    const { template: t } = firstStack({ 'naaba:api': { ...api, keyBuckets: 7, keyRateLimit: 3, keyBurstLimit: 6 } });

    expect(Object.keys(t.findResources('AWS::ApiGateway::ApiKey'))).toHaveLength(7);
    t.hasResourceProperties('AWS::ApiGateway::UsagePlan', { Throttle: { RateLimit: 3, BurstLimit: 6 } });
    expect(environmentOf(t, functionId(t, /authorizer/)).NAABA_USAGE_KEY_COUNT).toBe('7');
  });
});

describe('the per-address WAF rule', () => {
  test('is off in the committed cdk.json: no web ACL', () => {
    expect(waf.enabled).toBe(false);
    expect(template.findResources('AWS::WAFv2::WebACL')).toEqual({});
    expect(template.findResources('AWS::WAFv2::WebACLAssociation')).toEqual({});
  });

  test('when on: a regional web ACL on the stage, one rate rule per address answering 429 with Retry-After', () => {
    const { template: t } = firstStack({ 'naaba:waf': { enabled: true, requestsPerAddress: 600, windowSeconds: 120 } });
    const acl = logicalId(t, 'AWS::WAFv2::WebACL');
    const [rule, ...others] = (t.toJSON().Resources[acl].Properties.Rules ?? []) as Record<string, Json>[];

    expect(others).toEqual([]);
    expect(t.toJSON().Resources[acl].Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    expect(rule).toMatchObject({
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 600, EvaluationWindowSec: 120 } },
      Action: {
        Block: {
          CustomResponse: { ResponseCode: 429, ResponseHeaders: [{ Name: 'Retry-After', Value: '120' }] },
        },
      },
      // Sampled requests would keep headers, and Authorization carries the key.
      VisibilityConfig: { SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true },
    });
    const association = Object.values(t.findResources('AWS::WAFv2::WebACLAssociation'))[0];
    expect(association?.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [acl, 'Arn'] });
    expect(String(flat(association?.Properties.ResourceArn))).toContain(
      `/restapis/\${${logicalId(t, 'AWS::ApiGateway::RestApi')}}/stages/`,
    );
  });
});

test('the stage traces requests with X-Ray, so a trace starts at API Gateway', () => {
  template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: api.stageName, TracingEnabled: true });
});
