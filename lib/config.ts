/**
 * Configuration is read from the environment once per cold start. A missing variable is a
 * deployment mistake, so it fails loudly at the first read rather than as a confusing
 * `undefined` deep inside a request.
 */
export class MissingConfigError extends Error {
  readonly code = 'missing_config';
  constructor(readonly variable: string) {
    super(`Environment variable ${variable} is required but not set`);
    this.name = 'MissingConfigError';
  }
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new MissingConfigError(name);
  return value;
}

export function optionalEnv(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

export function numberEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`Environment variable ${name} must be a number, got "${raw}"`);
  return value;
}

/** Names of every environment variable the code reads: one list shared by the CDK app, the local stack and tests. */
export const ENV = {
  directoryTable: 'DIRECTORY_TABLE',
  postsTable: 'POSTS_TABLE',
  idempotencyTable: 'IDEMPOTENCY_TABLE',
  countersTable: 'COUNTERS_TABLE',
  sessionsTable: 'SESSIONS_TABLE',
  oauthTable: 'OAUTH_TABLE',
  webhooksTable: 'WEBHOOKS_TABLE',
  /** The webhook delivery queue (router, test action, resend, and the delivery worker's retries). */
  webhookQueueUrl: 'WEBHOOK_QUEUE_URL',
  /** Local stack and tests only: webhook endpoints may be http://127.0.0.1. Never set on AWS. */
  webhookAllowLoopback: 'WEBHOOK_ALLOW_LOOPBACK',
  /** The media import queue (POST /media with sourceUrl, and the sweeper's requeues). */
  mediaImportQueueUrl: 'MEDIA_IMPORT_QUEUE_URL',
  /** Local stack and tests only: a media import may fetch http://127.0.0.1. Never set on AWS. */
  mediaImportAllowLoopback: 'MEDIA_IMPORT_ALLOW_LOOPBACK',
  /** Tests only: seconds an import's fetch may take (60 by default, as the contract says). */
  mediaImportTimeoutSeconds: 'MEDIA_IMPORT_TIMEOUT_SECONDS',
  /** Tests only: seconds after which an X account's subscription is read again (a day by default, as the contract says). */
  xSubscriptionCheckSeconds: 'X_SUBSCRIPTION_CHECK_SECONDS',
  /** Tests only: seconds a webhook attempt waits for its answer (10 by default, as the contract says). */
  webhookDeliveryTimeoutSeconds: 'WEBHOOK_DELIVERY_TIMEOUT_SECONDS',
  /**
   * The assistant server: the service's public origin (scheme://host[:port], no path). The MCP
   * resource (<origin>/mcp), the OAuth issuer and every metadata URL derive from it.
   */
  serviceOrigin: 'SERVICE_ORIGIN',
  /** Local stack and tests only: accept http://127.0.0.1 client ids and redirect URIs of assistants. Never set on AWS. */
  oauthAllowLoopbackClients: 'OAUTH_ALLOW_LOOPBACK_CLIENTS',
  /** Tests only: access token lifetime in seconds (default 3600). */
  oauthAccessTokenSeconds: 'OAUTH_ACCESS_TOKEN_SECONDS',
  publishQueueUrl: 'PUBLISH_QUEUE_URL',
  publishQueueArn: 'PUBLISH_QUEUE_ARN',
  deletionQueueUrl: 'DELETION_QUEUE_URL',
  schedulerGroup: 'SCHEDULER_GROUP',
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
  schedulerDlqArn: 'SCHEDULER_DLQ_ARN',
  mediaBucket: 'MEDIA_BUCKET',
  mediaBaseUrl: 'MEDIA_BASE_URL',
  mediaForcePathStyle: 'MEDIA_FORCE_PATH_STYLE',
  /** Local only: where browsers post uploads (the S3 POST stand-in, local/s3-browser-upload.ts); unset on AWS. */
  mediaUploadUrl: 'MEDIA_UPLOAD_URL',
  /**
   * AWS: the role upload URLs are signed as, each time for one customer's upload prefix only
   * (lib/store/upload-signer.ts). Unset locally, where the stand-in checks signatures made with
   * the local credentials.
   */
  mediaUploadSignerRoleArn: 'MEDIA_UPLOAD_SIGNER_ROLE_ARN',
  /** Tests only: where STS answers (default: STS's regional endpoint). */
  stsEndpoint: 'STS_ENDPOINT',
  /** Local stack: the signing key itself. AWS: unset, and CURSOR_SIGNING_KEY_SECRET_ID names the secret. */
  cursorSigningKey: 'CURSOR_SIGNING_KEY',
  cursorSigningKeySecretId: 'CURSOR_SIGNING_KEY_SECRET_ID',
  xApiBaseUrl: 'X_API_BASE_URL',
  linkedinApiBaseUrl: 'LINKEDIN_API_BASE_URL',
  platformCredentialsSecretId: 'PLATFORM_CREDENTIALS_SECRET_ID',
  tokenKmsKeyId: 'TOKEN_KMS_KEY_ID',
  localTokenKeyFile: 'LOCAL_TOKEN_KEY_FILE',
  /** Local-only overrides (bench): never set on AWS. */
  rateLimitPerMinute: 'RATE_LIMIT_PER_MINUTE',
  rateLimitPerDay: 'RATE_LIMIT_PER_DAY',
  /** Local-only (bench): `1` counts SDK requests and DynamoDB capacity (lib/store/sdk-metering.ts). Never set on AWS. */
  sdkMetering: 'SDK_METERING',
  /** Seconds a verified API key (and its user) is kept in memory; at most 60 (api-v1.md: revocation within a minute). */
  apiKeyCacheSeconds: 'API_KEY_CACHE_SECONDS',
  /** Platform adapters: API version header of LinkedIn (YYYYMM) and its OAuth host when not the real one. */
  linkedinApiVersion: 'LINKEDIN_API_VERSION',
  linkedinOauthBaseUrl: 'LINKEDIN_OAUTH_BASE_URL',
  /** Where people are sent to grant X access (x.com's authorize page; the sandbox's locally). */
  xAuthorizeUrl: 'X_AUTHORIZE_URL',
  /** Local stack: platform OAuth client credentials. AWS: unset, PLATFORM_CREDENTIALS_SECRET_ID holds them as JSON. */
  xClientId: 'X_CLIENT_ID',
  xClientSecret: 'X_CLIENT_SECRET',
  linkedinClientId: 'LINKEDIN_CLIENT_ID',
  linkedinClientSecret: 'LINKEDIN_CLIENT_SECRET',
  /** Local alternative to the secret: the same JSON ({"x": {clientId, clientSecret}, "linkedin": {...}}) inline. */
  platformCredentials: 'PLATFORM_CREDENTIALS',
  /** Sweeper: how late (seconds) a scheduled post with nothing in flight may be before its message counts as lost. */
  sweeperGraceSeconds: 'SWEEPER_GRACE_SECONDS',
  /** Publish worker: wait (seconds) after a create with an unknown outcome was sent before the post is looked up (25 by default; tests shorten it). */
  publishAmbiguousRecheckSeconds: 'PUBLISH_AMBIGUOUS_RECHECK_SECONDS',
  /** Settings web app: the public origin its pages and OIDC redirect URI are served from (https on AWS). */
  settingsBaseUrl: 'SETTINGS_BASE_URL',
  /** Settings sign-in: the OpenID Connect issuer (discovered) and this app's client id (public client, PKCE). */
  oidcIssuerUrl: 'OIDC_ISSUER_URL',
  oidcClientId: 'OIDC_CLIENT_ID',
  /**
   * Settings sign-out: the provider's logout endpoint, with Cognito's contract (`client_id` and a
   * registered `logout_uri`): the Cognito domain's /logout on AWS, the local provider's /logout here.
   */
  oidcLogoutUrl: 'OIDC_LOGOUT_URL',
  /** Plan allowance (posts per month) of a user created by their first sign-in: the free plan. */
  freePlanMonthlyPosts: 'FREE_PLAN_MONTHLY_POSTS',
  /** Publish worker: seconds a claim holds a post before another worker may take it over (15 by default; tests shorten it). */
  publishLeaseSeconds: 'PUBLISH_LEASE_SECONDS',
} as const;
