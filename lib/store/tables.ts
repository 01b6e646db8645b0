/**
 * The DynamoDB tables, declared once: the CDK app (infra/) and the local stack (local/)
 * both create tables from these definitions, so the indexes the code queries are exactly the
 * indexes that exist. Every access pattern is a GetItem, a BatchGetItem or a Query on a key or
 * one of these indexes; nothing scans.
 *
 * directory   pk                 sk                    what
 *             USER#<userId>      PROFILE               user (email, active, allowance, workspaceIds)
 *             USER#<userId>      WORKSPACE#<wsId>      workspace
 *             WORKSPACE#<wsId>   WORKSPACE             the same workspace, found by id alone (owner lookup)
 *             ACCOUNT#<acctId>   ACCOUNT               account (gsi1: USER#<userId> / <wsId>#<acctId>)
 *             ACCOUNT#<acctId>   CREDENTIALS           encrypted platform tokens (no index keys)
 *             KEY#<keyId>        KEY                   API key: secret hash, scopes, revokedAt
 *             MEDIA#<mediaId>    MEDIA                 media library item (gsi1: MEDIA#USER#<userId> / <createdAt>#<mediaId>)
 *             QUEUE#<acctId>     QUEUE                 an account's queue: timeZone, slots (dynamodb-queue-store.ts)
 *             QUEUE#<acctId>     SLOT#<scheduledFor>   a queue slot taken by a post (postId): put with
 *                                                  attribute_not_exists in the post's create transaction,
 *                                                  deleted with the post's cancel; the queue's free
 *                                                  slots = its slot times minus a Query of these;
 *                                                  expiresAt (TTL) a day after its instant, since
 *                                                  only slots from now on are ever read
 *             CONNECTION#<wsId>#<platform>#<accountType>#<platformUserId>  CONNECTION
 *                                                  the account a platform identity is connected as in a
 *                                                  workspace (settings connect: no duplicates)
 *   byTokenExpiry (sparse): an ACCOUNT item's next scheduled check, one entry an item
 *                   (dynamodb-account-store.ts accountCheckKeys):
 *                   expiryPk = expiry, expirySk = <warning time>#<acctId> while its token cannot be
 *                   refreshed and it is not `expiring` yet; the sweeper Queries expirySk <= now and
 *                   marks them `expiring` (removing the keys: each is read once);
 *                   expiryPk = x-subscription, expirySk = <last read>#<acctId> on other X accounts;
 *                   the metrics collector Queries expirySk <= now - 1 day and reads X's
 *                   subscription_type again, which moves the entry to that read
 *   byMediaDue (sparse): mediaDuePk = media-due, mediaDueSk = <dueAt>#<mediaId> on a MEDIA item not settled
 *                   yet (pending, processing); the sweeper Queries mediaDueSk <= now: an import whose
 *                   worker's lease ran out is queued again, an upload never completed fails
 *   gsi1 (byOwner): GET /accounts = Query gsi1pk = USER#<userId> [begins_with gsi1sk <wsId>#];
 *                   the media library page = Query gsi1pk = MEDIA#USER#<userId>, newest first
 *
 * posts       pk = id
 *   byUser       listPk = <userId>              listSk = <createdAt>#<id>   every live post, newest first
 *   byUserStatus statusPk = <userId>#<status>   listSk                      the status filter of GET /posts
 *   byDue        duePk = due#<shard>            dueSk = <scheduledFor>#<id> scheduled posts not yet sent (sweeper),
 *                                               and the outbox of platform deletions: a post deleted with
 *                                               deleteFromPlatform=true until its live copy is down (post-item.ts)
 *   byMetricsDue metricsDuePk = metrics#<shard> metricsDueSk = <dueAt>#<id> a published post's next metrics collection
 *                                               (1 h, 6 h, 24 h, 3 d, 7 d, 30 d after publishedAt; set by the
 *                                               write that publishes it, moved by each collection, removed after
 *                                               the last; keys only: lib/store/dynamodb-post-metrics.ts)
 *   Beside each published post once it is collected, its metrics item: id = metrics#<postId>
 *                                               (history, due entry, claim; in byMetricsDue only:
 *                                               lib/store/dynamodb-post-metrics.ts)
 *   DELETE removes listPk/statusPk/duePk, so a deleted post leaves every index at once (sparse
 *   indexes), and a page is never shrunk by a filter; only that outbox entry stays in byDue,
 *   which the API never reads.
 *   Projections: an index copies only what its readers read, so a write that changes nothing
 *   projected costs no index write. byUser and byUserStatus hold the Post's fields
 *   (POST_LIST_ATTRIBUTES: GET /posts builds its page from them), never the publish worker's
 *   bookkeeping (claim, lease, marker, attempts); byDue holds keys only, and the sweeper reads the
 *   few posts it finds from the table itself (BatchGetItem, strongly consistent). So the claim, the
 *   lease renewals and the "sent" marker write the table alone: ~13 -> ~7 write units per publish.
 *
 * idempotency pk = USER#<userId>#<idempotency key>, TTL attribute expiresAt (24 h)
 *
 * counters    pk = RATE#KEY#<keyId>#<YYYY-MM-DD>   a key's one rate counter per UTC day: dayCount, and
 *                                                 the minute it counts (minuteId ISO minute, minuteCount)
 *                  | RATE#ADDR#<ip>#<YYYY-MM-DDTHH:MM>  unauthenticated requests per address and minute (failed authentications,
 *                                                 OAuth register/authorize/token, settings sign-in): requests
 *                  | RATE#FETCH#<ip>#<YYYY-MM-DDTHH:MM> metadata-document fetches an address caused per minute: requests
 *                  | ALLOWANCE#<userId>#<YYYY-MM>  a user's allowance spent in a month: used; TTL attribute expiresAt (all)
 *
 * sessions    pk = SESSION#<sha256 of the session id>   a signed-in browser: userId, csrfToken, expiresAt (absolute),
 *                                                       idleExpiresAt (sliding, 30 min)
 *   byUser: userPk = USER#<userId>, userSk = <createdAt>#<hash>  a user's sessions (keys only): "sign out of other browsers"
 *                | LOGIN#<sha256 of the login id>       a sign-in under way: OIDC state, nonce, PKCE verifier
 *                | CONNECT#<sha256 of the OAuth state>  an account connect under way: user, session hash,
 *                                                       workspace, PKCE verifier (dynamodb-connect-attempts.ts)
 *             TTL attribute expiresAt (epoch seconds); reads also check it, as TTL deletes late.
 *             Only hashes of the cookie values are keys, so a read of the table gives no usable cookie.
 *
 * Settings records in the directory table (lib/store/dynamodb-*-store.ts beside the directory store):
 *             IDENTITY#<sha256 of issuer + sub>  IDENTITY   the user an OpenID Connect subject signs in as
 *             KEY#<keyId> also carries gsi1pk = KEYS#<userId>, gsi1sk = <createdAt>#<keyId>, so the
 *             settings page lists a user's keys with one Query on byOwner (never mixed with accounts,
 *             whose gsi1pk is USER#<userId>).
 * counters    LASTUSED#KEY#<keyId>  lastUsedAt: written by the API path at most once an hour per key.
 *
 * oauth       pk = CLIENT#<clientId>        an assistant registered by dynamic registration (RFC 7591)
 *                | REQUEST#<requestId>      an authorization request waiting for the person's consent (10 min)
 *                | CODE#<sha256(code)>      an authorization code (10 min); its one exchange marks it used (redeemedGrantId) and keeps it a day, so a second exchange revokes that grant
 *                | GRANT#<grantId>          what a person let an assistant do (scopes), revocable in settings
 *                | TOKEN#<sha256(token)>    an access (1 h) or refresh (30 days) token of a grant
 *   byUser: userPk = USER#<userId>, userSk = <createdAt>#<grantId>   the Assistants page (grants only)
 *   TTL attribute expiresAt (epoch seconds; requests, codes, tokens). lib/store/dynamodb-oauth-*.ts
 *
 * webhooks    pk                  sk                                    what (lib/store/dynamodb-webhook-store.ts)
 *             USER#<userId>       ENDPOINT#<we_id>                      an endpoint: a GetItem with the caller's id, so
 *                                                                       another customer's id is simply not found
 *             USER#<userId>       ENDPOINTS                             how many endpoints the user has (the cap of 16
 *                                                                       is a condition on it, in the create transaction)
 *             EVENT#<evt_id>      EVENT                                 an event and the exact body every delivery signs
 *             ENDPOINT#<we_id>    DELIVERY#<eventCreatedAt>#<evt_id>    a delivery of an event to an endpoint, with its
 *                                                                       attempts (Query newest first: the settings page)
 *             ENDPOINT#<we_id>    SLOT#<n>                              a delivery in flight to that endpoint (leased)
 *   TTL attribute expiresAt on events, deliveries and slots (30 days; a slot a minute after its lease, when its holder never gave it back: one given back is deleted).
 *   byPending    pendingPk = pending#<shard>  pendingSk = <time>#<endpointId>#<eventId>
 *                the outbox of deliveries: a delivery is in it while it is pending (written by the
 *                write that makes it pending or records an attempt with a next one, removed by the
 *                one that settles it), at its next attempt's time; the sweeper finds there the ones
 *                whose queue message was lost (keys only; lib/use-cases/webhooks/sweep-deliveries.ts).
 *
 * Streams: posts and directory stream NEW_AND_OLD_IMAGES to the webhook router (events derived from
 * committed changes; docs/webhooks.md).
 */
