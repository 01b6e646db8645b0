/**
 * What each function of functions/catalogue.ts may touch, read off its code: the ApiStack turns each
 * row into bindings (infra/constructs/bindings.ts: environment variable + grant together), and the
 * template tests check the synthesized policies against this table. A function missing here
 * fails the synthesis, so a new function cannot ship with access nobody decided on.
 *
 * A function gets no variable without the grant behind it: each function's module composes only
 * what it uses (functions/*.ts: the schedule canceller for DELETE, the dispatcher for POST, one
 * set per worker; lib/http/api-pipeline.ts: the rate limiter alone for the 404 fallback) and each
 * adapter reads only the settings of the operations it performs (lib/store/post-create-writes.ts:
 * the counters and idempotency tables at their first use). So a row here is also the whole
 * configuration of its function.
 *
 * Every API route authenticates (directory: API key, user) and counts the request against the
 * rate limits (counters); the 404 fallback authenticates no one and counts the client address.
 */
import {
  ACCOUNT_KEY_PREFIX,
  ALLOWANCE_KEY_PREFIX,
  CONNECT_KEY_PREFIX,
  DIRECTORY_KEY_PREFIXES as KEYS,
  SESSION_KEY_PREFIX,
  WEBHOOK_ENDPOINT_KEY_PREFIX,
} from '../../lib/store/tables.js';
import type { BucketAccess, KeyAccess, SchedulerAction, TableAccess } from '../constructs/bindings.js';
import type { TableName } from './data-stack.js';

export interface FunctionAccess {
  tables: Partial<Record<TableName, TableAccess>>;
  /**
   * For a readWrite table: writes only to items whose partition key starts with one of these
   * (IAM condition dynamodb:LeadingKeys); reads stay unrestricted.
   */
  writableKeyPrefixes?: Partial<Record<TableName, readonly string[]>>;
  /** Queues whose attributes the code reads. */
  readsQueueAttributes?: ReadonlyArray<'publish'>;
  /** Queues the code sends to. */
  sendsTo?: ReadonlyArray<'publish' | 'deletion' | 'webhook' | 'mediaImport'>;
  scheduler?: readonly SchedulerAction[];
  /** The secret that signs list cursors. */
  cursorSigningKey?: boolean;
  /** The secret with the platforms' OAuth client ids and secrets (token refresh, code exchange). */
  platformCredentials?: boolean;
  /**
   * The platforms' OAuth client ids alone, as plain values (every authorize URL shows them): for a
   * function that only builds authorize URLs and must not read the client secrets.
   */
  platformClientIds?: boolean;
  /** The KMS key of the platform tokens. */
  tokenKey?: KeyAccess;
  /**
   * That key for webhook endpoints' signing secrets only (their encryption context starts with
   * WEBHOOK_SECRET_CONTEXT_PREFIX): a function that handles secrets cannot decrypt a platform token.
   */
  tokenKeyForWebhookSecretsOnly?: boolean;
  /** Media objects: read (to upload them to a platform, to check an upload), presign uploads, delete. */
  mediaObjects?: BucketAccess | readonly BucketAccess[];
  /** Knows the hosted media URL prefix (to tell a library URL from an external one). */
  mediaBaseUrl?: boolean;
  /** Settings pages: the public origin (cookies' Secure flag, the CSRF origin check, redirect URIs). */
  settingsBaseUrl?: boolean;
  /** Settings sign-in: the OpenID issuer (Cognito user pool) and the app client id. */
  oidcClient?: boolean;
  /** Settings sign-out: the Cognito domain's /logout endpoint and the app client id. */
  oidcLogout?: boolean;
  /** The free plan's monthly allowance, given at a user's first sign-in. */
  freePlan?: boolean;
  /** Knows the service's public origin (the assistant server's resource, issuer and metadata URLs). */
  serviceOrigin?: boolean;
}

const REQUEST_PATH: FunctionAccess['tables'] = { directory: 'read', counters: 'readWrite' };

