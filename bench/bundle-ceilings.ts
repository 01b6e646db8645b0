/**
 * Runaway guards for the function bundles, read by both `test/infra/bundles.test.ts` (which fails a
 * bundle over its ceiling) and `npm run bench` (which prints each bundle against its ceiling).
 *
 * Bundle size is reported, not budgeted: with the AWS SDK bundled (it imports faster than the
 * runtime's copy) the DynamoDB client and the SDK core it needs are ~185 kB of every function, so a
 * size budget would only measure the SDK (docs/performance.md, "Function bundles"). What a caller
 * feels is the import time, and that is the budget (bench/report.ts, importRatioBudget: over a reference bundle of the same SDK clients). The ceilings
 * only catch a bundle that suddenly grows: 250 kB by default, and for the functions below, which
 * are over it, a ceiling about 3% above their size when listed (in comments, kB of 1,000 bytes).
 */
export const DEFAULT_BUNDLE_CEILING_BYTES = 250_000;

export const BUNDLE_CEILINGS: Readonly<Record<string, number>> = {
  // DynamoDB only; the function's own code is what passes 250 kB.
  SettingsOverview: 274_000, // 265.8 kB (the path to a first post: the media library's one-item Query; the sessions card)
  // The authorization server's wiring, with the per-address fetch limiter (counters table).
  SettingsAssistantConsentAnswer: 285_000, // 275.9 kB
  SettingsAssistantConsent: 286_000, // 277.6 kB
  ListAccounts: 270_000, // 257.7 kB
  // An account's queue (lib/use-cases/queues.ts): DynamoDB only.
  GetQueue: 273_000, // 264.7 kB
  PutQueue: 273_000, // 264.7 kB
  NextQueueSlots: 273_000, // 264.6 kB
  GetPost: 292_000, // 283.7 kB (with the metrics item's reads)
  // Post metrics: the posts table's metrics reads (DynamoDB only).
  GetPostMetrics: 270_000, // 261.9 kB
  GetAnalytics: 272_000, // 263.9 kB
  // DynamoDB, and the media bucket through signed requests (lib/store/s3-signed-requests.ts, no S3 client).
  SettingsMedia: 287_000, // 267.9 kB with the library's checks (image sizes, inspectStoredFile), before the other branches' growth
  // The same, and the storage quota's transactions (TransactWrite on the profile).
  SettingsMediaUpload: 284_500, // 276.2 kB
  SettingsMediaRegister: 274_000, // 265.2 kB (and CopyObject)
  SettingsMediaDelete: 315_000, // 305.6 kB (the API's media use case: the post store's list, for media_in_use)
  SettingsMediaAltText: 288_000, // 279.5 kB
  SettingsMediaImport: 316_000, // 306.5 kB (with the SQS client, to queue the import)
  // DynamoDB only; the workspace cap's condition took it 8 bytes past 250 kB.
  SettingsRenameWorkspace: 258_000, // 250.9 kB
  // The session's sliding idle end put these just over.
  SettingsWorkspaces: 258_000, // 250.5 kB
  SettingsCreateWorkspace: 258_000, // 250.5 kB
  // The DynamoDB client's own socket limit (lib/store/dynamo-client.ts) put it 195 bytes over.
  SettingsDisconnectAccountConfirm: 258_000, // 250.2 kB
  SettingsDisconnectAccount: 260_000, // 252.8 kB
  // DynamoDB and openid-client (oauth4webapi, 20 kB).
  SettingsSignIn: 278_000, // 269.7 kB (sign-in also counts requests per address)
  SettingsAuthCallback: 272_000, // 264.4 kB
  SettingsSignOut: 280_000, // 271.1 kB
  // A second and third SDK client (SQS, Scheduler, KMS, Secrets Manager: 14-28 kB each).
  Sweeper: 356_000, // 345.7 kB (with the webhook deliveries' sweep, the token-expiry warning's account store, and the media sweep's library store and signed S3 requests)
  SettingsAccounts: 302_000, // 287.8 kB before the queue link (with it about 5 kB more)
  SettingsAccountQueue: 269_000, // 260.8 kB
  SettingsSaveAccountQueue: 269_000, // 261.2 kB
  SettingsPosts: 322_000, // 313.0 kB (with the metrics item's reads)
  // A week of posts (the post store's list) and the person's time zone; saving the zone renders the week again when refused.
  SettingsCalendar: 282_000, // 273.5 kB
  SettingsAnalytics: 281_000, // 272.0 kB
  SettingsPostMetrics: 267_000, // 258.9 kB
  SettingsRefreshPostMetrics: 366_000, // 355.1 kB (RefreshPostMetrics's collector and platform clients)
  SettingsSaveTimeZone: 283_000, // 274.2 kB
  // The person's time zone on every page (lib/domain/local-time.ts, Intl only) took these just over 250 kB.
  SettingsKeys: 260_000, // 251.8 kB
  SettingsCreateKey: 259_000, // 251.1 kB
  SettingsRevokeKeyConfirm: 259_000, // 251.1 kB
  ListPosts: 315_000, // 305.9 kB (with the metrics item's reads)
  SettingsCancelPost: 329_000, // 319.1 kB (gives a queued post's slot back)
  SettingsConnectStart: 330_000, // 316.3 kB
  SettingsConnectXCallback: 330_000, // 316.4 kB
  SettingsConnectLinkedinCallback: 330_000, // 316.4 kB
  PlatformDeletionWorker: 362_000, // 351.5 kB
  // Post metrics: the accounts' tokens (KMS) and both platforms' metrics reads, like the deletion worker.
  MetricsCollector: 359_000, // 348.8 kB (the daily read of X subscriptions)
  RefreshPostMetrics: 379_000, // 367.8 kB (and the API pipeline)
  DeletePost: 340_000, // 325.3 kB
  PublishWorker: 459_000, // 445.1 kB (threads and first comments; X long posts: twitter-text and the target rules)
  CreatePosts: 424_000, // 411.8 kB (twitter-text: 27 kB; queue slots; LinkedIn hashtags and mentions)
  // The post lifecycle: as CreatePosts (the same target rules, SQS and Scheduler), and PreviewPosts without the writes and the clients.
  UpdatePost: 418_000, // 405.9 kB (a create's group dispatch: lib/dispatch/publish-dispatcher.ts; queue slots)
  PublishDraft: 413_000, // 400.7 kB (queue slots)
  RetryPost: 409_000, // 396.8 kB (gives a queue slot back)
  PreviewPosts: 337_000, // 326.7 kB (the native formats' rules, lib/domain/format-rules.ts: ~10 kB; queue slots)
  // Send now and Retry: the publish and retry use cases with the dispatcher (SQS, Scheduler) and a create's target rules.
  SettingsSendPost: 397_000, // 385.7 kB (the same)
  SettingsRetryPost: 395_000, // 382.8 kB
  // Webhooks: DynamoDB only (the endpoint reads and writes), the router with SQS, and the functions
  // with a second or third client (KMS to encrypt or decrypt secrets, SQS, Secrets Manager). The
  // endpoint use case keeps the three POSTs' Idempotency-Key (idempotent-request.ts): +4.8 kB to
  // every function that builds it, +6.4-7.5 kB to the three POSTs, which also complete the record.
  WebhookRouter: 292_000, // 283.8 kB (a batch's events and deliveries written in transactions; one store per webhook record kind)
  GetWebhookEndpoint: 288_000, // 279.5 kB
  // Media through the API (functions/media/): the media library's records and checks; the bucket
  // through signed requests (presigned PUT, HEAD, ranged GET, CopyObject, DELETE).
  CreateMedia: 337_000, // 327.1 kB (with the SQS client, for imports)
  CompleteMedia: 310_000, // 300.4 kB
  ListMedia: 315_000, // 305.0 kB (the cursor secret)
  GetMedia: 293_000, // 284.0 kB
  UpdateMedia: 293_000, // 284.1 kB
  // The import worker: the library's records and checks, signed S3 requests with the streamed write, the guarded fetch.
  MediaImportWorker: 297_000, // 287.8 kB
  DeleteMedia: 325_000, // 315.4 kB (the post store's list, for media_in_use)
  DeleteWebhookEndpoint: 288_000, // 279.5 kB
  UpdateWebhookEndpoint: 303_000, // 293.9 kB
  ListWebhookEndpoints: 309_000, // 300.2 kB (the store's slot Query: one read, then only the free slots written)
  TestWebhookEndpoint: 321_000, // 311.7 kB (the same)
  RotateWebhookSecret: 323_000, // 313.4 kB
  CreateWebhookEndpoint: 338_000, // 327.8 kB (the store's outbox writes)
  WebhookDeliveryWorker: 346_000, // 335.4 kB (batch messages: BatchGetItem, the lanes; writes grouped in transactions)
  // Events read back (GET /events): DynamoDB and the cursor secret (Secrets Manager) for the list.
  ListEvents: 288_000, // 278.8 kB
  GetEvent: 266_000, // 257.7 kB
  // The settings Webhooks page and its actions (the endpoint use case; KMS to encrypt, SQS to send).
  SettingsWebhooks: 293_000, // 284.5 kB
  SettingsWebhookStatus: 276_000, // 268.1 kB
  SettingsDeleteWebhook: 276_000, // 267.9 kB
  SettingsRotateWebhookSecret: 309_000, // 300.3 kB
  SettingsSendWebhook: 312_000, // 303.1 kB
  SettingsCreateWebhook: 333_000, // 322.5 kB (and the URL resolver; the idempotency store for its submission key)
  // The MCP SDK and zod 4 (103 kB), four SDK clients, twitter-text.
  Mcp: 750_000, // 727.7 kB (with update_post, publish_draft, retry_post, get_queue, set_queue, list_events, get_post_metrics, get_analytics, import_media; the egress guard's ranges)
  // The egress guard's address ranges (ipaddr.js, IANA's special-purpose registries: ~13 kB) in
  // every function that checks a customer's URL: the OAuth client metadata fetch, webhook URLs.
  SettingsAssistants: 270_000, // 261.3 kB
  SettingsRevokeAssistant: 266_000, // 257.9 kB
  OAuthAuthorize: 268_000, // 260.1 kB
  OAuthToken: 266_000, // 257.3 kB
};

/** The most a function's minified bundle may weigh before the guard trips. */
export function bundleCeilingBytes(name: string): number {
  return BUNDLE_CEILINGS[name] ?? DEFAULT_BUNDLE_CEILING_BYTES;
}
