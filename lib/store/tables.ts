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
 *             CONNECTION#<wsId>#<platform>#<accountType>#<platformUserId>  CONNECTION
 *                                                  the account a platform identity is connected as in a
 *                                                  workspace (settings connect: no duplicates)
 *   gsi1 (byOwner): GET /accounts = Query gsi1pk = USER#<userId> [begins_with gsi1sk <wsId>#];
 *                   the media library page = Query gsi1pk = MEDIA#USER#<userId>, newest first
 *
 * posts       pk = id
 *   byUser       listPk = <userId>              listSk = <createdAt>#<id>   every live post, newest first
 *   byUserStatus statusPk = <userId>#<status>   listSk                      the status filter of GET /posts
 *   byDue        duePk = due#<shard>            dueSk = <scheduledFor>#<id> scheduled posts not yet sent (sweeper)
 *   DELETE removes listPk/statusPk/duePk, so a deleted post leaves every index at once (sparse
 *   indexes), and a page is never shrunk by a filter.
 *
 * idempotency pk = USER#<userId>#<idempotency key>, TTL attribute expiresAt (24 h)
 *
 * counters    pk = RATE#KEY#<keyId>#<YYYY-MM-DD>   a key's one rate counter per UTC day: dayCount, and
 *                                                 the minute it counts (minuteId ISO minute, minuteCount)
 *                  | RATE#ADDR#<ip>#<YYYY-MM-DDTHH:MM>  failed authentications per address and minute: requests
 *                  | ALLOWANCE#<userId>#<YYYY-MM>; TTL attribute expiresAt (rate counters only)
 *
 * sessions    pk = SESSION#<sha256 of the session id>   a signed-in browser: userId, csrfToken, expiresAt
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
 */
import { ENV } from '../config.js';

export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey?: string;
}

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
}

export const DIRECTORY_TABLE: TableDefinition = {
  name: 'directory',
  envVar: ENV.directoryTable,
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [{ indexName: 'byOwner', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  holdsCustomerData: true,
};

export const POSTS_TABLE: TableDefinition = {
  name: 'posts',
  envVar: ENV.postsTable,
  partitionKey: 'id',
  indexes: [
    { indexName: 'byUser', partitionKey: 'listPk', sortKey: 'listSk' },
    { indexName: 'byUserStatus', partitionKey: 'statusPk', sortKey: 'listSk' },
    { indexName: 'byDue', partitionKey: 'duePk', sortKey: 'dueSk' },
  ],
  holdsCustomerData: true,
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
  indexes: [],
  ttlAttribute: 'expiresAt',
  // Sessions are short-lived and can be lost (everyone signs in again): no backups needed.
  holdsCustomerData: false,
};

export const TABLES = [DIRECTORY_TABLE, POSTS_TABLE, IDEMPOTENCY_TABLE, COUNTERS_TABLE, SESSIONS_TABLE] as const;

/** Shards of the byDue index: spreads the sweeper's partition so no single key gets hot. */
export const DUE_SHARDS = 8;
