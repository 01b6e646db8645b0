/**
 * When each API key was last used, for the settings keys page: one item per key in the counters
 * table (`LASTUSED#KEY#<keyId>`, attribute lastUsedAt), beside the rate counters every API
 * function already writes, so recording a use needs no grant beyond the API path's own.
 *
 * Cheap by construction: "last used" is shown to the hour, so a key's item is written at most
 * once per LAST_USED_RESOLUTION_MS. A process remembers when it last wrote each key and does not
 * try again within the interval; processes racing on the same key are settled by the write's
 * condition, so the item changes at most once per interval whatever the concurrency.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { ApiKeyUseReader, ApiKeyUseRecorder } from '../use-cases/settings/ports.js';
import { batchGetAll } from './batch-get.js';
import { documentClient } from './dynamo-client.js';
import { COUNTERS_TABLE } from './tables.js';

export const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;
/** Bound on the per-process memory of writes; the oldest entry goes first. */
const MAX_REMEMBERED = 10_000;

const keyOf = (keyId: string): { pk: string } => ({ pk: `LASTUSED#KEY#${keyId}` });

export class DynamoDbKeyUseStore implements ApiKeyUseRecorder, ApiKeyUseReader {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;
  private readonly written = new Map<string, number>();

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(COUNTERS_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async recordUse(keyId: string, now: Date): Promise<void> {
    const nowMs = now.getTime();
    const last = this.written.get(keyId);
    if (last !== undefined && nowMs - last < LAST_USED_RESOLUTION_MS) return;
    this.written.delete(keyId);
    this.written.set(keyId, nowMs);
    if (this.written.size > MAX_REMEMBERED) this.written.delete(this.written.keys().next().value as string);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(keyId),
          UpdateExpression: 'SET lastUsedAt = :now',
          ConditionExpression: 'attribute_not_exists(lastUsedAt) OR lastUsedAt < :stale',
          ExpressionAttributeValues: { ':now': now.toISOString(), ':stale': new Date(nowMs - LAST_USED_RESOLUTION_MS).toISOString() },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return;
      throw error;
    }
  }

  async lastUsed(keyIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const keys = [...new Set(keyIds)].map(keyOf);
    // What DynamoDB still leaves unprocessed after the retries shows as "never": the read only decorates the key list.
    for (const item of await batchGetAll(this.client, this.tableName, keys, { whenUnprocessed: 'absent' })) {
      if (typeof item.lastUsedAt === 'string') found.set(String(item.pk).slice('LASTUSED#KEY#'.length), item.lastUsedAt);
    }
    return found;
  }
}
