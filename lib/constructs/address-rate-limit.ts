import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface AddressRateLimitProps {
  readonly stage: Stage;
  /** Requests one client address may make within `windowSeconds`. */
  readonly requestsPerAddress: number;
  readonly windowSeconds: number;
}

/** The metric name WAF reports the rule under (namespace AWS/WAFV2). */
export const RATE_RULE_METRIC = 'naaba-requests-per-address';

/**
 * An optional WAF web ACL on the stage (decision 0070): one rate-based rule per client address,
 * which answers 429 with `Retry-After` once an address goes over its budget, whatever token it
 * sends. It is what bounds a flood of random bearer tokens or unauthenticated OAuth calls from one
 * source, which per-key throttling cannot see.
 */
export class AddressRateLimit extends Construct {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, props: AddressRateLimitProps) {
    super(scope, id);
    this.acl = new CfnWebACL(this, 'Acl', {
      scope: 'REGIONAL',
      description: 'naaba: requests per client address',
      defaultAction: { allow: {} },
      // No sampled requests and no WAF logging: both would keep request headers, and Authorization carries the key.
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'naaba-acl', sampledRequestsEnabled: false },
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
          visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: RATE_RULE_METRIC, sampledRequestsEnabled: false },
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Stage', { resourceArn: props.stage.stageArn, webAclArn: this.acl.attrArn });
  }
}
