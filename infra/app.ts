/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy --all`). Synthesizes offline: no context lookups,
 * and the stacks are environment-agnostic unless CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION are set
 * (the CDK CLI sets them from your AWS profile when it has one).
 */
import { App } from 'aws-cdk-lib';
import { buildService } from './stacks/service.js';

const app = new App();
buildService(app, {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
app.synth();
