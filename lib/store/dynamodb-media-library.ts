/**
 * The media library's records (lib/use-cases/ports/media-upload.ts) in the directory table: the same
 * `MEDIA#<mediaId>` / `MEDIA` item the create path reads (dynamodb-media-store.ts's
 * getMediaItems), plus byOwner index keys under a partition of their own,
 * `MEDIA#USER#<userId>` / `<createdAt>#<mediaId>`, so the library page is one Query, newest first,
 * and GET /accounts (gsi1pk `USER#<userId>`) never sees a media item.
 *
 * The storage quota is a count on the owner's profile item, `mediaBytes`, changed in the same
 * transaction as the item: adding one is conditioned on the total staying within the quota, so
 * concurrent registrations cannot pass it together; removing a counted item (`countedBytes`)
 * takes its bytes off, once. Items made before the quota, or by the admin CLI, are not counted.
 */
import { backoff } from './transaction-backoff.js';
import { transactWithRetry } from './transactions.js';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { PageKey } from '../domain/cursor.js';
import type { IdempotencyCompletion } from '../domain/idempotency-record.js';
import type { MediaItem, MediaStatus } from '../domain/model.js';
import type { MediaLibraryStore, MediaPage, ReadyFile } from '../use-cases/ports/media-upload.js';
import { IdempotencyLockLostError, idempotencyCompletionUpdate } from './idempotency-record-writes.js';
import { IDEMPOTENCY_TABLE } from './tables.js';
import { DirectoryTable, directoryKeys as keys, type DirectoryTableOptions } from './directory-table.js';
import { MEDIA_DUE_PARTITION, mediaDueIndexKeys, mediaRecord, toMediaItem } from './dynamodb-media-store.js';

const BY_OWNER_INDEX = 'byOwner';
const BY_MEDIA_DUE_INDEX = 'byMediaDue';
/** A transaction retried on TransactionConflict (another write held the profile item). */
const TRANSACTION_ATTEMPTS = 8;

/** Items a filtered list reads at most per page it answers: a page of one status is never a walk of the whole library. */
const MAX_FILTER_ROUNDS = 10;

