/**
 * Every Lambda of the service, declared once. The CDK app bundles each `entry` as its own
 * function and routes API Gateway to it; the local stack (local/) imports the very same
 * module and calls its `handler` export. So what runs locally is what is deployed.
 */
export interface ApiRoute {
  /** CDK construct id and log name. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under /api/v1, in API Gateway's template form. */
  path: string;
  /** Module, relative to the repository root, whose `handler` export serves the route. */
  entry: string;
}

export const API_ROUTES: readonly ApiRoute[] = [
  { name: 'CreatePosts', method: 'POST', path: '/posts', entry: 'functions/create-posts.ts' },
  { name: 'ListPosts', method: 'GET', path: '/posts', entry: 'functions/list-posts.ts' },
  { name: 'GetPost', method: 'GET', path: '/posts/{id}', entry: 'functions/get-post.ts' },
  { name: 'DeletePost', method: 'DELETE', path: '/posts/{id}', entry: 'functions/delete-post.ts' },
  // The post lifecycle (beyond-v1.md): change, send a draft, send a failed post again, preview a create.
  { name: 'UpdatePost', method: 'PATCH', path: '/posts/{id}', entry: 'functions/update-post.ts' },
  { name: 'PublishDraft', method: 'POST', path: '/posts/{id}/publish', entry: 'functions/publish-draft.ts' },
  { name: 'RetryPost', method: 'POST', path: '/posts/{id}/retry', entry: 'functions/retry-post.ts' },
  { name: 'PreviewPosts', method: 'POST', path: '/posts/preview', entry: 'functions/preview-posts.ts' },
  { name: 'ListAccounts', method: 'GET', path: '/accounts', entry: 'functions/list-accounts.ts' },
  // An account's queue (beyond-v2.md "Queues and time zones").
  { name: 'GetQueue', method: 'GET', path: '/accounts/{id}/queue', entry: 'functions/queues/get-queue.ts' },
  { name: 'PutQueue', method: 'PUT', path: '/accounts/{id}/queue', entry: 'functions/queues/put-queue.ts' },
  { name: 'NextQueueSlots', method: 'GET', path: '/accounts/{id}/queue/next', entry: 'functions/queues/next-queue-slots.ts' },
  // Post metrics (beyond-v2.md): a post's figures and history, a refresh now, analytics over a period.
  { name: 'GetPostMetrics', method: 'GET', path: '/posts/{id}/metrics', entry: 'functions/get-post-metrics.ts' },
  { name: 'RefreshPostMetrics', method: 'POST', path: '/posts/{id}/metrics/refresh', entry: 'functions/refresh-post-metrics.ts' },
  { name: 'GetAnalytics', method: 'GET', path: '/analytics', entry: 'functions/get-analytics.ts' },
  // Webhook endpoints (beyond-v1.md; docs/webhooks.md).
  { name: 'CreateWebhookEndpoint', method: 'POST', path: '/webhook_endpoints', entry: 'functions/webhooks/create-webhook-endpoint.ts' },
  { name: 'ListWebhookEndpoints', method: 'GET', path: '/webhook_endpoints', entry: 'functions/webhooks/list-webhook-endpoints.ts' },
  { name: 'GetWebhookEndpoint', method: 'GET', path: '/webhook_endpoints/{id}', entry: 'functions/webhooks/get-webhook-endpoint.ts' },
  { name: 'UpdateWebhookEndpoint', method: 'PATCH', path: '/webhook_endpoints/{id}', entry: 'functions/webhooks/update-webhook-endpoint.ts' },
  { name: 'DeleteWebhookEndpoint', method: 'DELETE', path: '/webhook_endpoints/{id}', entry: 'functions/webhooks/delete-webhook-endpoint.ts' },
  {
    name: 'RotateWebhookSecret',
    method: 'POST',
    path: '/webhook_endpoints/{id}/rotate_secret',
    entry: 'functions/webhooks/rotate-webhook-secret.ts',
  },
  { name: 'TestWebhookEndpoint', method: 'POST', path: '/webhook_endpoints/{id}/test', entry: 'functions/webhooks/test-webhook-endpoint.ts' },
  // Events you can read back (beyond-v2.md; docs/webhooks.md).
  { name: 'ListEvents', method: 'GET', path: '/events', entry: 'functions/events/list-events.ts' },
  { name: 'GetEvent', method: 'GET', path: '/events/{id}', entry: 'functions/events/get-event.ts' },
  // Media through the API (beyond-v2.md; docs/media.md): the same library as settings'.
  { name: 'CreateMedia', method: 'POST', path: '/media', entry: 'functions/media/create-media.ts' },
  { name: 'ListMedia', method: 'GET', path: '/media', entry: 'functions/media/list-media.ts' },
  { name: 'GetMedia', method: 'GET', path: '/media/{id}', entry: 'functions/media/get-media.ts' },
  { name: 'UpdateMedia', method: 'PATCH', path: '/media/{id}', entry: 'functions/media/update-media.ts' },
  { name: 'DeleteMedia', method: 'DELETE', path: '/media/{id}', entry: 'functions/media/delete-media.ts' },
  { name: 'CompleteMedia', method: 'POST', path: '/media/{id}/complete', entry: 'functions/media/complete-media.ts' },
];

