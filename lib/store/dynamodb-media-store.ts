/** Media library items in the directory table (item MEDIA#<id>/MEDIA; layout in lib/store/tables.ts). The files are in the media bucket. */
import * as v from 'valibot';
import type { MediaItem } from '../domain/model.js';
import type { MediaAdmin, MediaReader } from '../use-cases/ports/media.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, type DirectoryTableOptions } from './directory-table.js';

const MEDIA_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  url: v.string(),
  contentType: v.string(),
  sizeBytes: v.number(),
  durationSeconds: v.nullish(v.number(), null),
  pageCount: v.optional(v.number()),
  objectKey: v.string(),
  createdAt: v.string(),
});

export function toMediaItem(item: Record<string, unknown>): MediaItem {
  return readDirectoryItem(MEDIA_ITEM, item);
}

/** The byOwner index keys of a media item, in a partition of its own so GET /accounts never sees one. */
export function mediaOwnerIndexKeys(item: Pick<MediaItem, 'userId' | 'createdAt' | 'id'>): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `MEDIA#USER#${item.userId}`, gsi1sk: `${item.createdAt}#${item.id}` };
}

/**
 * The stored media item, written alike by the admin CLI's media add and the settings upload
 * (dynamodb-media-library.ts): the item the create path reads, with its byOwner keys.
 */
export function mediaRecord(item: MediaItem): Record<string, unknown> {
  return {
    ...directoryKeys.media(item.id),
    ...mediaOwnerIndexKeys(item),
    type: 'media',
    id: item.id,
    userId: item.userId,
    url: item.url,
    contentType: item.contentType,
    sizeBytes: item.sizeBytes,
    durationSeconds: item.durationSeconds,
    // Only PDFs carry it, so image and video items stay as they were.
    ...(item.pageCount !== undefined && item.pageCount !== null ? { pageCount: item.pageCount } : {}),
    objectKey: item.objectKey,
    createdAt: item.createdAt,
  };
}

export class DynamoDbMediaStore implements MediaReader, MediaAdmin {
  private readonly table: DirectoryTable;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    this.table = DirectoryTable.from(options);
  }

  async getMediaItems(mediaIds: string[]): Promise<Map<string, MediaItem>> {
    const items = await this.table.batchGet(mediaIds.map(directoryKeys.media));
    return new Map(
      items.map((item) => {
        const media = readDirectoryItem(MEDIA_ITEM, item);
        return [media.id, media] as const;
      }),
    );
  }

  async putMediaItem(item: MediaItem): Promise<void> {
    await this.table.putNew('media', item.id, mediaRecord(item));
  }
}