export class DynamoDbMediaLibraryStore implements MediaLibraryStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;
  private idempotency: string | undefined;

  /** The idempotency table is read at its first use: only the API's media writes complete records there. */
  constructor(options: (DirectoryTableOptions | DirectoryTable) & { idempotencyTable?: string } = {}) {
    const table = DirectoryTable.from(options);
    this.tableName = table.name;
    this.client = table.client;
    this.idempotency = options instanceof DirectoryTable ? undefined : options.idempotencyTable;
  }

  private get idempotencyTable(): string {
    this.idempotency ??= requireEnv(IDEMPOTENCY_TABLE.envVar);
    return this.idempotency;
  }

  /**
   * A new item not yet ready (an upload waiting for its bytes, an import), with the request's
   * idempotency record completed in the same transaction. Counts nothing against the quota.
   */
  async addPending(item: MediaItem, remember: IdempotencyCompletion | null): Promise<void> {
    const completion = remember ? [{ Update: idempotencyCompletionUpdate(this.idempotencyTable, remember.lock, remember.response) }] : [];
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: this.tableName, Item: mediaRecord(item), ConditionExpression: 'attribute_not_exists(pk)' } }, ...completion],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException && error.CancellationReasons?.[1]?.Code === 'ConditionalCheckFailed') throw new IdempotencyLockLostError();
      throw error;
    }
  }

  /**
   * The item becomes ready with what was checked, and its bytes are added to the owner's total, in
   * one transaction conditioned on the item still being the owner's and not yet ready or failed
   * ('not_pending': another complete won, or a delete came first) and on the quota ('over_quota').
   */
  async markReady(
    item: Pick<MediaItem, 'id' | 'userId'>,
    file: ReadyFile,
    quotaBytes: number,
    remember: IdempotencyCompletion | null,
  ): Promise<'ready' | 'not_pending' | 'over_quota'> {
    const completion = remember ? [{ Update: idempotencyCompletionUpdate(this.idempotencyTable, remember.lock, remember.response) }] : [];
    return transactWithRetry<'ready' | 'not_pending' | 'over_quota'>(this.client, [
        {
          Update: {
            TableName: this.tableName,
            Key: keys.media(item.id),
            UpdateExpression:
              'SET #status = :ready, #url = :url, objectKey = :objectKey, contentType = :contentType, sizeBytes = :size, countedBytes = :size, ' +
              'durationSeconds = :duration, width = :width, height = :height, updatedAt = :at' +
              (file.pageCount !== null ? ', pageCount = :pages' : '') +
              // Settled: out of the sweeper's byMediaDue index.
              ' REMOVE #error, dueAt, mediaDuePk, mediaDueSk',
            ConditionExpression: 'userId = :owner AND #status IN (:pending, :processing)',
            ExpressionAttributeNames: { '#status': 'status', '#url': 'url', '#error': 'error' },
            ExpressionAttributeValues: {
              ':ready': 'ready',
              ':pending': 'pending',
              ':processing': 'processing',
              ':owner': item.userId,
              ':url': file.url,
              ':objectKey': file.objectKey,
              ':contentType': file.contentType,
              ':size': file.sizeBytes,
              ':duration': file.durationSeconds,
              ':width': file.width,
              ':height': file.height,
              ':at': file.updatedAt,
              ...(file.pageCount !== null ? { ':pages': file.pageCount } : {}),
            },
          },
        },
        {
          Update: {
            TableName: this.tableName,
            Key: keys.user(item.userId),
            UpdateExpression: 'SET mediaBytes = if_not_exists(mediaBytes, :zero) + :size',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(mediaBytes) OR mediaBytes <= :room)',
            ExpressionAttributeValues: { ':zero': 0, ':size': file.sizeBytes, ':room': quotaBytes - file.sizeBytes },
          },
        },
        ...completion,
      ], {
      attempts: TRANSACTION_ATTEMPTS,
      written: 'ready',
      cancelled: (codes) => {
        if (codes[0] === 'ConditionalCheckFailed') return 'not_pending';
        if (codes[1] === 'ConditionalCheckFailed') return 'over_quota';
        if (codes[2] === 'ConditionalCheckFailed') throw new IdempotencyLockLostError();
        return undefined;
      },
    });
  }

  /** The item becomes failed with why, if it is still the owner's and not ready or failed; false otherwise. */
  async markFailed(item: Pick<MediaItem, 'id' | 'userId'>, failure: { code: string; message: string }, at: string): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.media(item.id),
          UpdateExpression: 'SET #status = :failed, #error = :error, updatedAt = :at REMOVE dueAt, mediaDuePk, mediaDueSk',
          ConditionExpression: 'userId = :owner AND #status IN (:pending, :processing)',
          ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
          ExpressionAttributeValues: { ':failed': 'failed', ':error': failure, ':at': at, ':owner': item.userId, ':pending': 'pending', ':processing': 'processing' },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /**
   * A worker takes an import on: it must still be processing, due as read (`item.dueAt`: nobody
   * took it since), and free (never taken, or its last worker's lease has ended by `now`). Its
   * due time becomes the lease's end, and its claims go up by one. False when another worker won.
   */
  async claimImport(item: Pick<MediaItem, 'id' | 'dueAt'>, now: Date, leaseUntil: Date): Promise<boolean> {
    if (!item.dueAt) return false;
    const due = mediaDueIndexKeys(item.id, leaseUntil.toISOString());
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.media(item.id),
          UpdateExpression: 'SET dueAt = :lease, mediaDuePk = :duePk, mediaDueSk = :dueSk ADD importClaims :one',
          ConditionExpression: '#status = :processing AND dueAt = :seen AND (attribute_not_exists(importClaims) OR importClaims = :zero OR dueAt <= :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processing': 'processing',
            ':seen': item.dueAt,
            ':now': now.toISOString(),
            ':zero': 0,
            ':one': 1,
            ':lease': leaseUntil.toISOString(),
            ':duePk': due.mediaDuePk,
            ':dueSk': due.mediaDueSk,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Ids of media not settled whose due time is at or before `now`, oldest first: one Query on byMediaDue. */
  async dueMedia(now: Date, limit: number): Promise<string[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: BY_MEDIA_DUE_INDEX,
        KeyConditionExpression: 'mediaDuePk = :pk AND mediaDueSk <= :until',
        ExpressionAttributeValues: { ':pk': MEDIA_DUE_PARTITION, ':until': `${now.toISOString()}#~` },
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => String(item.pk).slice('MEDIA#'.length));
  }

  /** Sets (or, null, removes) the alt text of the owner's item; the item as now stored, or null when it is not the owner's. */
  async setAltText(userId: string, mediaId: string, altText: string | null, at: string): Promise<MediaItem | null> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.media(mediaId),
          UpdateExpression: altText === null ? 'SET updatedAt = :at REMOVE altText' : 'SET altText = :alt, updatedAt = :at',
          ConditionExpression: 'userId = :owner',
          ExpressionAttributeValues: { ':at': at, ':owner': userId, ...(altText === null ? {} : { ':alt': altText }) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes ? toMediaItem(out.Attributes) : null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  /**
   * A page of the owner's items, newest first (one Query on byOwner per round); with a status, the
   * others are filtered out and the Query goes on (at most MAX_FILTER_ROUNDS rounds) to fill the page.
   */
  async listPage(userId: string, query: { limit: number; startKey: PageKey | null; status: MediaStatus | null }): Promise<MediaPage> {
    const partition = `MEDIA#USER#${userId}`;
    let startKey: Record<string, unknown> | undefined;
    if (query.startKey !== null) {
      const { pk, sk, gsi1pk, gsi1sk } = query.startKey;
      if (gsi1pk !== partition || !pk?.startsWith('MEDIA#') || sk !== 'MEDIA' || !gsi1sk) throw Object.assign(new Error('The page key is not of this list'), { code: 'invalid_page_key' });
      startKey = { pk, sk, gsi1pk, gsi1sk };
    }
    const wanted = query.limit + 1;
    const items: MediaItem[] = [];
    for (let round = 0; round < (query.status === null ? 1 : MAX_FILTER_ROUNDS) && items.length < wanted; round++) {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_OWNER_INDEX,
          KeyConditionExpression: 'gsi1pk = :owner',
          ExpressionAttributeValues: { ':owner': partition },
          ScanIndexForward: false,
          Limit: wanted - items.length,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const raw of out.Items ?? []) {
        const item = toMediaItem(raw);
        if (query.status === null || (item.status ?? 'ready') === query.status) items.push(item);
      }
      startKey = out.LastEvaluatedKey;
      if (!startKey) break;
    }
    const page = items.slice(0, query.limit);
    const last = page[page.length - 1];
    // More may follow when the page is full and the index was not read to its end.
    const more = last !== undefined && (items.length > query.limit || (startKey !== undefined && page.length === query.limit));
    return {
      items: page,
      nextKey: more ? { pk: `MEDIA#${last.id}`, sk: 'MEDIA', gsi1pk: partition, gsi1sk: `${last.createdAt}#${last.id}` } : null,
    };
  }

  async add(item: MediaItem, quotaBytes: number): Promise<'added' | 'exists' | 'over_quota'> {
    return transactWithRetry<'added' | 'exists' | 'over_quota'>(this.client, [
        { Put: { TableName: this.tableName, Item: { ...mediaRecord(item), countedBytes: item.sizeBytes }, ConditionExpression: 'attribute_not_exists(pk)' } },
        {
          Update: {
            TableName: this.tableName,
            Key: keys.user(item.userId),
            UpdateExpression: 'SET mediaBytes = if_not_exists(mediaBytes, :zero) + :size',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(mediaBytes) OR mediaBytes <= :room)',
            ExpressionAttributeValues: { ':zero': 0, ':size': item.sizeBytes, ':room': quotaBytes - item.sizeBytes },
          },
        },
      ], {
      attempts: TRANSACTION_ATTEMPTS,
      written: 'added',
      cancelled: (codes) => {
        if (codes[0] === 'ConditionalCheckFailed') return 'exists';
        if (codes[1] === 'ConditionalCheckFailed') return 'over_quota';
        return undefined;
      },
    });
  }

  async storedBytes(userId: string): Promise<number> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.user(userId), ProjectionExpression: 'mediaBytes', ConsistentRead: true }),
    );
    const bytes = out.Item?.mediaBytes;
    return typeof bytes === 'number' && bytes > 0 ? bytes : 0;
  }

  async get(mediaId: string): Promise<MediaItem | null> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.media(mediaId), ConsistentRead: true }));
    return out.Item ? toMediaItem(out.Item) : null;
  }

  async list(userId: string, limit: number): Promise<MediaItem[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: BY_OWNER_INDEX,
        KeyConditionExpression: 'gsi1pk = :owner',
        ExpressionAttributeValues: { ':owner': `MEDIA#USER#${userId}` },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map(toMediaItem);
  }

  /**
   * Deletes the item, giving a counted item's bytes back in the same write, so they come back
   * once. Each delete is conditioned on the item as read (counted or not), so an item that a
   * complete made ready (and counted) meanwhile is read again, never deleted with its bytes kept.
   */
  async remove(item: MediaItem): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const stored = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.media(item.id), ConsistentRead: true }));
      if (!stored.Item) return;
      const counted = stored.Item.countedBytes;
      try {
        if (typeof counted !== 'number') {
          await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.media(item.id), ConditionExpression: 'attribute_not_exists(countedBytes)' }));
          return;
        }
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: this.tableName, Key: keys.media(item.id), ConditionExpression: 'countedBytes = :counted', ExpressionAttributeValues: { ':counted': counted } } },
              { Update: { TableName: this.tableName, Key: keys.user(item.userId), UpdateExpression: 'ADD mediaBytes :minus', ExpressionAttributeValues: { ':minus': -counted } } },
            ],
          }),
        );
        return;
      } catch (error) {
        // Changed since it was read (a complete counted it, or a concurrent delete): read it again.
        const changed =
          error instanceof ConditionalCheckFailedException ||
          (error instanceof TransactionCanceledException && (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed' || reason.Code === 'TransactionConflict'));
        if (!changed || attempt >= TRANSACTION_ATTEMPTS) throw error;
        await backoff(attempt);
      }
    }
  }
}
