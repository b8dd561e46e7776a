import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DeployConfigError } from '../lib/config/deploy-config.js';
import { addRegionStacks } from '../lib/naaba-app.js';

/** The CDK app: one stack per region of cdk.json, checked by cdk-nag's AwsSolutions pack on every synth. */
const app = new App();
try {
  addRegionStacks(app);
} catch (error) {
  if (!(error instanceof DeployConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
