/** API keys in the directory table (item KEY#<keyId>/KEY; layout in lib/store/tables.ts). Only the secret's hash is stored. */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { DirectoryRecordNotFoundError } from '../domain/directory-errors.js';
import { SCOPES, type ApiKeyRecord } from '../domain/model.js';
import type { ApiKeyAdmin, ApiKeyReader } from '../use-cases/ports/api-keys.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, isConditionFailure, type DirectoryTableOptions, type Item } from './directory-table.js';
import { nullableString } from './item-schema.js';

const API_KEY_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  secretHash: v.string(),
  scopes: v.optional(v.array(v.picklist(SCOPES)), () => []),
  createdAt: v.string(),
  revokedAt: nullableString,
});

function toApiKey(item: Item): ApiKeyRecord {
  return readDirectoryItem(API_KEY_ITEM, item);
}

export class DynamoDbApiKeyStore implements ApiKeyReader, ApiKeyAdmin {
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
}
