import { Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { PERIOD } from './naaba-metrics.js';

export interface WebFirewallProps {
  readonly stage: Stage;
  /** Requests one client address may make within `windowSeconds`. */
  readonly requestsPerAddress: number;
  readonly windowSeconds: number;
}

/** The metric name WAF reports the rate rule under (namespace AWS/WAFV2). */
export const RATE_RULE_METRIC = 'naaba-requests-per-address';

/**
 * The AWS managed rule groups a public API puts in front of itself (decision 0094), in the order
 * WAF evaluates them, each with the rules that only count rather than block. Those rules read the
 * request body, and the body of `POST /mcp` and `/api/…` is memory content the caller chose: a
 * note about a Log4j payload, an HTML snippet or a path like `../../etc/passwd` is a memory, not an
 * attack on naaba, which never interprets it. Rules on the URI, the query, the headers and the
 * client's address still block.
 */
export const MANAGED_RULE_GROUPS: readonly { readonly name: string; readonly countOnly: readonly string[] }[] = [
  { name: 'AWSManagedRulesAmazonIpReputationList', countOnly: [] },
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', countOnly: ['JavaDeserializationRCE_BODY', 'Log4JRCE_BODY'] },
  {
    name: 'AWSManagedRulesCommonRuleSet',
    countOnly: [
      // A remember of 8 KiB of content is a JSON body past WAF's 8 KB size rule.
      'SizeRestrictions_BODY',
      'CrossSiteScripting_BODY',
      'GenericLFI_BODY',
      'GenericRFI_BODY',
      'EC2MetaDataSSRF_BODY',
      // MCP clients are programs; not all of them name themselves.
      'NoUserAgent_HEADER',
      // A URL with an IPv4 host in a query value: exactly the loopback redirect_uri a desktop client
      // signs in with. Counted here, and blocked by the rule after the group everywhere else (decision 0134).
      'GenericRFI_QUERYARGUMENTS',
    ],
  },
];

/** The label the Common rule set puts on a request its GenericRFI_QUERYARGUMENTS rule matches. */
export const RFI_QUERY_LABEL = 'awswaf:managed:aws:core-rule-set:GenericRFI_QueryArguments';

/**
 * A loopback redirect URI (RFC 8252 §7.3: `http://127.0.0.1:PORT/…`, `http://[::1]:PORT/…`, and the
 * `localhost` some clients still send), as WAF sees `redirect_uri` after URL decoding.
 */
export const LOOPBACK_REDIRECT = '^http://(127\\.0\\.0\\.1|\\[::1\\]|localhost)(:[0-9]{1,5})?(/|$)';

/** `GET …/oauth/authorize` whose `redirect_uri` is a loopback address. */
function loopbackSignIn(): CfnWebACL.StatementProperty {
  return {
    andStatement: {
      statements: [
        {
          byteMatchStatement: {
            fieldToMatch: { uriPath: {} },
            positionalConstraint: 'ENDS_WITH',
            searchString: '/oauth/authorize',
            textTransformations: [{ priority: 0, type: 'NONE' }],
          },
        },
        {
          regexMatchStatement: {
            fieldToMatch: { singleQueryArgument: { Name: 'redirect_uri' } },
            regexString: LOOPBACK_REDIRECT,
            textTransformations: [{ priority: 0, type: 'URL_DECODE' }],
          },
        },
      ],
    },
  };
}

/**
 * The web ACL on the stage (decisions 0070, 0094): one rate-based rule per client address, which
 * answers 429 with `Retry-After` once an address goes over its budget whatever token it sends,
 * then AWS's managed rule groups for IP reputation, known bad inputs and the common attacks on a
 * public API. Sampled requests and WAF logging stay off: both would keep request headers, and
 * Authorization carries the key.
 */
export class WebFirewall extends Construct {
  readonly acl: CfnWebACL;
  /** Requests any rule blocked (the rate rule and the managed groups), per 5 minutes. */
  readonly blocked: Metric;

  constructor(scope: Construct, id: string, props: WebFirewallProps) {
    super(scope, id);
    // One string as the ACL's name and its metric name: the WebACL dimension of WAF's metrics.
    const name = `${Stack.of(this).stackName}-api`;
    const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: false });
    this.acl = new CfnWebACL(this, 'Acl', {
      name,
      scope: 'REGIONAL',
      description: 'naaba: requests per client address, and AWS managed rules for a public API',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(name),
      customResponseBodies: {
        slowDown: {
          contentType: 'APPLICATION_JSON',
          content: '{"message":"too many requests from this address; retry later"}',
        },
      },
      rules: [
        {
          name: 'requests-per-address',
          priority: 0,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.requestsPerAddress,
              evaluationWindowSec: props.windowSeconds,
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'slowDown',
                // The address's count covers the last window: waiting that long always clears it.
                responseHeaders: [{ name: 'Retry-After', value: String(props.windowSeconds) }],
              },
            },
          },
          visibilityConfig: visibility(RATE_RULE_METRIC),
        },
        ...MANAGED_RULE_GROUPS.map((group, i) => ({
          name: group.name,
          priority: i + 1,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: group.name,
              ...(group.countOnly.length > 0
                ? { ruleActionOverrides: group.countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })) }
                : {}),
            },
          },
          visibilityConfig: visibility(`naaba-${group.name}`),
        })),
        {
          // What GenericRFI_QUERYARGUMENTS would have blocked, blocked, but for a sign-in request whose
          // redirect_uri is a loopback address (decision 0134).
          name: 'rfi-query-but-loopback-sign-in',
          priority: MANAGED_RULE_GROUPS.length + 1,
          statement: {
            andStatement: {
              statements: [
                { labelMatchStatement: { scope: 'LABEL', key: RFI_QUERY_LABEL } },
                { notStatement: { statement: loopbackSignIn() } },
              ],
            },
          },
          action: { block: {} },
          visibilityConfig: visibility('naaba-rfi-query-but-loopback-sign-in'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Stage', { resourceArn: props.stage.stageArn, webAclArn: this.acl.attrArn });
    this.blocked = new Metric({
      namespace: 'AWS/WAFV2',
      metricName: 'BlockedRequests',
      dimensionsMap: { WebACL: name, Region: Stack.of(this).region, Rule: 'ALL' },
      statistic: 'Sum',
      period: PERIOD,
    });
  }
}
