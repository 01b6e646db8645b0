/**
 * The media library's records (lib/use-cases/ports/media-upload.ts) in the directory table: the same
 * `MEDIA#<mediaId>` / `MEDIA` item the create path reads (dynamodb-media-store.ts's
 * getMediaItems), plus byOwner index keys under a partition of their own,
 * `MEDIA#USER#<userId>` / `<createdAt>#<mediaId>`, so the library page is one Query, newest first,
 * and GET /accounts (gsi1pk `USER#<userId>`) never sees a media item.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { MediaItem } from '../domain/model.js';
import type { MediaLibraryStore } from '../use-cases/ports/media-upload.js';
import { DirectoryTable, directoryKeys as keys, type DirectoryTableOptions } from './directory-table.js';
import { mediaRecord, toMediaItem } from './dynamodb-media-store.js';

const BY_OWNER_INDEX = 'byOwner';

export class DynamoDbMediaLibraryStore implements MediaLibraryStore {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    const table = DirectoryTable.from(options);
    this.tableName = table.name;
    this.client = table.client;
  }

  async add(item: MediaItem): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: mediaRecord(item),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
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
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: keys.media(item.id) }));
  }
}
