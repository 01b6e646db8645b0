/**
 * API keys in the directory table (item KEY#<keyId>/KEY; layout in lib/store/tables.ts). Only the
 * secret's hash is stored. The item also carries the byOwner keys gsi1pk KEYS#<userId>, so the
 * settings keys page lists and counts a user's keys with one Query; revoking from settings is
 * conditioned on the owner. A key's last use lives in the counters table (dynamodb-key-use-store.ts).
 *
 * The cap on a user's active keys (settings) is a count on the user's profile item,
 * `activeApiKeys`, changed in the same transaction as the key: creating adds one under the
 * condition that the count is below the cap, so concurrent creations can never pass it together;
 * revoking a counted key (`counted`, set by that creation) takes one off, once. Keys made before
 * the cap, or by the admin CLI, are not counted.
 */
import { transactWithRetry } from './transactions.js';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { DirectoryRecordExistsError, DirectoryRecordNotFoundError } from '../domain/directory-errors.js';
import { SCOPES, type ApiKeyRecord } from '../domain/model.js';
import type { ApiKeyAdmin, ApiKeyReader } from '../use-cases/ports/api-keys.js';
import type { ApiKeyStore, ApiKeySummary } from '../use-cases/settings/ports.js';
import { countQuery } from './count-query.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, isConditionFailure, withoutUndefined, writtenIfConditionHolds, type DirectoryTableOptions, type Item } from './directory-table.js';
import { nullableString } from './item-schema.js';

function optionalString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

const API_KEY_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  secretHash: v.string(),
  scopes: v.optional(v.array(v.picklist(SCOPES)), () => []),
  createdAt: v.string(),
  revokedAt: nullableString,
});

const BY_OWNER_INDEX = 'byOwner';

/** A transaction retried on TransactionConflict (another write held the profile item): each retry means one of them went through. */
const CAP_TRANSACTION_ATTEMPTS = 8;

/** The byOwner partition of a user's keys (never USER#..., which is the accounts' partition there). */
export function apiKeyOwnerIndexKeys(key: Pick<ApiKeyRecord, 'userId' | 'createdAt' | 'id'>): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `KEYS#${key.userId}`, gsi1sk: `${key.createdAt}#${key.id}` };
}

function toApiKey(item: Item): ApiKeyRecord {
  return readDirectoryItem(API_KEY_ITEM, item);
}