export const API_BASE_PATH = '/api/v1';

/**
 * The settings web app (lib/web): server-rendered pages for a person signed in through OpenID
 * Connect. Same HTTP API, one Lambda per route like the API; paths are full paths under
 * /settings. A new page is one line here plus its handler in functions/settings/ and its row in
 * infra/stacks/function-access.ts.
 */
export interface WebRoute {
  name: string;
  method: 'GET' | 'POST';
  /** Full path, in API Gateway's template form (starts with SETTINGS_BASE_PATH). */
  path: string;
  entry: string;
}

export const SETTINGS_BASE_PATH = '/settings';

export const SETTINGS_ROUTES: readonly WebRoute[] = [
  { name: 'SettingsOverview', method: 'GET', path: '/settings', entry: 'functions/settings/overview.ts' },
  { name: 'SettingsSignIn', method: 'GET', path: '/settings/sign-in', entry: 'functions/settings/sign-in.ts' },
  { name: 'SettingsAuthCallback', method: 'GET', path: '/settings/auth/callback', entry: 'functions/settings/auth-callback.ts' },
  { name: 'SettingsSignOut', method: 'POST', path: '/settings/sign-out', entry: 'functions/settings/sign-out.ts' },
  { name: 'SettingsStatic', method: 'GET', path: '/settings/static/{file}', entry: 'functions/settings/static-asset.ts' },
  { name: 'SettingsKeys', method: 'GET', path: '/settings/keys', entry: 'functions/settings/keys.ts' },
  { name: 'SettingsCreateKey', method: 'POST', path: '/settings/keys', entry: 'functions/settings/create-key.ts' },
  { name: 'SettingsRevokeKeyConfirm', method: 'GET', path: '/settings/keys/{id}/revoke', entry: 'functions/settings/revoke-key-confirm.ts' },
  { name: 'SettingsRevokeKey', method: 'POST', path: '/settings/keys/{id}/revoke', entry: 'functions/settings/revoke-key.ts' },
  { name: 'SettingsWorkspaces', method: 'GET', path: '/settings/workspaces', entry: 'functions/settings/workspaces.ts' },
  { name: 'SettingsCreateWorkspace', method: 'POST', path: '/settings/workspaces', entry: 'functions/settings/create-workspace.ts' },
  { name: 'SettingsRenameWorkspace', method: 'POST', path: '/settings/workspaces/{id}/rename', entry: 'functions/settings/rename-workspace.ts' },
  { name: 'SettingsDisconnectAccountConfirm', method: 'GET', path: '/settings/accounts/{id}/disconnect', entry: 'functions/settings/disconnect-account-confirm.ts' },
  { name: 'SettingsDisconnectAccount', method: 'POST', path: '/settings/accounts/{id}/disconnect', entry: 'functions/settings/disconnect-account.ts' },
  { name: 'SettingsAccountQueue', method: 'GET', path: '/settings/accounts/{id}/queue', entry: 'functions/settings/account-queue.ts' },
  { name: 'SettingsSaveAccountQueue', method: 'POST', path: '/settings/accounts/{id}/queue', entry: 'functions/settings/save-account-queue.ts' },
  { name: 'SettingsPosts', method: 'GET', path: '/settings/posts', entry: 'functions/settings/posts.ts' },
  { name: 'SettingsCancelPost', method: 'POST', path: '/settings/posts/{id}/cancel', entry: 'functions/settings/cancel-post.ts' },
  { name: 'SettingsSendPost', method: 'POST', path: '/settings/posts/{id}/send', entry: 'functions/settings/send-post.ts' },
  { name: 'SettingsRetryPost', method: 'POST', path: '/settings/posts/{id}/retry', entry: 'functions/settings/retry-post.ts' },
  // A week of posts in the person's time zone, and the zone they choose (lib/web/calendar-routes.ts).
  { name: 'SettingsCalendar', method: 'GET', path: '/settings/calendar', entry: 'functions/settings/calendar.ts' },
  { name: 'SettingsSaveTimeZone', method: 'POST', path: '/settings/time-zone', entry: 'functions/settings/save-time-zone.ts' },
  { name: 'SettingsAnalytics', method: 'GET', path: '/settings/analytics', entry: 'functions/settings/analytics.ts' },
  { name: 'SettingsPostMetrics', method: 'GET', path: '/settings/posts/{id}/metrics', entry: 'functions/settings/post-metrics.ts' },
  { name: 'SettingsRefreshPostMetrics', method: 'POST', path: '/settings/posts/{id}/metrics/refresh', entry: 'functions/settings/refresh-post-metrics.ts' },
  // The assistant server's consent and grants (lib/oauth): pages of the settings app.
  { name: 'SettingsAssistantConsent', method: 'GET', path: '/settings/assistants/consent', entry: 'functions/settings/assistant-consent.ts' },
  { name: 'SettingsAssistantConsentAnswer', method: 'POST', path: '/settings/assistants/consent', entry: 'functions/settings/assistant-consent-answer.ts' },
  { name: 'SettingsAssistants', method: 'GET', path: '/settings/assistants', entry: 'functions/settings/assistants.ts' },
  { name: 'SettingsRevokeAssistant', method: 'POST', path: '/settings/assistants/{id}/revoke', entry: 'functions/settings/assistant-revoke.ts' },
  // Connected accounts (connect, reconnect, disconnect) and the OAuth callbacks registered with X and LinkedIn.
  { name: 'SettingsAccounts', method: 'GET', path: '/settings/accounts', entry: 'functions/settings/accounts.ts' },
  { name: 'SettingsConnectStart', method: 'POST', path: '/settings/accounts/connect', entry: 'functions/settings/connect-start.ts' },
  { name: 'SettingsConnectXCallback', method: 'GET', path: '/settings/connect/x/callback', entry: 'functions/settings/connect-x-callback.ts' },
  { name: 'SettingsConnectLinkedinCallback', method: 'GET', path: '/settings/connect/linkedin/callback', entry: 'functions/settings/connect-linkedin-callback.ts' },
  // The media library: uploads go straight to the media bucket with a presigned POST.
  { name: 'SettingsMedia', method: 'GET', path: '/settings/media', entry: 'functions/settings/media.ts' },
  { name: 'SettingsMediaUpload', method: 'POST', path: '/settings/media/upload', entry: 'functions/settings/media-upload.ts' },
  { name: 'SettingsMediaUploaded', method: 'GET', path: '/settings/media/uploaded', entry: 'functions/settings/media-uploaded.ts' },
  { name: 'SettingsMediaRegister', method: 'POST', path: '/settings/media/register', entry: 'functions/settings/media-register.ts' },
  { name: 'SettingsMediaDelete', method: 'POST', path: '/settings/media/delete', entry: 'functions/settings/media-delete.ts' },
  { name: 'SettingsMediaAltText', method: 'POST', path: '/settings/media/alt-text', entry: 'functions/settings/media-alt-text.ts' },
  { name: 'SettingsMediaImport', method: 'POST', path: '/settings/media/import', entry: 'functions/settings/media-import.ts' },
  // Webhook endpoints (beyond-v1.md): one page (list, one endpoint with its deliveries, the delete
  // question) and an action per privilege set (cipher: add, rotate; queue: test, resend; table only).
  { name: 'SettingsWebhooks', method: 'GET', path: '/settings/webhooks', entry: 'functions/settings/webhooks.ts' },
  { name: 'SettingsCreateWebhook', method: 'POST', path: '/settings/webhooks', entry: 'functions/settings/create-webhook.ts' },
  { name: 'SettingsRotateWebhookSecret', method: 'POST', path: '/settings/webhooks/{id}/rotate', entry: 'functions/settings/rotate-webhook-secret.ts' },
  { name: 'SettingsSendWebhook', method: 'POST', path: '/settings/webhooks/{id}/send', entry: 'functions/settings/send-webhook.ts' },
  { name: 'SettingsWebhookStatus', method: 'POST', path: '/settings/webhooks/{id}/status', entry: 'functions/settings/webhook-status.ts' },
  { name: 'SettingsDeleteWebhook', method: 'POST', path: '/settings/webhooks/{id}/delete', entry: 'functions/settings/delete-webhook.ts' },
];