export const FUNCTION_ACCESS: Readonly<Record<string, FunctionAccess>> = {
  // Resolves accounts and media, spends the allowance (counters), writes posts, remembers the
  // response (idempotency), then makes each post due: SQS when soon, a one-time schedule when later.
  // With `queue: true` it takes each post's queue slot (directory, the queue's items only).
  CreatePosts: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'readWrite', idempotency: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.queue] },
    sendsTo: ['publish'],
    scheduler: ['create'],
    mediaBaseUrl: true,
  },
  ListPosts: { tables: { ...REQUEST_PATH, posts: 'read' }, cursorSigningKey: true },
  GetPost: { tables: { ...REQUEST_PATH, posts: 'read' } },
  // Removes the post from every index, gives a cancelled post's allowance unit back, deletes its
  // schedule, and queues deletion of the live post when asked; a queued post gives its slot back
  // (directory, the queue's items only).
  DeletePost: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.queue] },
    sendsTo: ['deletion'],
    scheduler: ['delete'],
  },
  ListAccounts: { tables: { ...REQUEST_PATH } },
  // An account's queue (lib/use-cases/queues.ts): reads the account; PUT writes the queue's item only.
  GetQueue: { tables: { ...REQUEST_PATH } },
  PutQueue: { tables: { ...REQUEST_PATH, directory: 'readWrite' }, writableKeyPrefixes: { directory: [KEYS.queue] } },
  NextQueueSlots: { tables: { ...REQUEST_PATH } },
  // Post metrics: reads a post's metrics and history, or the user's published posts (byUserStatus).
  GetPostMetrics: { tables: { ...REQUEST_PATH, posts: 'read' } },
  GetAnalytics: { tables: { ...REQUEST_PATH, posts: 'read' } },
  // Claims the post and records its figures (posts), reads the account's tokens and refreshes them
  // like the publish worker (directory: the account's own items only), asks the platform.
  RefreshPostMetrics: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'readWrite' },
    writableKeyPrefixes: { directory: [ACCOUNT_KEY_PREFIX] },
    platformCredentials: true,
    tokenKey: 'encryptDecrypt',
  },
  // The post lifecycle (lib/use-cases/update-post.ts, publish-draft.ts, retry-post.ts): reads the
  // account and media (directory), writes the post with its idempotency record (and, to publish or
  // retry, the allowance counter: REQUEST_PATH's counters), then makes it due. A PATCH that moves
  // the time deletes the old schedule before it creates the new one; only it may change media, so
  // only it knows the media URL prefix.
  // With `queue: true` (PATCH, publish) a post takes a queue slot, and a new time (PATCH, retry)
  // gives one back: the directory's queue items only.
  UpdatePost: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'readWrite', idempotency: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.queue] },
    sendsTo: ['publish'],
    scheduler: ['create', 'delete'],
    mediaBaseUrl: true,
  },
  PublishDraft: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'readWrite', idempotency: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.queue] },
    sendsTo: ['publish'],
    scheduler: ['create'],
  },
  RetryPost: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'readWrite', idempotency: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.queue] },
    sendsTo: ['publish'],
    scheduler: ['create'],
  },
  // Writes nothing: reads the accounts, workspaces and media a create would check.
  PreviewPosts: { tables: { ...REQUEST_PATH }, mediaBaseUrl: true },
  // Webhook endpoints (lib/use-cases/webhooks/endpoints.ts): the endpoint items under the caller's
  // key and the endpoint counter (webhooks). A new signing secret is encrypted (token key); the
  // test action writes an event and a delivery and queues it. The three POSTs keep their
  // Idempotency-Key (idempotency); a replayed create or rotation decrypts the secret its record
  // keeps encrypted, so those two also decrypt.
  CreateWebhookEndpoint: { tables: { ...REQUEST_PATH, webhooks: 'readWrite', idempotency: 'readWrite' }, tokenKey: 'encryptDecrypt', tokenKeyForWebhookSecretsOnly: true },
  ListWebhookEndpoints: { tables: { ...REQUEST_PATH, webhooks: 'read' }, cursorSigningKey: true },
  GetWebhookEndpoint: { tables: { ...REQUEST_PATH, webhooks: 'read' } },
  UpdateWebhookEndpoint: { tables: { ...REQUEST_PATH, webhooks: 'readWrite' } },
  DeleteWebhookEndpoint: { tables: { ...REQUEST_PATH, webhooks: 'readWrite' } },
  RotateWebhookSecret: { tables: { ...REQUEST_PATH, webhooks: 'readWrite', idempotency: 'readWrite' }, tokenKey: 'encryptDecrypt', tokenKeyForWebhookSecretsOnly: true },
  TestWebhookEndpoint: { tables: { ...REQUEST_PATH, webhooks: 'readWrite', idempotency: 'readWrite' }, sendsTo: ['webhook'] },
  // Events (lib/use-cases/events.ts): the event items of the webhooks table and their byUserEvents index.
  ListEvents: { tables: { ...REQUEST_PATH, webhooks: 'read' }, cursorSigningKey: true },
  GetEvent: { tables: { ...REQUEST_PATH, webhooks: 'read' } },
  // Media through the API (lib/use-cases/media-files.ts), the settings library's records: the
  // create writes a pending item (no bytes counted) with its idempotency record and signs a PUT
  // that can only land under incoming/; the complete HEADs and reads the upload, deletes a refused
  // one, moves a checked one out of incoming/ and counts its bytes on the profile (the quota); the
  // delete reads the caller's draft and scheduled posts (media_in_use) and gives the bytes back.
  CreateMedia: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', idempotency: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.media] },
    mediaObjects: 'presignUpload',
    sendsTo: ['mediaImport'],
  },
  CompleteMedia: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', idempotency: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.media, KEYS.user] },
    mediaObjects: ['read', 'delete', 'existence', 'moveIn'],
    mediaBaseUrl: true,
  },
  ListMedia: { tables: { ...REQUEST_PATH }, cursorSigningKey: true },
  GetMedia: { tables: { ...REQUEST_PATH } },
  UpdateMedia: { tables: { ...REQUEST_PATH, directory: 'readWrite' }, writableKeyPrefixes: { directory: [KEYS.media] } },
  DeleteMedia: {
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'read' },
    writableKeyPrefixes: { directory: [KEYS.media, KEYS.user] },
    mediaObjects: 'delete',
  },
  // Authenticates no one (anonymousApiHandler): only the address bucket of the rate limiter.
  RouteNotFound: { tables: { counters: 'readWrite' } },
  // The assistant server (functions/catalogue.ts ASSISTANT_ROUTES). The MCP function checks the
  // bearer token (oauth: token and grant, read only), counts the grant's requests (counters), reads
  // the user (directory), and runs the tools: the union of what CreatePosts, ListPosts, GetPost,
  // DeletePost and ListAccounts may do.
  Mcp: {
    // webhooks: the events list_events reads.
    tables: { ...REQUEST_PATH, directory: 'readWrite', posts: 'readWrite', idempotency: 'readWrite', oauth: 'read', webhooks: 'read' },
    // import_media writes the processing media item and queues its import.
    writableKeyPrefixes: { directory: [KEYS.queue, KEYS.media] },
    sendsTo: ['publish', 'deletion', 'mediaImport'],
    scheduler: ['create', 'delete'],
    cursorSigningKey: true,
    mediaBaseUrl: true,
    serviceOrigin: true,
  },
  // The API reference (/docs): files built at synth and copied beside the bundle, no data at all.
  ApiReference: { tables: {} },
  // Static documents built from the origin alone.
  ProtectedResourceMetadata: { tables: {}, serviceOrigin: true },
  AuthorizationServerMetadata: { tables: {}, serviceOrigin: true },
  // Stores a registered client; registrations are counted per client address.
  OAuthRegister: { tables: { oauth: 'readWrite', counters: 'readWrite' } },
  // Reads a registered client, stores the request waiting for consent.
  // Counts each request (and each metadata-document fetch) per client address before it stores anything.
  OAuthAuthorize: { tables: { oauth: 'readWrite', counters: 'readWrite' }, serviceOrigin: true },
  // Redeems codes and rotates refresh tokens (oauth); token requests are counted per client address.
  OAuthToken: { tables: { oauth: 'readWrite', counters: 'readWrite' }, serviceOrigin: true },
  // Claims and records the post, reads the account and its tokens, refreshes them (writes the new
  // ones, marks tokenHealth), uploads media from the bucket, re-delays transient failures on the
  // publish queue, and queues deletion when the post was deleted while it was being sent; gives
  // the allowance unit of a post deleted before it went out back (counters).
  // Directory writes: only the account's own items (tokens, tokenHealth), never keys or users;
  // counter writes: only allowance counters, never rate limits.
  PublishWorker: {
    tables: { directory: 'readWrite', posts: 'readWrite', counters: 'readWrite' },
    writableKeyPrefixes: { directory: [ACCOUNT_KEY_PREFIX], counters: [ALLOWANCE_KEY_PREFIX] },
    sendsTo: ['publish', 'deletion'],
    platformCredentials: true,
    tokenKey: 'encryptDecrypt',
    mediaObjects: 'read',
  },
  // Reads the post and the account's tokens (refreshing them like the publish worker), deletes the
  // live post, records the outcome.
  PlatformDeletionWorker: {
    tables: { directory: 'readWrite', posts: 'readWrite' },
    writableKeyPrefixes: { directory: [ACCOUNT_KEY_PREFIX] },
    platformCredentials: true,
    tokenKey: 'encryptDecrypt',
  },
  // Fetches an import's URL into the bucket (a put under incoming/, read and checked, copied to its
  // served key), and settles the MEDIA item (the owner's byte count on the USER item with it).
  MediaImportWorker: {
    tables: { directory: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.media, KEYS.user] },
    mediaObjects: ['read', 'delete', 'existence', 'moveIn'],
    mediaBaseUrl: true,
  },
  // Reads the user's endpoints, writes events and deliveries, queues the deliveries. Its stream
  // reads are granted by its event source mappings.
  WebhookRouter: { tables: { webhooks: 'readWrite' }, sendsTo: ['webhook'] },
  // Reads the delivery, event and endpoint, decrypts the signing secrets, takes and frees the
  // endpoint's in-flight slot, records the attempt, disables an endpoint (410, 3 days of failures),
  // queues the next attempt.
  WebhookDeliveryWorker: { tables: { webhooks: 'readWrite' }, sendsTo: ['webhook'], tokenKey: 'decrypt', tokenKeyForWebhookSecretsOnly: true },
  // Finds scheduled posts that are due (byDue index) and whose message never arrived, marks and
  // sends them, and queues again the platform deletions still pending there whose message was
  // lost; reads the publish queue's creation time to notice a queue created anew. Reads the pending
  // webhook deliveries (byPending index), stamps the ones it re-sends (delivery items only, under
  // ENDPOINT#) and queues their attempts again.
  // Post metrics: claims the due posts and records their figures (posts), reads the accounts and
  // their tokens, refreshing them like the publish worker (directory: the account's own items only).
  // Also reads X accounts' subscription daily (byTokenExpiry) and writes it on the account item.
  MetricsCollector: {
    tables: { directory: 'readWrite', posts: 'readWrite' },
    writableKeyPrefixes: { directory: [ACCOUNT_KEY_PREFIX] },
    platformCredentials: true,
    tokenKey: 'encryptDecrypt',
  },
  // Marks accounts `expiring` (byTokenExpiry index; account items only, under ACCOUNT#).
  // Also fails abandoned API uploads (their MEDIA items, and deletes what bytes arrived) and
  // queues imports nobody holds.
  Sweeper: {
    tables: { posts: 'readWrite', webhooks: 'readWrite', directory: 'readWrite' },
    writableKeyPrefixes: { webhooks: [WEBHOOK_ENDPOINT_KEY_PREFIX], directory: [ACCOUNT_KEY_PREFIX, KEYS.media] },
    sendsTo: ['publish', 'deletion', 'webhook', 'mediaImport'],
    mediaObjects: 'delete',
    readsQueueAttributes: ['publish'],
  },
};

