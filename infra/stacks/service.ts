/**
 * The whole service as five stacks, with cdk-nag's AWS Solutions checks attached. infra/app.ts
 * (what `npx cdk synth` runs) and the template tests build it through this one function, so the
 * tests check exactly what is deployed. Which function lives in which stack: layout.ts.
 */
import { Stack, Tags, Validations } from 'aws-cdk-lib';
import type { App, Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from './api-stack.js';
import { DataStack } from './data-stack.js';
import { checkRegion } from './deploy-settings.js';

import { API_ROUTES_STACK_NAME, API_STACK_NAME, DATA_STACK_NAME, SETTINGS_STACK_NAME, WORKERS_STACK_NAME } from './stack-names.js';
import type { FunctionStackName } from './stack-names.js';

export { API_STACK_NAME, DATA_STACK_NAME };

export interface ServiceOptions {
  /** Unset: an environment-agnostic template (synthesizes with no AWS account and no network). */
  env?: Environment;
}

export interface Service {
  data: DataStack;
  /** The HTTP API, its stage, the queues, the Scheduler wiring, the alarms, and the functions layout.ts keeps beside them. */
  api: ApiStack;
  /** The stacks that hold the other functions: the API routes, the settings pages, the workers. */
  functionStacks: ReadonlyMap<FunctionStackName, Stack>;
  /** Every stack, data first. */
  stacks: Stack[];
}

const FUNCTION_STACK_DESCRIPTIONS: ReadonlyArray<[FunctionStackName, string]> = [
  [API_ROUTES_STACK_NAME, 'Social publishing API: the /api/v1 routes and the API reference (functions, roles, routes)'],
  [SETTINGS_STACK_NAME, 'Social publishing API: the settings pages (functions, roles, routes)'],
  [WORKERS_STACK_NAME, 'Social publishing API: the queue consumers, the webhook router and the sweeper, with their alarms'],
];

export function buildService(app: App, options: ServiceOptions = {}): Service {
  // Before anything is built: a region the stacks cannot work in fails here, with the reason.
  checkRegion(options.env?.region);
  const env = options.env && (options.env.account || options.env.region) ? { env: options.env } : {};
  const data = new DataStack(app, DATA_STACK_NAME, {
    ...env,
    description: 'Social publishing API: tables, media library, token key and secrets (retained)',
    terminationProtection: false,
  });
  // Filled by the API stack, which places each function (layout.ts); each refers to the API stack
  // (queues, the HTTP API, log groups) and so deploys after it.
  const functionStacks = new Map<FunctionStackName, Stack>(FUNCTION_STACK_DESCRIPTIONS.map(([name, description]) => [name, new Stack(app, name, { ...env, description })]));
  const api = new ApiStack(app, API_STACK_NAME, {
    ...env,
    description: 'Social publishing API: HTTP API, stage, queues, scheduling, alarms, sign-in and the assistant server',
    data,
    functionStacks,
  });
  Tags.of(app).add('service', 'social-publishing-api');
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { data, api, functionStacks, stacks: [data, api, ...functionStacks.values()] };
}