/** Every route of the HTTP API with its full path: the API's under API_BASE_PATH, the settings pages, the assistant server, the API reference. */
export function httpRoutes(): Array<{ name: string; method: string; path: string; entry: string }> {
  return [...API_ROUTES.map((route) => ({ ...route, path: `${API_BASE_PATH}${route.path}` })), ...SETTINGS_ROUTES, ...ASSISTANT_ROUTES, ...REFERENCE_ROUTES];
}


/** A route outside /api/v1, with its full path (the assistant server's MCP and OAuth endpoints). */
export interface ServiceRoute extends ApiRoute {
  /** Full path from the origin. */
  path: string;
}

/**
 * The assistant server (docs/assistant-server.md): the MCP endpoint, the discovery
 * documents (RFC 9728, RFC 8414) and the OAuth authorization server. Same catalogue rule as the
 * API: each row is one Lambda on AWS and one handler in the local stack. The consent page itself
 * is a settings page (functions/settings/assistant-consent.ts).
 */
export const ASSISTANT_ROUTES: readonly ServiceRoute[] = [
  { name: 'Mcp', method: 'POST', path: '/mcp', entry: 'functions/mcp/mcp.ts' },
  // Stateless: no server-sent event stream (GET) and no session to end (DELETE); both answer 405.
  { name: 'McpGet', method: 'GET', path: '/mcp', entry: 'functions/mcp/mcp.ts' },
  { name: 'McpDelete', method: 'DELETE', path: '/mcp', entry: 'functions/mcp/mcp.ts' },
  {
    name: 'ProtectedResourceMetadata',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    entry: 'functions/oauth/protected-resource-metadata.ts',
  },
  {
    name: 'ProtectedResourceMetadataRoot',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    entry: 'functions/oauth/protected-resource-metadata.ts',
  },
  {
    name: 'AuthorizationServerMetadata',
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    entry: 'functions/oauth/authorization-server-metadata.ts',
  },
  { name: 'OAuthRegister', method: 'POST', path: '/oauth/register', entry: 'functions/oauth/register.ts' },
  { name: 'OAuthAuthorize', method: 'GET', path: '/oauth/authorize', entry: 'functions/oauth/authorize.ts' },
  { name: 'OAuthToken', method: 'POST', path: '/oauth/token', entry: 'functions/oauth/token.ts' },
];

