/**
 * Which stack holds each function, and why. CloudFormation refuses a stack of more than 500
 * resources, and a function costs five (function, role, route, integration, permission), so the
 * functions are split by what deploys together, the way functions/catalogue.ts already splits them:
 *
 * - SocialPublishingApi keeps the HTTP API and what must live beside it: its default route's
 *   function, and the routes its stage names. The stage throttles the routes anyone may call
 *   (UNAUTHENTICATED_ROUTES) by route key, and API Gateway refuses route settings for a route that
 *   does not exist yet, so those routes are created with the stage, not after it. They are the
 *   settings sign-in and the assistant server's OAuth endpoints; the assistant server stays whole.
 *   It also keeps every queue, the Scheduler wiring and the log groups, which the other stacks use.
 * - SocialPublishingApiRoutes: the /api/v1 routes and the API reference.
 * - SocialPublishingSettings: the settings pages.
 * - SocialPublishingWorkers: the queue consumers, the webhook router, the sweeper and the metrics collector.
 *
 * No CDK import here: the template tests and local/sam-env.ts read it too.
 */
import { API_ROUTES, ASSISTANT_ROUTES, DEFAULT_ROUTE, METRICS_COLLECTOR, QUEUE_CONSUMERS, REFERENCE_ROUTES, SETTINGS_ROUTES, SWEEPER, WEBHOOK_ROUTER } from '../../functions/catalogue.js';
import { API_ROUTES_STACK_NAME, API_STACK_NAME, SETTINGS_STACK_NAME, WORKERS_STACK_NAME } from './stack-names.js';
import type { FunctionStackName } from './stack-names.js';

/**
 * The routes a caller reaches without an API key, token or session: sign-in, the authorization
 * server's endpoints and its discovery documents. Each gets its own throttle on the stage.
 */
export const UNAUTHENTICATED_ROUTES: readonly string[] = [
  'SettingsSignIn',
  'SettingsAuthCallback',
  'OAuthAuthorize',
  'OAuthRegister',
  'OAuthToken',
  'ProtectedResourceMetadata',
  'ProtectedResourceMetadataRoot',
  'AuthorizationServerMetadata',
];

/** CloudFormation's limit is 500; the template test fails past this, so a feature meets the limit in a test, not in a deploy. */
export const MAX_STACK_RESOURCES = 400;

/** The stack that holds the function of this catalogue name. */
export function stackOfFunction(name: string): FunctionStackName {
  if (name === DEFAULT_ROUTE.name || UNAUTHENTICATED_ROUTES.includes(name)) return API_STACK_NAME;
  if (ASSISTANT_ROUTES.some((route) => route.name === name)) return API_STACK_NAME;
  if (API_ROUTES.some((route) => route.name === name) || REFERENCE_ROUTES.some((route) => route.name === name)) return API_ROUTES_STACK_NAME;
  if (SETTINGS_ROUTES.some((route) => route.name === name)) return SETTINGS_STACK_NAME;
  if (QUEUE_CONSUMERS.some((consumer) => consumer.name === name) || name === SWEEPER.name || name === METRICS_COLLECTOR.name || name === WEBHOOK_ROUTER.name) return WORKERS_STACK_NAME;
  throw new Error(`${name} is in no list of functions/catalogue.ts: infra/stacks/layout.ts cannot place it`);
}
