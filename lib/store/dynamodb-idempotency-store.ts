/**
 * Idempotency records of POST /posts (api-v1.md "Idempotency", decisions.md "Idempotency") in the
 * idempotency table: pk = USER#<userId>#<key>, TTL attribute expiresAt (epoch seconds, 24 h).
 *
 * Why not the Powertools idempotency utility: it keys records by a hash of the payload and caches
 * whatever the handler returns, while the contract needs the key scoped to the user with the body
 * compared separately (422 on a different body), only a 202 remembered, and - the part that matters
 * most - the record completed in the SAME DynamoDB transaction that writes the posts, so a crash can
 * never leave posts written without the response that a retry must replay (which would create them
 * twice). That transaction is the post store's (or the webhook store's); this module owns the
 * record's layout, and idempotency-record-writes.ts the completing update those stores add to it.
 * The rest is one conditional PutItem and one DeleteItem.
 *
 * Timeline (the condition of `claim` decides every case in one request, like Powertools'
 * persistence layer, with the existing record returned by ReturnValuesOnConditionCheckFailure
 * instead of a second read):
 *
 *   request A                                   request B, same user + key
 *   ─────────                                   ──────────────────────────
 *   PutItem in_progress, hash, lockToken,
 *     lockExpiresAt = now + 20 s (IDEMPOTENCY_LOCK_MS)
 *     IF no record, or record past expiresAt,
 *        or (in_progress AND lock expired)  →  ok
 *                                              PutItem (same condition) fails, old record returned:
 *                                                hash differs           → 422 idempotency_key_reused
 *                                                in_progress, lock live → 409 idempotency_in_flight
 *   validate, resolve accounts ...
 *   refused (400 …)  → DeleteItem IF lockToken = A's   (the key is free again: rule 5)
 *   or TransactWriteItems [posts…, allowance,
 *     record: completed + response IF lockToken = A's]
 *                                              PutItem fails, record completed, same hash
 *                                                → the stored 202 replayed (Idempotent-Replayed: true)
 *   A crashed before either? B may take the key over once lockExpiresAt has passed; A's late
 *   transaction then fails its lockToken condition and writes nothing.
 */
import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as v from 'valibot';
import { requireEnv } from '../config.js';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from '../domain/idempotency.js';
import { randomToken } from '../domain/ids.js';
import type { IdempotencyClaim, IdempotencyLock } from '../domain/idempotency-record.js';
import type { IdempotencyStore } from '../use-cases/ports/idempotency-store.js';
import { documentClient } from './dynamo-client.js';
import { readItem, StoredItemError } from './item-schema.js';
import { idempotencyRecordDelete, idempotencyRecordKey } from './idempotency-record-writes.js';
import { IDEMPOTENCY_TABLE } from './tables.js';

/** A record as `claim` and the completing update write it: the response only once completed. */
const IDEMPOTENCY_RECORD = v.variant('status', [
  v.object({ status: v.literal('in_progress'), bodyHash: v.string() }),
  v.object({ status: v.literal('completed'), bodyHash: v.string(), responseStatus: v.number(), responseBody: v.string() }),
]);

export interface DynamoDbIdempotencyStoreOptions {
  tableName?: string;
  client?: DynamoDBDocumentClient;
}

export class DynamoDbIdempotencyStore implements IdempotencyStore {
  readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: DynamoDbIdempotencyStoreOptions = {}) {
    this.tableName = options.tableName ?? requireEnv(IDEMPOTENCY_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async claim(userId: string, key: string, bodyHash: string, now: Date): Promise<IdempotencyClaim> {
    const lock: IdempotencyLock = { userId, key, lockToken: randomToken(24) };
    const nowMs = now.getTime();
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...idempotencyRecordKey(userId, key),
            status: 'in_progress',
            bodyHash,
            lockToken: lock.lockToken,
            lockExpiresAt: nowMs + IDEMPOTENCY_LOCK_MS,
            // DynamoDB TTL reads epoch seconds; deletion can lag, so the condition checks it too.
            expiresAt: Math.floor((nowMs + IDEMPOTENCY_TTL_MS) / 1000),
          },
          ConditionExpression:
            'attribute_not_exists(pk) OR expiresAt < :nowSeconds OR (#status = :inProgress AND lockExpiresAt < :nowMs)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':nowSeconds': Math.floor(nowMs / 1000),
            ':nowMs': nowMs,
            ':inProgress': 'in_progress',
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { outcome: 'started', lock };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return this.existing(error.Item, userId, bodyHash);
    }
  }

  async release(lock: IdempotencyLock): Promise<void> {
    try {
      await this.client.send(new DeleteCommand(idempotencyRecordDelete(this.tableName, lock)));
    } catch (error) {
      // Someone took the key over after our lock expired: the record is theirs now.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private existing(item: Record<string, AttributeValue> | undefined, userId: string, bodyHash: string): IdempotencyClaim {
    // Names the user, not the caller's key (the caller's own string, kept out of logs).
    const what = `An idempotency record of USER#${userId}`;
    // The condition failed, so a live record exists; DynamoDB returns it with the failure.
    if (!item) throw new StoredItemError(what, 'item (not returned with the failed condition)');
    // The document client does not unmarshall an error's item.
    const record = readItem(IDEMPOTENCY_RECORD, unmarshall(item), what);
    if (record.bodyHash !== bodyHash) return { outcome: 'body_mismatch' };
    if (record.status === 'in_progress') return { outcome: 'in_flight' };
    return { outcome: 'replay', response: { status: record.responseStatus, body: JSON.parse(record.responseBody) as unknown } };
  }
}
