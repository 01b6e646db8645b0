/**
 * A user's media library, newest first: one Query on the directory's byOwner index, where each
 * media item carries gsi1pk = MEDIA#<userId>, gsi1sk = <createdAt>#<mediaId> (never mixed with
 * accounts, whose gsi1pk is USER#<userId>). Used by the assistant server's list_media.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '../config.js';
import type { MediaItem } from '../domain/model.js';
import { documentClient } from './dynamo-client.js';
import { DIRECTORY_TABLE } from './tables.js';

/** More than any library page needs; the assistant is told the list is the newest ones. */
export const MAX_LISTED_MEDIA = 200;

export class DynamoDbMediaLibrary {
  private readonly tableName: string;
  private readonly client: DynamoDBDocumentClient;

  constructor(options: { tableName?: string; client?: DynamoDBDocumentClient } = {}) {
    this.tableName = options.tableName ?? requireEnv(DIRECTORY_TABLE.envVar);
    this.client = options.client ?? documentClient;
  }

  async listMedia(userId: string): Promise<MediaItem[]> {
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'byOwner',
        KeyConditionExpression: 'gsi1pk = :owner',
        ExpressionAttributeValues: { ':owner': `MEDIA#${userId}` },
        ScanIndexForward: false,
        Limit: MAX_LISTED_MEDIA,
      }),
    );
    return (out.Items ?? []).map((item) => ({
      id: String(item.id),
      userId: String(item.userId),
      url: String(item.url),
      contentType: String(item.contentType),
      sizeBytes: Number(item.sizeBytes),
      durationSeconds: typeof item.durationSeconds === 'number' ? item.durationSeconds : null,
      objectKey: String(item.objectKey),
      createdAt: String(item.createdAt),
    }));
  }
}
