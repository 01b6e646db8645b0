/**
 * The directory table (users, workspaces, accounts, platform credentials, API keys, media
 * library) behind the read ports of the request path and the admin writes. The item layout is
 * the one documented at the top of lib/store/tables.ts.
 *
 * Mapping is explicit in both directions: a read builds the record field by field, so an
 * attribute added to an item later (or written by hand) never leaks into an API response, and
 * account reads can never carry a token (tokens live in the CREDENTIALS item, which no index
 * projects and no account read touches). Only the publish worker reads both items together
 * (getAccountWithCredentials), and it gets them back as two separate records.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import { DirectoryRecordExistsError, DirectoryRecordNotFoundError, type DirectoryRecordKind } from '../domain/directory-errors.js';
import { DependencyError } from '../domain/errors.js';
import {
  ACCOUNT_TYPES,
  SANDBOX_BEHAVIOURS,
  SCOPES,
  TOKEN_HEALTH,
  type Account,
  type AccountCredentials,
  type ApiKeyRecord,
  type MediaItem,
  type TokenHealth,
  type User,
  type Workspace,
} from '../domain/model.js';
import type {
  AccountReader,
  AccountWithCredentialsReader,
  ApiKeyReader,
  CredentialStore,
  DirectoryAdmin,
  MediaReader,
  UserReader,
  WorkspaceReader,
} from '../ports.js';
import { apiKeyOwnerIndexKeys } from './dynamodb-api-key-store.js';
import { documentClient } from './dynamo-client.js';
import { DIRECTORY_TABLE } from './tables.js';

type Item = Record<string, unknown>;
type Key = { pk: string; sk: string };

/** Declared in tables.ts; the integration tests run against a table built from that declaration. */
const BY_OWNER_INDEX = 'byOwner';
/** BatchGetItem's own ceiling per request. */
const BATCH_GET_LIMIT = 100;
/** Unprocessed keys come back when the table throttles; retried with backoff this many times. */
const BATCH_GET_ATTEMPTS = 8;

export const keys = {
  user: (userId: string): Key => ({ pk: `USER#${userId}`, sk: 'PROFILE' }),
  userWorkspace: (userId: string, workspaceId: string): Key => ({ pk: `USER#${userId}`, sk: `WORKSPACE#${workspaceId}` }),
  workspace: (workspaceId: string): Key => ({ pk: `WORKSPACE#${workspaceId}`, sk: 'WORKSPACE' }),
  account: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'ACCOUNT' }),
  credentials: (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'CREDENTIALS' }),
  apiKey: (keyId: string): Key => ({ pk: `KEY#${keyId}`, sk: 'KEY' }),
  media: (mediaId: string): Key => ({ pk: `MEDIA#${mediaId}`, sk: 'MEDIA' }),
};

/** The byOwner index keys of an account: GET /accounts is one Query on them. */
function ownerIndexKeys(account: Pick<Account, 'userId' | 'workspaceId' | 'id'>): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `USER#${account.userId}`, gsi1sk: `${account.workspaceId}#${account.id}` };
}

/** An item that does not have the shape this code writes: a bug or a hand edit, never user input. */
export class DirectoryItemError extends Error {
  readonly code = 'directory_item_malformed';
  constructor(key: Key, field: string) {
    super(`Directory item ${key.pk}/${key.sk} has a missing or malformed ${field}`);
    this.name = 'DirectoryItemError';
  }
}

class ItemReader {
  constructor(
    private readonly item: Item,
    private readonly key: Key,
  ) {}

  string(field: string): string {
    const value = this.item[field];
    if (typeof value !== 'string') throw new DirectoryItemError(this.key, field);
    return value;
  }

