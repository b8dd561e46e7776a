import { Stack } from 'aws-cdk-lib';
import { ApiKey, type Stage, UsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import type { NaabaFunction } from './naaba-function.js';

export interface KeyThrottleProps {
  readonly stage: Stage;
  /** Steady requests per second of one bucket. */
  readonly rateLimit: number;
  /** Requests one bucket may make at once above the steady rate. */
  readonly burstLimit: number;
  /** How many buckets the keys are spread over. */
  readonly buckets: number;
}

/**
 * Per-key throttling in API Gateway (decision 0070). A usage plan throttles each of its API keys
 * on its own; the stack makes `buckets` API keys whose values only name a bucket (the API takes its
 * key from the authorizer, never from a request header, so a value is not a credential), and the
 * authorizer names the bucket of the caller's key as the usage identifier. One key's flood then
 * exhausts its own bucket only.
 */
export class KeyThrottle extends Construct {
  readonly plan: UsagePlan;
  readonly keys: ApiKey[] = [];
  /** A bucket's API key value is this prefix and the bucket's number, three digits. */
  readonly valuePrefix: string;

  constructor(scope: Construct, id: string, props: KeyThrottleProps) {
    super(scope, id);
    this.valuePrefix = `${Stack.of(this).stackName}-usage-bucket-`;
    this.plan = new UsagePlan(this, 'Plan', {
      description: 'naaba: every key bucket is throttled on its own (docs/deployment.md, "Throttling")',
      throttle: { rateLimit: props.rateLimit, burstLimit: props.burstLimit },
      apiStages: [{ api: props.stage.restApi, stage: props.stage }],
    });
    for (let i = 0; i < props.buckets; i += 1) {
      const key = new ApiKey(this, `Bucket${i}`, {
        value: `${this.valuePrefix}${String(i).padStart(3, '0')}`,
        description: `naaba usage bucket ${i} of ${props.buckets}: names a throttle, never a credential`,
      });
      this.plan.addApiKey(key);
      this.keys.push(key);
    }
  }

  /** Tells the authorizer how to name a key's bucket: the value prefix and how many there are. */
  nameBucketsIn(authorizer: NaabaFunction): void {
    authorizer.addEnvironment('NAABA_USAGE_KEY_PREFIX', this.valuePrefix);
    authorizer.addEnvironment('NAABA_USAGE_KEY_COUNT', String(this.keys.length));
  }
}