/**
 * The API reference: openapi.yaml rendered by Redoc (web/api-reference/build.ts), a page and its
 * files, public like the contract itself. One function serves both routes (its files are copied
 * beside its bundle at synth).
 */
export const REFERENCE_ROUTES: readonly ServiceRoute[] = [
  { name: 'ApiReference', method: 'GET', path: '/docs', entry: 'functions/api-reference.ts' },
  { name: 'ApiReferenceFile', method: 'GET', path: '/docs/{file}', entry: 'functions/api-reference.ts' },
];

/**
 * How a queue is consumed: messages per batch, and concurrent batches (the event source mapping's
 * maximum concurrency on AWS, parallel pollers in the local stack, so both send the same number of
 * posts at once).
 */
export interface Consuming {
  batchSize: number;
  maxConcurrency: number;
}

/** Consumers of the SQS queues (event source mappings on AWS, pollers in the local stack). */
export interface QueueConsumer {
  name: string;
  queue: 'publish' | 'deletion' | 'webhook' | 'mediaImport';
  entry: string;
  /** The default; the publish worker's is a deploy-time setting (infra/stacks/publish-throughput.ts). */
  consuming: Consuming;
}

export const QUEUE_CONSUMERS: readonly QueueConsumer[] = [
  // Up to 100 batches of 10. A burst of 500 posts due at one second arrives over the second before
  // it, often in part batches, and each batch is held until its posts' time: twice the burst in
  // slots keeps every post of it prepared in time (docs/performance.md, "Posts due at the same second").
  { name: 'PublishWorker', queue: 'publish', entry: 'functions/publish-worker.ts', consuming: { batchSize: 10, maxConcurrency: 100 } },
  // Deletions are rare and go a few at a time, so a backlog cannot storm the platforms' rate limits.
  { name: 'PlatformDeletionWorker', queue: 'deletion', entry: 'functions/platform-deletion-worker.ts', consuming: { batchSize: 5, maxConcurrency: 2 } },
  // Deliveries of a batch go out at once (each bounded by its endpoint's in-flight slots), so a
  // batch of 10 costs at most one 10 s timeout however many receivers are slow. Twice an endpoint's
  // 10 slots in invocations: a hanging endpoint's retries and tests are single messages, each
  // holding one slot in an invocation of its own for up to the timeout, so with 10 invocations it
  // could hold all of them and every other customer's deliveries waited (seen once the local
  // pollers stopped queuing for connections); with 20 it holds at most half.
  { name: 'WebhookDeliveryWorker', queue: 'webhook', entry: 'functions/webhook-delivery-worker.ts', consuming: { batchSize: 10, maxConcurrency: 20 } },
  // One import at a time per invocation (each streams up to 500 MB through one 8 MiB part), and a
  // few invocations at once: imports are rare, and each holds a customer's server's connection.
  { name: 'MediaImportWorker', queue: 'mediaImport', entry: 'functions/media-import-worker.ts', consuming: { batchSize: 1, maxConcurrency: 5 } },
];