import { ENV } from '../config.js';

/** The partition key prefix of a session item in the sessions table: what a signed-in page may write (its idle end). */
export const SESSION_KEY_PREFIX = 'SESSION#';

/** The key prefix of an account connect under way in the sessions table (dynamodb-connect-attempts.ts). */
export const CONNECT_KEY_PREFIX = 'CONNECT#';

/**
 * The partition key prefix of a connected account's items in the directory (its ACCOUNT and
 * CREDENTIALS items): the workers may write these and nothing else of the directory (the IAM
 * condition dynamodb:LeadingKeys in infra/stacks/function-access.ts).
 */
export const ACCOUNT_KEY_PREFIX = 'ACCOUNT#';

/**
 * The partition key prefixes of the directory's items, by kind (the layout above). Each function
 * that writes the directory may write only the kinds it needs (IAM dynamodb:LeadingKeys, the
 * `writableKeyPrefixes` of infra/stacks/function-access.ts), so a settings page that makes API keys
 * cannot rewrite an account's tokens, nor the publish worker a user's plan.
 */
export const DIRECTORY_KEY_PREFIXES = {
  user: 'USER#',
  workspace: 'WORKSPACE#',
  account: ACCOUNT_KEY_PREFIX,
  apiKey: 'KEY#',
  media: 'MEDIA#',
  connection: 'CONNECTION#',
  identity: 'IDENTITY#',
  queue: 'QUEUE#',
} as const;

