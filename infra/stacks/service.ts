/**
 * The whole service as two stacks, with cdk-nag's AWS Solutions checks attached. infra/app.ts
 * (what `npx cdk synth` runs) and the template tests build it through this one function, so the
 * tests check exactly what is deployed.
 */
import { Tags, Validations } from 'aws-cdk-lib';
import type { App, Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from './api-stack.js';
import { DataStack } from './data-stack.js';
import { checkRegion } from './deploy-settings.js';

import { API_STACK_NAME, DATA_STACK_NAME } from './stack-names.js';

export { API_STACK_NAME, DATA_STACK_NAME };

export interface ServiceOptions {
  /** Unset: an environment-agnostic template (synthesizes with no AWS account and no network). */
  env?: Environment;
}

export interface Service {
  data: DataStack;
  api: ApiStack;
}

export function buildService(app: App, options: ServiceOptions = {}): Service {
  // Before anything is built: a region the stacks cannot work in fails here, with the reason.
  checkRegion(options.env?.region);
  const env = options.env && (options.env.account || options.env.region) ? { env: options.env } : {};
  const data = new DataStack(app, DATA_STACK_NAME, {
    ...env,
    description: 'Social publishing API: tables, media library, token key and secrets (retained)',
    terminationProtection: false,
  });
  const api = new ApiStack(app, API_STACK_NAME, {
    ...env,
    description: 'Social publishing API: HTTP API, functions, queues, scheduling and alarms',
    data,
  });
  Tags.of(app).add('service', 'social-publishing-api');
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { data, api };
}