  nullableString(field: string): string | null {
    const value = this.item[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') throw new DirectoryItemError(this.key, field);
    return value;
  }

  number(field: string): number {
    const value = this.item[field];
    if (typeof value !== 'number') throw new DirectoryItemError(this.key, field);
    return value;
  }

  nullableNumber(field: string): number | null {
    const value = this.item[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number') throw new DirectoryItemError(this.key, field);
    return value;
  }

  boolean(field: string): boolean {
    const value = this.item[field];
    if (typeof value !== 'boolean') throw new DirectoryItemError(this.key, field);
    return value;
  }

  stringList(field: string): string[] {
    const value = this.item[field];
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string')) {
      throw new DirectoryItemError(this.key, field);
    }
    return [...(value as string[])];
  }

  oneOf<T extends string>(field: string, allowed: readonly T[]): T {
    const value = this.string(field);
    if (!(allowed as readonly string[]).includes(value)) throw new DirectoryItemError(this.key, field);
    return value as T;
  }
}

function itemKey(item: Item): Key {
  return { pk: String(item.pk), sk: String(item.sk) };
}

function toUser(item: Item): User {
  const read = new ItemReader(item, itemKey(item));
  return {
    id: read.string('id'),
    email: read.string('email'),
    active: read.boolean('active'),
    monthlyPostAllowance: read.number('monthlyPostAllowance'),
    workspaceIds: read.stringList('workspaceIds'),
    createdAt: read.string('createdAt'),
  };
}

function toWorkspace(item: Item): Workspace {
  const read = new ItemReader(item, itemKey(item));
  return { id: read.string('id'), userId: read.string('userId'), name: read.string('name'), createdAt: read.string('createdAt') };
}

export function toAccount(item: Item): Account {
  const read = new ItemReader(item, itemKey(item));
  const account: Account = {
    id: read.string('id'),
    userId: read.string('userId'),
    workspaceId: read.string('workspaceId'),
    platform: read.string('platform'),
    name: read.string('name'),
    handle: read.string('handle'),
    accountType: read.oneOf('accountType', ACCOUNT_TYPES),
    active: read.boolean('active'),
    tokenHealth: read.oneOf('tokenHealth', TOKEN_HEALTH),
    connectedAt: read.string('connectedAt'),
    platformUserId: read.string('platformUserId'),
  };
  if (item.sandbox !== undefined) account.sandbox = read.oneOf('sandbox', SANDBOX_BEHAVIOURS);
  return account;
}

function toCredentials(item: Item): AccountCredentials {
  const read = new ItemReader(item, itemKey(item));
  return {
    accountId: read.string('accountId'),
    accessTokenEncrypted: read.string('accessTokenEncrypted'),
    refreshTokenEncrypted: read.nullableString('refreshTokenEncrypted'),
    accessTokenExpiresAt: read.nullableString('accessTokenExpiresAt'),
  };
}

function toApiKey(item: Item): ApiKeyRecord {
  const read = new ItemReader(item, itemKey(item));
  const scopes = read.stringList('scopes');
  if (!scopes.every((scope) => (SCOPES as readonly string[]).includes(scope))) {
    throw new DirectoryItemError(itemKey(item), 'scopes');
  }
  return {
    id: read.string('id'),
    userId: read.string('userId'),
    secretHash: read.string('secretHash'),
    scopes: scopes as ApiKeyRecord['scopes'],
    createdAt: read.string('createdAt'),
    revokedAt: read.nullableString('revokedAt'),
  };
}

export function toMediaItem(item: Item): MediaItem {
  const read = new ItemReader(item, itemKey(item));
  return {
    id: read.string('id'),
    userId: read.string('userId'),
    url: read.string('url'),
    contentType: read.string('contentType'),
    sizeBytes: read.number('sizeBytes'),
    durationSeconds: read.nullableNumber('durationSeconds'),
    objectKey: read.string('objectKey'),
    createdAt: read.string('createdAt'),
  };
}

export function accountItem(account: Account): Item {
  return {
    ...keys.account(account.id),
    ...ownerIndexKeys(account),
    type: 'account',
    id: account.id,
    userId: account.userId,
    workspaceId: account.workspaceId,
    platform: account.platform,
    name: account.name,
    handle: account.handle,
    accountType: account.accountType,
    active: account.active,
    tokenHealth: account.tokenHealth,
    connectedAt: account.connectedAt,
    platformUserId: account.platformUserId,
    sandbox: account.sandbox,
  };
}

/** Drops absent optional fields, so items marshal whatever marshall options the client was built with. */
export function withoutUndefined(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined));
}

