/** The two stacks' names, apart from service.ts so that tools (local/sam-env.ts) need not load the CDK to know them. */
export const DATA_STACK_NAME = 'SocialPublishingData';
export const API_STACK_NAME = 'SocialPublishingApi';
