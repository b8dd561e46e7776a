import type { App } from 'aws-cdk-lib';
import { type DeployConfig, readDeployConfig } from './config/deploy-config.js';
import { RegionStack } from './region-stack.js';

/** The stack name of one region: what `cdk deploy` takes. */
export function stackName(config: Pick<DeployConfig, 'stackPrefix'>, awsRegion: string): string {
  return `${config.stackPrefix}-${awsRegion}`;
}

/**
 * Adds one {@link RegionStack} per configured region to the app, from the app's cdk.json context.
 * Throws a DeployConfigError naming every problem of that context.
 */
export function addRegionStacks(app: App): RegionStack[] {
  const config = readDeployConfig((key) => app.node.tryGetContext(key));
  return config.regions.map((region) => {
    const name = stackName(config, region.awsRegion);
    return new RegionStack(app, name, { config, region, stackName: name });
  });
}
