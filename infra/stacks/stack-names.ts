/**
 * The stacks' names, apart from service.ts so that tools (local/sam-env.ts) need not load the CDK to
 * know them. Which function lives in which stack, and why: infra/stacks/layout.ts.
 */
export const DATA_STACK_NAME = 'SocialPublishingData';
/** The HTTP API itself (and the service's name: every function is named `SocialPublishingApi-<id>`). */
export const API_STACK_NAME = 'SocialPublishingApi';
export const API_ROUTES_STACK_NAME = 'SocialPublishingApiRoutes';
export const SETTINGS_STACK_NAME = 'SocialPublishingSettings';
export const WORKERS_STACK_NAME = 'SocialPublishingWorkers';

/** Every stack that holds functions, in deploy order (each after the API stack it refers to). */
export const FUNCTION_STACK_NAMES = [API_STACK_NAME, API_ROUTES_STACK_NAME, SETTINGS_STACK_NAME, WORKERS_STACK_NAME] as const;
export type FunctionStackName = (typeof FUNCTION_STACK_NAMES)[number];
