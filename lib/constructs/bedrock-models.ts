import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { RegionModels } from '../config/deploy-config.js';
import type { NaabaFunction } from './naaba-function.js';

/**
 * The two Bedrock models of one region: Titan embeddings called in the region itself, and the
 * judge called through its geography's inference profile, so requests stay inside the geography.
 */
export class BedrockModels extends Construct {
  /** The embedding model in this region. */
  readonly embeddingModelArn: string;
  /** The judge's inference profile in this region. */
  readonly judgeProfileArn: string;
  /** The judge's foundation model in every region its profile routes to. */
  readonly judgeModelArns: readonly string[];

  constructor(
    scope: Construct,
    id: string,
    private readonly models: RegionModels,
  ) {
    super(scope, id);
    const stack = Stack.of(this);
    const foundationModel = (region: string, modelId: string) =>
      `arn:${stack.partition}:bedrock:${region}::foundation-model/${modelId}`;
    this.embeddingModelArn = foundationModel(stack.region, models.embeddingModelId);
    this.judgeProfileArn = `arn:${stack.partition}:bedrock:${stack.region}:${stack.account}:inference-profile/${models.judgeProfileId}`;
    this.judgeModelArns = models.judgeRoutesTo.map((region) => foundationModel(region, models.judgeModelId));
  }

  /**
   * Lets the function invoke exactly these models and tells it their ids. `bedrock:InvokeModel`
   * also authorises the Converse API, which the judge uses (docs/decisions/0022).
   */
  grantInvoke(fn: NaabaFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({ sid: 'EmbedWithTitan', actions: ['bedrock:InvokeModel'], resources: [this.embeddingModelArn] }),
      'bedrockRuntime',
    );
    fn.addToRolePolicy(
      new PolicyStatement({
        sid: 'JudgeThroughGeographyProfile',
        actions: ['bedrock:InvokeModel'],
        resources: [this.judgeProfileArn, ...this.judgeModelArns],
      }),
      'bedrockRuntime',
    );
    fn.addEnvironment('NAABA_EMBEDDER', 'bedrock');
    fn.addEnvironment('NAABA_JUDGE', 'bedrock');
    fn.addEnvironment('NAABA_EMBEDDING_DIMENSIONS', String(this.models.embeddingDimensions));
    fn.addEnvironment('NAABA_BEDROCK_EMBEDDING_MODEL', this.models.embeddingModelId);
    fn.addEnvironment('NAABA_BEDROCK_JUDGE_MODEL', this.models.judgeProfileId);
  }
}
