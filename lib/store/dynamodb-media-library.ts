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
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MediaItem } from '../domain/model.js';
import type { MediaLibraryStore } from '../use-cases/ports/media-upload.js';
import { DirectoryTable, directoryKeys as keys, type DirectoryTableOptions } from './directory-table.js';
import { mediaRecord, toMediaItem } from './dynamodb-media-store.js';

const BY_OWNER_INDEX = 'byOwner';
/** A transaction retried on TransactionConflict (another write held the profile item). */
const TRANSACTION_ATTEMPTS = 8;

export class DynamoDbMediaLibraryStore implements MediaLibraryStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    const table = DirectoryTable.from(options);
    this.tableName = table.name;
    this.client = table.client;
  }

  async add(item: MediaItem, quotaBytes: number): Promise<'added' | 'exists' | 'over_quota'> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
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
            ],
          }),
        );
        return 'added';
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
        if (codes[0] === 'ConditionalCheckFailed') return 'exists';
        if (codes[1] === 'ConditionalCheckFailed') return 'over_quota';
        if (!codes.includes('TransactionConflict') || attempt >= TRANSACTION_ATTEMPTS) throw error;
        await backoff(attempt);
      }
    }
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

  async remove(item: MediaItem): Promise<void> {
    // A counted item gives its bytes back in the same write that deletes it, so they come back once.
    const stored = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keys.media(item.id), ConsistentRead: true }));
    const counted = stored.Item?.countedBytes;
    if (typeof counted !== 'number') {
      await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.media(item.id) }));
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
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
        if (!(error instanceof TransactionCanceledException)) throw error;
        const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
        // Removed meanwhile (by a concurrent delete): its bytes went back with it.
        if (codes[0] === 'ConditionalCheckFailed') return;
        if (!codes.includes('TransactionConflict') || attempt >= TRANSACTION_ATTEMPTS) throw error;
        await backoff(attempt);
      }
    }
  }
}
