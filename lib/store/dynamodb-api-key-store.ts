/**
 * API keys in the directory table (item KEY#<keyId>/KEY; layout in lib/store/tables.ts). Only the
 * secret's hash is stored. The item also carries the byOwner keys gsi1pk KEYS#<userId>, so the
 * settings keys page lists and counts a user's keys with one Query; revoking from settings is
 * conditioned on the owner. A key's last use lives in the counters table (dynamodb-key-use-store.ts).
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { DirectoryRecordNotFoundError } from '../domain/directory-errors.js';
import { SCOPES, type ApiKeyRecord } from '../domain/model.js';
import type { ApiKeyAdmin, ApiKeyReader } from '../use-cases/ports/api-keys.js';
import type { ApiKeyStore, ApiKeySummary } from '../use-cases/settings/ports.js';
import { countQuery } from './count-query.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, isConditionFailure, type DirectoryTableOptions, type Item } from './directory-table.js';
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
    await this.table.putNew('api_key', key.id, {
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

  async revokeApiKey(keyId: string, revokedAt: string): Promise<string> {
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
    try {
      await this.table.client.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: { pk: `KEY#${keyId}`, sk: 'KEY' },
          // Revoking twice keeps the first time (as the admin CLI's revoke).
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
          ConditionExpression: 'attribute_exists(pk) AND userId = :userId',
          ExpressionAttributeValues: { ':revokedAt': revokedAt, ':userId': userId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