/** The prefix of the plan allowance's counters in the counters table (`ALLOWANCE#<userId>#<YYYY-MM>`). */
export const ALLOWANCE_KEY_PREFIX = 'ALLOWANCE#';

/**
 * What an index copies besides its keys and the table's key. Changing it on a deployed table
 * means recreating the index (docs/operations.md, "Changing an index projection on a deployed table").
 */
export type IndexProjection = { type: 'KEYS_ONLY' } | { type: 'INCLUDE'; attributes: readonly string[] } | { type: 'ALL' };

export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey?: string;
  projection: IndexProjection;
}

/**
 * The posts table's attributes that make up a Post as GET /posts shows it (post-item.ts
 * postToItem writes them, itemToPost reads them; test/store/post-store.test.ts checks the two
 * agree). Not here: the index keys (always projected) and everything only the publish worker
 * reads or writes (inFlightSince, claimToken, claimUntil, platformCreateSentAt, publishAttempts, ...).
 */
export const POST_LIST_ATTRIBUTES = [
  'userId',
  'workspaceId',
  'accountId',
  'platform',
  'campaignId',
  'status',
  'text',
  'mediaUrls',
  'mediaIds',
  'options',
  'format',
  'threadParts',
  'firstComment',
  'scheduledFor',
  'createdAt',
  'updatedAt',
  'deleteFromPlatformRequested',
  'publishedAt',
  'publishedUrl',
  'platformPostId',
  'error',
  'deletedAt',
  'allowanceCycle',
  // Post metrics (beyond-v2.md): the latest figures, shown on every post of a list.
  'metrics',
] as const;

export interface TableDefinition {
  /** Logical name: CDK construct id and local table name. */
  name: string;
  /** Environment variable that carries the physical table name to the code. */
  envVar: string;
  partitionKey: string;
  sortKey?: string;
  indexes: IndexDefinition[];
  ttlAttribute?: string;
  /** Holds customer data: deletion protection and point-in-time recovery on AWS. */
  holdsCustomerData: boolean;
  /** A DynamoDB stream of every change, for the webhook router (docs/webhooks.md). */
  stream?: 'NEW_AND_OLD_IMAGES';
}

export const DIRECTORY_TABLE: TableDefinition = {
  name: 'directory',
  envVar: ENV.directoryTable,
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [
    // Accounts are listed whole and change rarely: copying everything costs little.
    { indexName: 'byOwner', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: { type: 'ALL' } },
    // Sparse: only accounts whose token cannot be refreshed and that do not warn yet (token-expiry.ts);
    // the sweeper reads the ones whose warning time has come. Keys only: it updates what it finds.
    { indexName: 'byTokenExpiry', partitionKey: 'expiryPk', sortKey: 'expirySk', projection: { type: 'KEYS_ONLY' } },
    // Sparse: only media not settled yet (an import, an upload waiting for its bytes); the sweeper
    // reads the ones whose time has come. Keys only: it reads or updates the item it finds.
    { indexName: 'byMediaDue', partitionKey: 'mediaDuePk', sortKey: 'mediaDueSk', projection: { type: 'KEYS_ONLY' } },
  ],
  // A taken queue slot expires once its instant has passed (queueSlotPut); the TTL's deletes are
  // filtered out of the webhook router's stream like every non-account item. Only a Number
  // attribute expires: items that keep an ISO `expiresAt` string are never touched.
  ttlAttribute: 'expiresAt',
  holdsCustomerData: true,
  // account.connected / disconnected / token_health_changed come from its account items' changes.
  stream: 'NEW_AND_OLD_IMAGES',
};