export class DynamoDbApiKeyStore implements ApiKeyReader, ApiKeyAdmin, ApiKeyStore {
  private readonly table: DirectoryTable;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    this.table = DirectoryTable.from(options);
  }

  async getApiKey(keyId: string): Promise<ApiKeyRecord | null> {
    // Strongly consistent: a key revoked a moment ago must stop working at once (api-v1.md).
    const item = await this.table.getItem(directoryKeys.apiKey(keyId), true);
    return item ? toApiKey(item) : null;
  }

  async putApiKey(key: ApiKeyRecord): Promise<void> {
    await this.table.putNew('api_key', key.id, this.keyItem(key));
  }

  private keyItem(key: ApiKeyRecord): Item {
    return withoutUndefined({
      ...directoryKeys.apiKey(key.id),
      // The settings keys page lists a user's keys with one Query on byOwner.
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

  /**
   * Settings' create: the key, and one more on the profile's count of active keys, in one
   * transaction whose condition is the cap. False (nothing written) when `max` keys are active.
   */
  async putApiKeyWithinCap(key: ApiKeyRecord, max: number): Promise<boolean> {
    const item = { ...this.keyItem(key), counted: true };
    return transactWithRetry(this.table.client, [
        { Put: { TableName: this.table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Update: {
            TableName: this.table.name,
            Key: directoryKeys.user(key.userId),
            UpdateExpression: 'SET activeApiKeys = if_not_exists(activeApiKeys, :zero) + :one',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(activeApiKeys) OR activeApiKeys < :max)',
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': max },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ], {
      attempts: CAP_TRANSACTION_ATTEMPTS,
      written: true,
      cancelled: (codes, error) => {
        if (codes[0] === 'ConditionalCheckFailed') throw new DirectoryRecordExistsError('api_key', key.id, { cause: error });
        if (codes[1] === 'ConditionalCheckFailed') {
          // The profile answered: its count is at the cap. No profile at all: no such user.
          if (error.CancellationReasons?.[1]?.Item) return false;
          throw new DirectoryRecordNotFoundError('user', key.userId, { cause: error });
        }
        return undefined;
      },
    });
  }

  /**
   * Revokes a key counted against the cap and frees its place (one off the profile's count), in
   * one transaction conditioned on the key being live, so a place is freed once however often the
   * key is revoked. False when the key is not such a key (absent, another user's, not counted,
   * already revoked).
   */
  private async revokeCounted(userId: string, keyId: string, revokedAt: string): Promise<boolean> {
    return transactWithRetry(this.table.client, [
        {
          Update: {
            TableName: this.table.name,
            Key: directoryKeys.apiKey(keyId),
            UpdateExpression: 'SET revokedAt = :revokedAt',
            ConditionExpression: 'attribute_exists(pk) AND userId = :userId AND counted = :true AND attribute_not_exists(revokedAt)',
            ExpressionAttributeValues: { ':revokedAt': revokedAt, ':userId': userId, ':true': true },
          },
        },
        {
          Update: {
            TableName: this.table.name,
            Key: directoryKeys.user(userId),
            UpdateExpression: 'ADD activeApiKeys :minusOne',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':minusOne': -1 },
          },
        },
      ], {
      attempts: CAP_TRANSACTION_ATTEMPTS,
      written: true,
      cancelled: (codes) => {
        if (codes[0] === 'ConditionalCheckFailed' || codes[1] === 'ConditionalCheckFailed') return false;
        return undefined;
      },
    });
  }

  async revokeApiKey(keyId: string, revokedAt: string): Promise<string> {
    // A key counted against its owner's cap frees its place (the admin CLI's revoke too).
    const current = await this.table.getItem(directoryKeys.apiKey(keyId), true);
    if (current?.counted === true && typeof current.userId === 'string' && current.revokedAt === undefined) {
      if (await this.revokeCounted(current.userId, keyId, revokedAt)) return revokedAt;
    }
    try {
      const out = await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: directoryKeys.apiKey(keyId),
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

  async listApiKeys(userId: string): Promise<ApiKeySummary[]> {
    const keys: ApiKeySummary[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.name,
          IndexName: BY_OWNER_INDEX,
          KeyConditionExpression: 'gsi1pk = :owner',
          ExpressionAttributeValues: { ':owner': `KEYS#${userId}` },
          // Only what the page shows: never the secret hash.
          ProjectionExpression: 'id, createdAt, revokedAt, userId',
          ScanIndexForward: false,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.userId !== userId || typeof item.id !== 'string' || typeof item.createdAt !== 'string') continue;
        keys.push({ id: item.id, createdAt: item.createdAt, revokedAt: optionalString(item.revokedAt) });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return keys;
  }

  async countActiveApiKeys(userId: string): Promise<number> {
    return countQuery(this.table.client, {
      TableName: this.table.name,
      IndexName: BY_OWNER_INDEX,
      KeyConditionExpression: 'gsi1pk = :owner',
      FilterExpression: 'attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: { ':owner': `KEYS#${userId}` },
    });
  }

  async revokeOwnedApiKey(userId: string, keyId: string, revokedAt: string): Promise<boolean> {
    if (await this.revokeCounted(userId, keyId, revokedAt)) return true;
    return writtenIfConditionHolds(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: { pk: `KEY#${keyId}`, sk: 'KEY' },
          // Revoking twice keeps the first time (as the admin CLI's revoke).
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
          ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
          ExpressionAttributeValues: { ':revokedAt': revokedAt, ':userId': userId },
        }),
      ),
    );
  }
}
