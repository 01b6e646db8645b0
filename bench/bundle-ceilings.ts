/**
 * Runaway guards for the function bundles, read by both `test/infra/bundles.test.ts` (which fails a
 * bundle over its ceiling) and `npm run bench` (which prints each bundle against its ceiling).
 *
 * Bundle size is reported, not budgeted: with the AWS SDK bundled (it imports faster than the
 * runtime's copy) the DynamoDB client and the SDK core it needs are ~185 kB of every function, so a
 * size budget would only measure the SDK (docs/performance.md, "Function bundles"). What a caller
 * feels is the import time, and that is the budget (bench/report.ts, importBudgetMs). The ceilings
 * only catch a bundle that suddenly grows: 250 kB by default, and for the functions below, which
 * are over it, a ceiling about 3% above their size when listed (in comments, kB of 1,000 bytes).
 */
export const DEFAULT_BUNDLE_CEILING_BYTES = 250_000;

export const BUNDLE_CEILINGS: Readonly<Record<string, number>> = {
  // DynamoDB only; the function's own code is what passes 250 kB.
  SettingsOverview: 274_000, // 265.8 kB (the path to a first post: the media library's one-item Query; the sessions card)
  // The authorization server's wiring, with the per-address fetch limiter (counters table).
  SettingsAssistantConsentAnswer: 270_000, // 261.7 kB
  SettingsAssistantConsent: 272_000, // 263.4 kB
  ListAccounts: 270_000, // 257.7 kB
  GetPost: 275_000, // 264.7 kB
  // DynamoDB, and the media bucket through signed requests (lib/store/s3-signed-requests.ts, no S3 client).
  SettingsMedia: 276_000, // 267.9 kB (the library's checks with the image sizes, inspectStoredFile)
  // The same, and the storage quota's transactions (TransactWrite on the profile).
  SettingsMediaUpload: 276_000, // 267.4 kB
  SettingsMediaRegister: 274_000, // 265.2 kB (and CopyObject)
  SettingsMediaDelete: 274_000, // 265.2 kB
  // DynamoDB only; the workspace cap's condition took it 8 bytes past 250 kB.
  SettingsRenameWorkspace: 258_000, // 250.9 kB
  // The session's sliding idle end put these just over.
  SettingsWorkspaces: 258_000, // 250.5 kB
  SettingsCreateWorkspace: 258_000, // 250.5 kB
  // The DynamoDB client's own socket limit (lib/store/dynamo-client.ts) put it 195 bytes over.
  SettingsDisconnectAccountConfirm: 258_000, // 250.2 kB
  // DynamoDB and openid-client (oauth4webapi, 20 kB).
  SettingsSignIn: 278_000, // 269.7 kB (sign-in also counts requests per address)
  SettingsAuthCallback: 272_000, // 264.4 kB
  SettingsSignOut: 280_000, // 271.1 kB
  // A second and third SDK client (SQS, Scheduler, KMS, Secrets Manager: 14-28 kB each).
  Sweeper: 315_000, // 305.0 kB (with the webhook deliveries' sweep: the webhooks store and queue)
  SettingsAccounts: 290_000, // 279.7 kB
  SettingsPosts: 295_000, // 285.2 kB
  ListPosts: 300_000, // 286.9 kB
  SettingsCancelPost: 325_000, // 314.6 kB
  SettingsConnectStart: 330_000, // 316.3 kB
  SettingsConnectXCallback: 330_000, // 316.4 kB
  SettingsConnectLinkedinCallback: 330_000, // 316.4 kB
  PlatformDeletionWorker: 349_000, // 338.7 kB
  DeletePost: 340_000, // 325.3 kB
  PublishWorker: 410_000, // 398.2 kB (threads and first comments: publish-thread.ts, first-comment.ts)
  CreatePosts: 405_000, // 388.4 kB (twitter-text: 27 kB)
  // The post lifecycle: as CreatePosts (the same target rules, SQS and Scheduler), and PreviewPosts without the writes and the clients.
  UpdatePost: 407_000, // 395.5 kB (a create's group dispatch: lib/dispatch/publish-dispatcher.ts)
  PublishDraft: 392_000, // 379.9 kB
  RetryPost: 392_000, // 380.1 kB
  PreviewPosts: 326_000, // 316.9 kB (the native formats' rules, lib/domain/format-rules.ts: ~10 kB)
  // Send now and Retry: the publish and retry use cases with the dispatcher (SQS, Scheduler) and a create's target rules.
  SettingsSendPost: 389_000, // 377.5 kB (the same)
  SettingsRetryPost: 389_000, // 377.0 kB
  // Webhooks: DynamoDB only (the endpoint reads and writes), the router with SQS, and the functions
  // with a second or third client (KMS to encrypt or decrypt secrets, SQS, Secrets Manager). The
  // endpoint use case keeps the three POSTs' Idempotency-Key (idempotent-request.ts): +4.8 kB to
  // every function that builds it, +6.4-7.5 kB to the three POSTs, which also complete the record.
  WebhookRouter: 283_000, // 274.3 kB (a batch's events and deliveries written in transactions)
  GetWebhookEndpoint: 288_000, // 279.5 kB
  // Media through the API (functions/media/): the media library's records and checks; the bucket
  // through signed requests (presigned PUT, HEAD, ranged GET, CopyObject, DELETE).
  CreateMedia: 299_000, // 290.3 kB
  CompleteMedia: 300_000, // 290.6 kB
  ListMedia: 315_000, // 305.0 kB (the cursor secret)
  GetMedia: 293_000, // 284.0 kB
  UpdateMedia: 293_000, // 284.1 kB
  DeleteMedia: 314_000, // 303.9 kB (the post store's list, for media_in_use)
  DeleteWebhookEndpoint: 288_000, // 279.5 kB
  UpdateWebhookEndpoint: 289_000, // 280.5 kB
  ListWebhookEndpoints: 309_000, // 300.2 kB (the store's slot Query: one read, then only the free slots written)
  TestWebhookEndpoint: 321_000, // 311.7 kB (the same)
  RotateWebhookSecret: 323_000, // 313.4 kB
  CreateWebhookEndpoint: 324_000, // 314.3 kB (the store's outbox writes)
  WebhookDeliveryWorker: 329_000, // 319.2 kB (batch messages: BatchGetItem, the lanes; writes grouped in transactions)
  // The settings Webhooks page and its actions (the endpoint use case; KMS to encrypt, SQS to send).
  SettingsWebhooks: 284_000, // 275.8 kB
  SettingsWebhookStatus: 276_000, // 268.1 kB
  SettingsDeleteWebhook: 276_000, // 267.9 kB
  SettingsRotateWebhookSecret: 309_000, // 300.3 kB
  SettingsSendWebhook: 312_000, // 303.1 kB
  SettingsCreateWebhook: 318_000, // 309.0 kB (and the URL resolver; the idempotency store for its submission key)
  // The MCP SDK and zod 4 (103 kB), four SDK clients, twitter-text.
  Mcp: 666_000, // 645.7 kB (with update_post, publish_draft, retry_post)
};

/** The most a function's minified bundle may weigh before the guard trips. */
export function bundleCeilingBytes(name: string): number {
  return BUNDLE_CEILINGS[name] ?? DEFAULT_BUNDLE_CEILING_BYTES;
}