/**
 * Settings pages (lib/web): every signed-in page reads its session (sessions) and the user
 * (directory); each row adds what its use case touches.
 */
// Every signed-in page slides its session's idle end (lib/domain/session-rules.ts): an update of
// the session items only (SESSION#...), never the sign-ins or connects beside them.
/** A connect writes its attempt (CONNECT#) beside the session it refreshes (SESSION#). */
const CONNECTING = [SESSION_KEY_PREFIX, CONNECT_KEY_PREFIX];

const SIGNED_IN: FunctionAccess = {
  tables: { sessions: 'readWrite', directory: 'read' },
  writableKeyPrefixes: { sessions: [SESSION_KEY_PREFIX] },
  settingsBaseUrl: true,
};

export const SETTINGS_FUNCTION_ACCESS: Readonly<Record<string, FunctionAccess>> = {
  // Counts keys and accounts (byOwner), posts (byUser, capped) and reads the allowance counter.
  SettingsOverview: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, posts: 'read', counters: 'read' } },
  // Stores the sign-in transaction and sends the browser to the provider (discovery).
  SettingsSignIn: { tables: { sessions: 'readWrite', counters: 'readWrite' }, settingsBaseUrl: true, oidcClient: true },
  // Takes the transaction, exchanges the code, finds or creates the user (identity, profile,
  // first workspace in one transaction), writes the session.
  SettingsAuthCallback: {
    tables: { sessions: 'readWrite', directory: 'readWrite' },
    writableKeyPrefixes: { directory: [KEYS.identity, KEYS.user, KEYS.workspace] },
    settingsBaseUrl: true,
    oidcClient: true,
    freePlan: true,
  },
  // Deletes the session, then sends the browser through Cognito's /logout (its managed-login session ends too).
  SettingsSignOut: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, sessions: 'readWrite' }, oidcLogout: true },
  // Serves web/static, copied beside the bundle: no data at all.
  SettingsStatic: { tables: {} },
  // Lists keys (byOwner) and their last use (counters).
  SettingsKeys: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, counters: 'read' } },
  // The key, and the count of active keys on the user's profile (the cap, in the same transaction).
  SettingsCreateKey: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, directory: 'readWrite' }, writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.apiKey, KEYS.user] } },
  SettingsRevokeKeyConfirm: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, counters: 'read' } },
  SettingsRevokeKey: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, directory: 'readWrite' }, writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.apiKey, KEYS.user] } },
  // Lists workspaces (owner's partition) and accounts (byOwner).
  SettingsWorkspaces: { ...SIGNED_IN },
  // The workspace's two items and the user's list of workspaces (the cap).
  SettingsCreateWorkspace: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, directory: 'readWrite' }, writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.user, KEYS.workspace] } },
  SettingsRenameWorkspace: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, directory: 'readWrite' }, writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.user, KEYS.workspace] } },
  SettingsDisconnectAccountConfirm: { ...SIGNED_IN },
  // Deletes the account and its CREDENTIALS item (tokens) in one transaction.
  SettingsDisconnectAccount: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, directory: 'readWrite' },
    writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.account, KEYS.connection] },
  },
  // The API's list use case: posts (byUser / byUserStatus) and the cursor signing key.
  SettingsPosts: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, posts: 'read' }, cursorSigningKey: true },
  // The API's GET /analytics and GET /posts/{id}/metrics use cases: the user's published posts (posts), the accounts' names (directory).
  SettingsAnalytics: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, posts: 'read' } },
  SettingsPostMetrics: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, posts: 'read' } },
  // The API's RefreshPostMetrics: the account's tokens (refreshed like the publish worker's), the post's metrics.
  SettingsRefreshPostMetrics: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, directory: 'readWrite', posts: 'readWrite' },
    writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [ACCOUNT_KEY_PREFIX] },
    platformCredentials: true,
    tokenKey: 'encryptDecrypt',
  },
  // The API's delete use case, as DeletePost: the allowance refund (counters), schedule deletion (and the deletion queue it is built with).
  SettingsCancelPost: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, directory: 'readWrite', posts: 'readWrite', counters: 'readWrite' },
    writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.queue] },
    sendsTo: ['deletion'],
    scheduler: ['delete'],
  },
  // The API's publish and retry use cases, as PublishDraft and RetryPost without Idempotency-Key
  // (no idempotency table): the account and media (directory), the post and the allowance unit
  // (counters), then the publish queue or a schedule.
  SettingsSendPost: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, posts: 'readWrite', counters: 'readWrite' }, sendsTo: ['publish'], scheduler: ['create'] },
  // A retry gives back the queue slot the failed post held (the directory's queue items only).
  SettingsRetryPost: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, directory: 'readWrite', posts: 'readWrite', counters: 'readWrite' },
    writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.queue] },
    sendsTo: ['publish'],
    scheduler: ['create'],
  },
  // A week of posts (byUserStatus, bounded) and their accounts' names (directory).
  SettingsCalendar: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, posts: 'read' } },
  // The person's time zone: an update of their own user item (USER#) only.
  SettingsSaveTimeZone: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, directory: 'readWrite' }, writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.user] } },
  // The assistant server's consent: reads the request (and a registered client), binds it to the
  // person, answers it with a code (oauth); the issuer in the answer is the service origin.
  SettingsAssistantConsent: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, oauth: 'readWrite' }, serviceOrigin: true },
  SettingsAssistantConsentAnswer: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, oauth: 'readWrite' }, serviceOrigin: true },
  // Lists the person's grants (byUser) and revokes one of them.
  SettingsAssistants: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, oauth: 'read' } },
  SettingsRevokeAssistant: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, oauth: 'readWrite' } },
  // Lists workspaces and accounts (byOwner).
  SettingsAccounts: SIGNED_IN,
  // Reads the account (and its queue); the save writes the queue item and nothing else of the directory.
  SettingsAccountQueue: SIGNED_IN,
  SettingsSaveAccountQueue: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, directory: 'readWrite' }, writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.queue] } },
  // Checks the workspace or account, stores the connect attempt (sessions) and builds the
  // platform's authorize URL with the app's client id: the ids alone, never the client secrets.
  SettingsConnectStart: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, sessions: 'readWrite' }, writableKeyPrefixes: { sessions: CONNECTING }, platformClientIds: true },
  // Takes the attempt, exchanges the code (client secret), encrypts the tokens for the account and
  // writes account, credentials and connection guard.
  SettingsConnectXCallback: {
    ...SIGNED_IN,
    tables: { sessions: 'readWrite', directory: 'readWrite' },
    writableKeyPrefixes: { sessions: CONNECTING, directory: [KEYS.account, KEYS.connection] },
    platformCredentials: true,
    tokenKey: 'encrypt',
  },
  SettingsConnectLinkedinCallback: {
    ...SIGNED_IN,
    tables: { sessions: 'readWrite', directory: 'readWrite' },
    writableKeyPrefixes: { sessions: CONNECTING, directory: [KEYS.account, KEYS.connection] },
    platformCredentials: true,
    tokenKey: 'encrypt',
  },
  // Lists the library (byOwner); thumbnails come from the media URL's origin.
  SettingsMedia: { ...SIGNED_IN, mediaBaseUrl: true },
  // Signs a POST policy for one new object under incoming/ (PutObject there is what S3 checks
  // against the signer); reads what the user stores (the quota) off the profile.
  SettingsMediaUpload: { ...SIGNED_IN, mediaObjects: 'presignUpload' },
  SettingsMediaUploaded: SIGNED_IN,
  // HEADs and reads the upload (type, MP4 duration), deletes a refused one, moves a checked one
  // out of incoming/ (copy, delete), writes the item with its bytes added to the profile's total
  // (the quota); an upload that never arrived must read as missing (404), not refused (403): `existence`.
  SettingsMediaRegister: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, directory: 'readWrite' },
    writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.media, KEYS.user] },
    mediaObjects: ['read', 'delete', 'existence', 'moveIn'],
    mediaBaseUrl: true,
  },
  // Deletes the object and the item, its bytes taken off the profile's total.
  SettingsMediaDelete: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, directory: 'readWrite', posts: 'read' },
    writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.media, KEYS.user] },
    mediaObjects: 'delete',
  },
  // As UpdateMedia and CreateMedia's import (the same use case): the item's alt text; a processing item and its import queued,
  // under the form's idempotency key (a form sent twice starts one import).
  SettingsMediaAltText: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, directory: 'readWrite' }, writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.media] } },
  SettingsMediaImport: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, directory: 'readWrite', idempotency: 'readWrite' },
    writableKeyPrefixes: { ...SIGNED_IN.writableKeyPrefixes, directory: [KEYS.media] },
    sendsTo: ['mediaImport'],
  },
  // Webhook endpoints (lib/use-cases/webhooks/endpoints.ts), as the API's rows: the page reads the
  // endpoints and deliveries; adding and rotating encrypt a new secret; test and resend write the
  // event and delivery and queue it; status and delete write the endpoint.
  SettingsWebhooks: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, webhooks: 'read' } },
  // The add form's submission key is the create's Idempotency-Key (idempotency; a replay decrypts the secret).
  SettingsCreateWebhook: {
    ...SIGNED_IN,
    tables: { ...SIGNED_IN.tables, webhooks: 'readWrite', idempotency: 'readWrite' },
    tokenKey: 'encryptDecrypt',
    tokenKeyForWebhookSecretsOnly: true,
  },
  SettingsRotateWebhookSecret: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, webhooks: 'readWrite' }, tokenKey: 'encrypt', tokenKeyForWebhookSecretsOnly: true },
  SettingsSendWebhook: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, webhooks: 'readWrite' }, sendsTo: ['webhook'] },
  SettingsWebhookStatus: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, webhooks: 'readWrite' } },
  SettingsDeleteWebhook: { ...SIGNED_IN, tables: { ...SIGNED_IN.tables, webhooks: 'readWrite' } },
};

export function accessOf(name: string): FunctionAccess {
  const access = FUNCTION_ACCESS[name] ?? SETTINGS_FUNCTION_ACCESS[name];
  if (!access) throw new Error(`infra/stacks/function-access.ts has no row for function ${name}`);
  return access;
}