export const POSTS_TABLE: TableDefinition = {
  name: 'posts',
  envVar: ENV.postsTable,
  partitionKey: 'id',
  indexes: [
    { indexName: 'byUser', partitionKey: 'listPk', sortKey: 'listSk', projection: { type: 'INCLUDE', attributes: POST_LIST_ATTRIBUTES } },
    { indexName: 'byUserStatus', partitionKey: 'statusPk', sortKey: 'listSk', projection: { type: 'INCLUDE', attributes: POST_LIST_ATTRIBUTES } },
    { indexName: 'byDue', partitionKey: 'duePk', sortKey: 'dueSk', projection: { type: 'KEYS_ONLY' } },
    // Its own index, not byDue: a published post may also be in byDue (a first comment, a platform
    // deletion) at the same time, and the sweeper must not page through every post being tracked.
    { indexName: 'byMetricsDue', partitionKey: 'metricsDuePk', sortKey: 'metricsDueSk', projection: { type: 'KEYS_ONLY' } },
  ],
  holdsCustomerData: true,
  // post.published / failed / platform_deleted come from its committed changes: no extra write on the publish path.
  stream: 'NEW_AND_OLD_IMAGES',
};

export const IDEMPOTENCY_TABLE: TableDefinition = {
  name: 'idempotency',
  envVar: ENV.idempotencyTable,
  partitionKey: 'pk',
  indexes: [],
  ttlAttribute: 'expiresAt',
  holdsCustomerData: false,
};

export const COUNTERS_TABLE: TableDefinition = {
  name: 'counters',
  envVar: ENV.countersTable,
  partitionKey: 'pk',
  indexes: [],
  ttlAttribute: 'expiresAt',
  holdsCustomerData: true,
};

export const SESSIONS_TABLE: TableDefinition = {
  name: 'sessions',
  envVar: ENV.sessionsTable,
  partitionKey: 'pk',
  // "Sign out of every other browser" finds a user's sessions here: the keys are all it needs.
  indexes: [{ indexName: 'byUser', partitionKey: 'userPk', sortKey: 'userSk', projection: { type: 'KEYS_ONLY' } }],
  ttlAttribute: 'expiresAt',
  // Sessions are short-lived and can be lost (everyone signs in again): no backups needed.
  holdsCustomerData: false,
};

/** The assistant server's OAuth records (lib/oauth): clients, consent requests, codes, grants, tokens. */
export const OAUTH_TABLE: TableDefinition = {
  name: 'oauth',
  envVar: ENV.oauthTable,
  partitionKey: 'pk',
  // The Assistants page lists a user's grants whole from this index.
  indexes: [{ indexName: 'byUser', partitionKey: 'userPk', sortKey: 'userSk', projection: { type: 'ALL' } }],
  ttlAttribute: 'expiresAt',
  holdsCustomerData: true,
};

/** Webhook endpoints, events, deliveries and in-flight slots (the layout above). */
export const WEBHOOKS_TABLE: TableDefinition = {
  name: 'webhooks',
  envVar: ENV.webhooksTable,
  partitionKey: 'pk',
  sortKey: 'sk',
  // Keys only: the sweeper stamps each delivery it finds with a conditional update that returns the item.
  indexes: [
    { indexName: 'byPending', partitionKey: 'pendingPk', sortKey: 'pendingSk', projection: { type: 'KEYS_ONLY' } },
    // A user's events, newest first (GET /events): the event's whole item, its body is the answer.
    { indexName: 'byUserEvents', partitionKey: 'eventsPk', sortKey: 'eventsSk', projection: { type: 'ALL' } },
  ],
  ttlAttribute: 'expiresAt',
  holdsCustomerData: true,
};

export const TABLES = [DIRECTORY_TABLE, POSTS_TABLE, IDEMPOTENCY_TABLE, COUNTERS_TABLE, SESSIONS_TABLE, OAUTH_TABLE, WEBHOOKS_TABLE] as const;

/** Shards of the byDue index: spreads the sweeper's partition so no single key gets hot. */
export const DUE_SHARDS = 8;
/** Shards of the byMetricsDue index, for the same reason as DUE_SHARDS. */
export const METRICS_DUE_SHARDS = 8;
/** Shards of the webhooks table's byPending index (pending deliveries), for the same reason. */
export const PENDING_DELIVERY_SHARDS = 8;
/** The partition key prefix of an endpoint's items in the webhooks table (deliveries, slots): what the sweeper may write. */
export const WEBHOOK_ENDPOINT_KEY_PREFIX = 'ENDPOINT#';