/** The default consuming of one queue's consumer. */
export function consumingOf(queue: QueueConsumer['queue']): Consuming {
  const consumer = QUEUE_CONSUMERS.find((candidate) => candidate.queue === queue);
  if (!consumer) throw new Error(`No consumer for the ${queue} queue`);
  return consumer.consuming;
}

/** Receives of a queue message before its queue's redrive policy moves it to the dead-letter queue (CDK app and local stack). */
export const MAX_RECEIVE_COUNT = 5;

/**
 * The webhook router: reads the DynamoDB streams of these tables (lib/store/tables.ts `stream`);
 * an event source mapping per table on AWS, the stream poller (local/stream-router.ts) locally.
 */
export const WEBHOOK_ROUTER = { name: 'WebhookRouter', entry: 'functions/webhook-router.ts', tables: ['posts', 'directory'] } as const;

/** Runs on a timer (one-minute EventBridge rule on AWS, every few seconds locally and at start-up). */
export const SWEEPER = { name: 'Sweeper', entry: 'functions/sweeper.ts' } as const;

/** Post metrics (beyond-v2.md): collects the published posts whose collection is due; on the same timer as the sweeper. */
export const METRICS_COLLECTOR = { name: 'MetricsCollector', entry: 'functions/metrics-collector.ts' } as const;

/**
 * Requests that match no route (API Gateway's $default route; the local server's fallback) get a
 * JSON error in the contract's shape instead of API Gateway's own `{"message":"Not Found"}`.
 */
export const DEFAULT_ROUTE = { name: 'RouteNotFound', entry: 'functions/route-not-found.ts' } as const;
