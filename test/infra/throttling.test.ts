import { LOOPBACK_REDIRECT } from '../../lib/constructs/web-firewall.js';
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

describe('WAF (decision 0094)', () => {
  const aclOf = (t: Template) => t.toJSON().Resources[logicalId(t, 'AWS::WAFv2::WebACL')].Properties;

  test('is on in the committed cdk.json: a regional web ACL on the stage, allowing by default, sampling nothing', () => {
    const acl = logicalId(template, 'AWS::WAFv2::WebACL');

    expect(waf.enabled).toBe(true);
    expect(aclOf(template)).toMatchObject({
      Name: `${stack.stackName}-api`,
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      VisibilityConfig: { MetricName: `${stack.stackName}-api`, SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true },
    });
    const association = Object.values(template.findResources('AWS::WAFv2::WebACLAssociation'))[0];
    expect(association?.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [acl, 'Arn'] });
    expect(String(flat(association?.Properties.ResourceArn))).toContain(
      `/restapis/\${${logicalId(template, 'AWS::ApiGateway::RestApi')}}/stages/`,
    );
  });

  test('first, one rate rule per address answering 429 with Retry-After, at the limits of cdk.json', () => {
    const { template: t } = firstStack({ 'naaba:waf': { enabled: true, requestsPerAddress: 600, windowSeconds: 120 } });
    const [rule] = (aclOf(t).Rules ?? []) as Record<string, Json>[];

    expect(rule).toMatchObject({
      Priority: 0,
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 600, EvaluationWindowSec: 120 } },
      Action: {
        Block: {
          CustomResponse: { ResponseCode: 429, ResponseHeaders: [{ Name: 'Retry-After', Value: '120' }] },
        },
      },
      // Sampled requests would keep headers, and Authorization carries the key.
      VisibilityConfig: { SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true },
    });
  });

  test("then AWS's managed groups for IP reputation, known bad inputs and common attacks; rules on the body only count", () => {
    const [, ...rules] = (aclOf(template).Rules ?? []) as {
      Priority: number;
      OverrideAction: Json;
      Statement: {
        ManagedRuleGroupStatement: {
          VendorName: string;
          Name: string;
          RuleActionOverrides?: { Name: string; ActionToUse: Json }[];
        };
      };
      VisibilityConfig: { SampledRequestsEnabled: boolean };
    }[];
    const groups = rules.filter((r) => r.Statement.ManagedRuleGroupStatement);
    const counted = groups.flatMap((g) =>
      (g.Statement.ManagedRuleGroupStatement.RuleActionOverrides ?? []).map((o) => [o.Name, o.ActionToUse]),
    );

    expect(
      groups.map((g) => [
        g.Priority,
        g.Statement.ManagedRuleGroupStatement.VendorName,
        g.Statement.ManagedRuleGroupStatement.Name,
      ]),
    ).toEqual([
      [1, 'AWS', 'AWSManagedRulesAmazonIpReputationList'],
      [2, 'AWS', 'AWSManagedRulesKnownBadInputsRuleSet'],
      [3, 'AWS', 'AWSManagedRulesCommonRuleSet'],
    ]);
    for (const g of groups) expect([g.OverrideAction, g.VisibilityConfig.SampledRequestsEnabled]).toEqual([{ None: {} }, false]);
    // Memory content is the body: it may quote an attack without being one. Everything else blocks
    // (GenericRFI_QUERYARGUMENTS through the rule after the group, next test).
    for (const [name, action] of counted)
      expect([name, action]).toEqual([
        expect.stringMatching(/_BODY$|^NoUserAgent_HEADER$|^GenericRFI_QUERYARGUMENTS$/),
        { Count: {} },
      ]);
    expect(counted.map(([name]) => name)).toContain('SizeRestrictions_BODY');
  });

  test('a desktop client signs in: the RFI query rule counts, and a rule after it blocks what it matched unless it is /oauth/authorize with a loopback redirect_uri (issue 48)', () => {
    const rules = (aclOf(template).Rules ?? []) as { Name: string; Priority: number; Statement: Json; Action?: Json }[];
    const common = rules.find((r) => JSON.stringify(r.Statement).includes('AWSManagedRulesCommonRuleSet'));
    const after = rules.find((r) => r.Name === 'rfi-query-but-loopback-sign-in');

    expect(after?.Priority).toBeGreaterThan(common?.Priority ?? Number.POSITIVE_INFINITY);
    expect(after).toMatchObject({
      Action: { Block: {} },
      Statement: {
        AndStatement: {
          Statements: [
            { LabelMatchStatement: { Scope: 'LABEL', Key: 'awswaf:managed:aws:core-rule-set:GenericRFI_QueryArguments' } },
            {
              NotStatement: {
                Statement: {
                  AndStatement: {
                    Statements: [
                      {
                        ByteMatchStatement: {
                          FieldToMatch: { UriPath: {} },
                          PositionalConstraint: 'ENDS_WITH',
                          SearchString: '/oauth/authorize',
                        },
                      },
                      {
                        RegexMatchStatement: {
                          FieldToMatch: { SingleQueryArgument: { Name: 'redirect_uri' } },
                          RegexString: LOOPBACK_REDIRECT,
                          TextTransformations: [{ Priority: 0, Type: 'URL_DECODE' }],
                        },
                      },
                    ],
                  },
                },
              },
            },
          ],
        },
      },
    });
    // What the regex lets through: the loopback redirect URIs docs/oauth.md asks desktop clients to use.
    const loopback = new RegExp(LOOPBACK_REDIRECT);
    for (const uri of [
      'http://127.0.0.1:8977/cb',
      'http://127.0.0.1/callback',
      'http://[::1]:33418/',
      'http://localhost:6274/oauth/callback',
    ])
      expect([uri, loopback.test(uri)]).toEqual([uri, true]);
    for (const uri of [
      'http://10.0.0.5:8080/cb',
      'http://127.0.0.1.evil.example/cb',
      'http://169.254.169.254/latest/meta-data',
      'https://127.0.0.1:8977/cb',
      'http://evil.example/?u=http://127.0.0.1/',
    ])
      expect([uri, loopback.test(uri)]).toEqual([uri, false]);
  });

  test('an alarm on what it blocks, by the web ACL of the stack', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter(
      (a) => a.Properties.Namespace === 'AWS/WAFV2',
    );

    expect(alarms.map((a) => [a.Properties.MetricName, flat(a.Properties.Dimensions)])).toEqual([
      [
        'BlockedRequests',
        [
          { Name: 'Region', Value: stack.region },
          { Name: 'Rule', Value: 'ALL' },
          { Name: 'WebACL', Value: `${stack.stackName}-api` },
        ],
      ],
    ]);
  });

  test('off: no web ACL, no WAF alarm, and cdk-nag is told why (see nag.test.ts)', () => {
    const { template: t } = firstStack({ 'naaba:waf': { enabled: false } });

    expect(t.findResources('AWS::WAFv2::WebACL')).toEqual({});
    expect(t.findResources('AWS::WAFv2::WebACLAssociation')).toEqual({});
    expect(
      Object.values(t.findResources('AWS::CloudWatch::Alarm')).filter((a) => a.Properties.Namespace === 'AWS/WAFV2'),
    ).toEqual([]);
  });
});

test('the stage traces requests with X-Ray, so a trace starts at API Gateway', () => {
  template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: api.stageName, TracingEnabled: true });
});
