/**
 * The directory table's plumbing shared by its record stores (users, workspaces, accounts and
 * credentials, API keys, media items; each in its own dynamodb-*-store.ts): the item keys of the
 * layout documented in lib/store/tables.ts, and the GetItem, conditional Put/Update and
 * BatchGetItem every store uses. Nothing here knows a record's fields.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type * as v from 'valibot';
import { requireEnv } from '../config.js';
import { DirectoryRecordExistsError, DirectoryRecordNotFoundError, type DirectoryRecordKind } from '../domain/directory-errors.js';
import { batchGetAll } from './batch-get.js';
import { documentClient } from './dynamo-client.js';
import { readItem } from './item-schema.js';
import { DIRECTORY_KEY_PREFIXES as P, DIRECTORY_TABLE } from './tables.js';

export type Item = Record<string, unknown>;
export type Key = { pk: string; sk: string };


export const directoryKeys = {
  // The prefixes are also the IAM write conditions of the functions that write the directory (dynamodb:LeadingKeys).
  user: (userId: string): Key => ({ pk: `${P.user}${userId}`, sk: 'PROFILE' }),
  userWorkspace: (userId: string, workspaceId: string): Key => ({ pk: `${P.user}${userId}`, sk: `WORKSPACE#${workspaceId}` }),
  workspace: (workspaceId: string): Key => ({ pk: `${P.workspace}${workspaceId}`, sk: 'WORKSPACE' }),
  account: (accountId: string): Key => ({ pk: `${P.account}${accountId}`, sk: 'ACCOUNT' }),
  credentials: (accountId: string): Key => ({ pk: `${P.account}${accountId}`, sk: 'CREDENTIALS' }),
  apiKey: (keyId: string): Key => ({ pk: `${P.apiKey}${keyId}`, sk: 'KEY' }),
  media: (mediaId: string): Key => ({ pk: `${P.media}${mediaId}`, sk: 'MEDIA' }),
  queue: (accountId: string): Key => ({ pk: `${P.queue}${accountId}`, sk: 'QUEUE' }),
  /** A queue slot taken at an instant (ISO, UTC, milliseconds: the post's scheduledFor). */
  queueSlot: (accountId: string, scheduledFor: string): Key => ({ pk: `${P.queue}${accountId}`, sk: `SLOT#${scheduledFor}` }),
  /** The guard of one platform identity connected in a workspace (settings connect: no duplicates). */
  connection: (input: { workspaceId: string; platform: string; accountType: string; platformUserId: string }): Key => ({
    pk: `${P.connection}${input.workspaceId}#${input.platform}#${input.accountType}#${input.platformUserId}`,
    sk: 'CONNECTION',
  }),
};

/** Reads a directory item with its record's schema (item-schema.ts), naming it by its key in a StoredItemError. */
export function readDirectoryItem<TSchema extends v.GenericSchema>(schema: TSchema, item: Item): v.InferOutput<TSchema> {
  return readItem(schema, item, `Directory item ${String(item.pk)}/${String(item.sk)}`);
}

export interface DirectoryTableOptions {
  /** Physical table name; defaults to the DIRECTORY_TABLE environment variable. */
  tableName?: string;
  client?: DynamoDBDocumentClient;
  /** Items per Query page of listAccounts; only tests set it, to make the pagination loop run. */
  queryPageSize?: number;
}

/** Drops absent optional fields, so items marshal whatever marshall options the client was built with. */
export function withoutUndefined(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined));
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}

/**
 * A conditional write's outcome: true when written, false when its condition failed; any other
 * error is thrown. The stores' one way of asking "did my condition hold?" (a claim, a lease, a
 * write only if absent); a caller that only needs the write tried ignores the answer.
 */
export async function writtenIfConditionHolds(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export class DirectoryTable {
  readonly name: string;
  readonly client: DynamoDBDocumentClient;
  readonly queryPageSize: number | undefined;

  /** A record store's table: the handle given (directoryStores shares one), or one built from options. */
  static from(options: DirectoryTableOptions | DirectoryTable = {}): DirectoryTable {
    return options instanceof DirectoryTable ? options : new DirectoryTable(options);
  }

  constructor(options: DirectoryTableOptions = {}) {
    this.name = options.tableName ?? requireEnv(DIRECTORY_TABLE.envVar);
    this.client = options.client ?? documentClient;
    this.queryPageSize = options.queryPageSize;
  }

  async getItem(key: Key, consistentRead = false): Promise<Item | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.name, Key: key, ConsistentRead: consistentRead }));
    return out.Item ?? null;
  }

  async putNew(kind: DirectoryRecordKind, id: string, item: Item): Promise<void> {
    try {
      await this.client.send(new PutCommand({ TableName: this.name, Item: withoutUndefined(item), ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (isConditionFailure(error)) throw new DirectoryRecordExistsError(kind, id, { cause: error });
      throw error;
    }
  }

  /** SETs the defined fields of `changes` on an item that must exist; returns the item after the update. */
  async updateExisting(kind: DirectoryRecordKind, id: string, key: Key, changes: Record<string, unknown>): Promise<Item> {
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
          TableName: this.name,
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

  /** Every item of `requested` (each key read once); missing keys are simply absent (batch-get.ts). */
  async batchGet(requested: Key[]): Promise<Item[]> {
    const unique = [...new Map(requested.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
    return batchGetAll(this.client, this.name, unique);
  }
}