function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}

/** Plain code-point order: the same on every machine, unlike localeCompare. */
function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface DynamoDbDirectoryStoreOptions {
  /** Physical table name; defaults to the DIRECTORY_TABLE environment variable. */
  tableName?: string;
  client?: DynamoDBDocumentClient;
  /** Items per Query page of listAccounts; only tests set it, to make the pagination loop run. */
  queryPageSize?: number;
}

export class DynamoDbDirectoryStore
  implements ApiKeyReader, UserReader, AccountReader, AccountWithCredentialsReader, MediaReader, CredentialStore, DirectoryAdmin, WorkspaceReader
{
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;
  private readonly queryPageSize: number | undefined;

  constructor(options: DynamoDbDirectoryStoreOptions = {}) {
    this.tableName = options.tableName ?? requireEnv(DIRECTORY_TABLE.envVar);
    this.client = options.client ?? documentClient;
    this.queryPageSize = options.queryPageSize;
  }

  // ---- reads -------------------------------------------------------------------------------

  async getApiKey(keyId: string): Promise<ApiKeyRecord | null> {
    // Strongly consistent: a key revoked a moment ago must stop working at once (api-v1.md).
    const item = await this.getItem(keys.apiKey(keyId), true);
    return item ? toApiKey(item) : null;
  }

  async getUser(userId: string): Promise<User | null> {
    const item = await this.getItem(keys.user(userId));
    return item ? toUser(item) : null;
  }

  async getWorkspace(workspaceId: string): Promise<Workspace | null> {
    const item = await this.getItem(keys.workspace(workspaceId));
    return item ? toWorkspace(item) : null;
  }

  async getAccount(accountId: string): Promise<Account | null> {
    const item = await this.getItem(keys.account(accountId));
    return item ? toAccount(item) : null;
  }

  /**
   * One Query on byOwner, following LastEvaluatedKey until the end (the list is not paginated in
   * the API, and a user has few accounts). Order: connectedAt ascending, then id, so the list is
   * stable and newly connected accounts come last.
   */
  async listAccounts(userId: string, filter: { workspaceId?: string }): Promise<Account[]> {
    const values: Record<string, string> = { ':owner': `USER#${userId}` };
    let condition = 'gsi1pk = :owner';
    if (filter.workspaceId !== undefined) {
      values[':workspace'] = `${filter.workspaceId}#`;
      condition += ' AND begins_with(gsi1sk, :workspace)';
    }
    const accounts: Account[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_OWNER_INDEX,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: values,
          ExclusiveStartKey: startKey,
          Limit: this.queryPageSize,
        }),
      );
      for (const item of page.Items ?? []) accounts.push(toAccount(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return accounts.sort((a, b) => compareCodePoints(a.connectedAt, b.connectedAt) || compareCodePoints(a.id, b.id));
  }

  async getAccounts(accountIds: string[]): Promise<Map<string, Account>> {
    const items = await this.batchGet(accountIds.map(keys.account));
    return new Map(items.map((item) => {
      const account = toAccount(item);
      return [account.id, account] as const;
    }));
  }

  async getMediaItems(mediaIds: string[]): Promise<Map<string, MediaItem>> {
    const items = await this.batchGet(mediaIds.map(keys.media));
    return new Map(items.map((item) => {
      const media = toMediaItem(item);
      return [media.id, media] as const;
    }));
  }

  /**
   * The publish worker's read: the account and its credentials in one strongly consistent Query
   * on their shared partition (half the requests of two GetItems, and one read unit for both
   * while they fit in 4 KB). Consistent for the credentials' sake, as getCredentials.
   */
  async getAccountWithCredentials(accountId: string): Promise<{ account: Account | null; credentials: AccountCredentials | null }> {
    const accountKey = keys.account(accountId);
    const credentialsKey = keys.credentials(accountId);
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': accountKey.pk },
        ConsistentRead: true,
      }),
    );
    let account: Account | null = null;
    let credentials: AccountCredentials | null = null;
    for (const item of out.Items ?? []) {
      if (item.sk === accountKey.sk) account = toAccount(item);
      else if (item.sk === credentialsKey.sk) credentials = toCredentials(item);
    }
    return { account, credentials };
  }

  async getCredentials(accountId: string): Promise<AccountCredentials | null> {
    // Consistent: right after a refresh stored a rotated refresh token, the old one is useless.
    const item = await this.getItem(keys.credentials(accountId), true);
    return item ? toCredentials(item) : null;
  }

  // ---- writes ------------------------------------------------------------------------------

  async putCredentials(credentials: AccountCredentials): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.credentials(credentials.accountId),
          type: 'credentials',
          accountId: credentials.accountId,
          accessTokenEncrypted: credentials.accessTokenEncrypted,
          refreshTokenEncrypted: credentials.refreshTokenEncrypted,
          accessTokenExpiresAt: credentials.accessTokenExpiresAt,
        },
      }),
    );
  }

  async setTokenHealth(accountId: string, tokenHealth: TokenHealth): Promise<void> {
    await this.updateExisting('account', accountId, keys.account(accountId), { tokenHealth });
  }

  async putUser(user: User): Promise<void> {
    await this.putNew('user', user.id, {
      ...keys.user(user.id),
      type: 'user',
      id: user.id,
      email: user.email,
      active: user.active,
      monthlyPostAllowance: user.monthlyPostAllowance,
      workspaceIds: user.workspaceIds,
      createdAt: user.createdAt,
    });
  }

  async updateUser(userId: string, changes: { active?: boolean; monthlyPostAllowance?: number }): Promise<User> {
    const item = await this.updateExisting('user', userId, keys.user(userId), {
      active: changes.active,
      monthlyPostAllowance: changes.monthlyPostAllowance,
    });
    return toUser(item);
  }

  /**
   * The workspace item, its by-id twin and the owner's workspaceIds change in one transaction:
   * auth and create read workspaceIds off the user, so a workspace must never exist without
   * being listed there (nor the other way round). The user must exist.
   */
  async putWorkspace(workspace: Workspace): Promise<void> {
    const attributes = { type: 'workspace', id: workspace.id, userId: workspace.userId, name: workspace.name, createdAt: workspace.createdAt };
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: { ...keys.userWorkspace(workspace.userId, workspace.id), ...attributes },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...keys.workspace(workspace.id), ...attributes },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.user(workspace.userId),
                UpdateExpression: 'SET workspaceIds = list_append(if_not_exists(workspaceIds, :none), :added)',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':none': [], ':added': [workspace.id] },
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        const reasons = error.CancellationReasons ?? [];
        if (reasons[2]?.Code === 'ConditionalCheckFailed') {
          throw new DirectoryRecordNotFoundError('user', workspace.userId, { cause: error });
        }
        if (reasons[0]?.Code === 'ConditionalCheckFailed' || reasons[1]?.Code === 'ConditionalCheckFailed') {
          throw new DirectoryRecordExistsError('workspace', workspace.id, { cause: error });
        }
      }
      throw error;
    }
  }

  async putAccount(account: Account): Promise<void> {
    await this.putNew('account', account.id, accountItem(account));
  }

  async updateAccount(
    accountId: string,
    changes: Partial<Pick<Account, 'tokenHealth' | 'sandbox' | 'active' | 'name'>>,
  ): Promise<Account> {
    const item = await this.updateExisting('account', accountId, keys.account(accountId), {
      tokenHealth: changes.tokenHealth,
      sandbox: changes.sandbox,
      active: changes.active,
      name: changes.name,
    });
    return toAccount(item);
  }

  async putApiKey(key: ApiKeyRecord): Promise<void> {
    await this.putNew('api_key', key.id, {
      ...keys.apiKey(key.id),
      // The settings keys page lists a user's keys with one Query on byOwner (dynamodb-api-key-store.ts).
      ...apiKeyOwnerIndexKeys(key),
      type: 'api_key',
      id: key.id,
      userId: key.userId,
      secretHash: key.secretHash,
      scopes: key.scopes,
      createdAt: key.createdAt,
      // Absent rather than null while live, so revoking can use if_not_exists.
      revokedAt: key.revokedAt ?? undefined,
    });
  }

  async revokeApiKey(keyId: string, revokedAt: string): Promise<string> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.apiKey(keyId),
          // Revoking twice keeps the first time: the answer to "when did this key stop working" never moves.
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':revokedAt': revokedAt },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toApiKey(out.Attributes ?? {}).revokedAt ?? revokedAt;
    } catch (error) {
      if (isConditionFailure(error)) throw new DirectoryRecordNotFoundError('api_key', keyId, { cause: error });
      throw error;
    }
  }

  async putMediaItem(item: MediaItem): Promise<void> {
    await this.putNew('media', item.id, {
      ...keys.media(item.id),
      // The settings media library lists a user's files by these (dynamodb-media-library.ts).
      gsi1pk: `MEDIA#USER#${item.userId}`,
      gsi1sk: `${item.createdAt}#${item.id}`,
      type: 'media',
      id: item.id,
      userId: item.userId,
      url: item.url,
      contentType: item.contentType,
      sizeBytes: item.sizeBytes,
      durationSeconds: item.durationSeconds,
      objectKey: item.objectKey,
      createdAt: item.createdAt,
    });
  }

  // ---- helpers -----------------------------------------------------------------------------

  private async getItem(key: Key, consistentRead = false): Promise<Item | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: consistentRead }));
    return out.Item ?? null;
  }

  private async putNew(kind: DirectoryRecordKind, id: string, item: Item): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({ TableName: this.tableName, Item: withoutUndefined(item), ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new DirectoryRecordExistsError(kind, id, { cause: error });
      throw error;
    }
  }

  /** SETs the defined fields of `changes` on an item that must exist; returns the item after the update. */
  private async updateExisting(kind: DirectoryRecordKind, id: string, key: Key, changes: Record<string, unknown>): Promise<Item> {
    const defined = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (defined.length === 0) {
      const item = await this.getItem(key, true);
      if (!item) throw new DirectoryRecordNotFoundError(kind, id);
      return item;
    }
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const assignments = defined.map(([field, value], index) => {
      names[`#f${index}`] = field;
      values[`:v${index}`] = value;
      return `#f${index} = :v${index}`;
    });
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `SET ${assignments.join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ?? {};
    } catch (error) {
      if (isConditionFailure(error)) throw new DirectoryRecordNotFoundError(kind, id, { cause: error });
      throw error;
    }
  }

  /** BatchGetItem in chunks of 100, retrying UnprocessedKeys with backoff; missing keys are simply absent. */
  private async batchGet(requested: Key[]): Promise<Item[]> {
    const unique = [...new Map(requested.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
    const found: Item[] = [];
    for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) {
      let pending: Record<string, unknown>[] = unique.slice(start, start + BATCH_GET_LIMIT);
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt === BATCH_GET_ATTEMPTS) {
          throw new DependencyError(`DynamoDB left ${pending.length} keys unprocessed after ${BATCH_GET_ATTEMPTS} attempts`);
        }
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));
        const out = await this.client.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending } } }),
        );
        found.push(...(out.Responses?.[this.tableName] ?? []));
        pending = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return found;
  }
}
