/** Media library items in the directory table (item MEDIA#<id>/MEDIA; layout in lib/store/tables.ts). The files are in the media bucket. */
import * as v from 'valibot';
import { mediaDueSortKey } from '../domain/media-import.js';
import { MEDIA_STATUSES, mediaStatus, type MediaItem } from '../domain/model.js';
import type { MediaAdmin, MediaReader } from '../use-cases/ports/media.js';
import { DirectoryTable, directoryKeys, readDirectoryItem, type DirectoryTableOptions } from './directory-table.js';

const MEDIA_ITEM = v.object({
  id: v.string(),
  userId: v.string(),
  // A file not ready yet has no URL (model.ts MediaItem.status).
  url: v.optional(v.string(), ''),
  contentType: v.string(),
  sizeBytes: v.number(),
  durationSeconds: v.nullish(v.number(), null),
  pageCount: v.optional(v.number()),
  objectKey: v.string(),
  createdAt: v.string(),
  status: v.optional(v.picklist(MEDIA_STATUSES)),
  fileName: v.optional(v.string()),
  altText: v.optional(v.nullable(v.string())),
  width: v.optional(v.nullable(v.number())),
  height: v.optional(v.nullable(v.number())),
  error: v.optional(v.nullable(v.object({ code: v.string(), message: v.string() }))),
  updatedAt: v.optional(v.string()),
  sourceUrl: v.optional(v.string()),
  dueAt: v.optional(v.nullable(v.string())),
  importClaims: v.optional(v.number()),
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
    ...(item.url !== '' ? { url: item.url } : {}),
    contentType: item.contentType,
    sizeBytes: item.sizeBytes,
    durationSeconds: item.durationSeconds,
    // Only PDFs carry it, so image and video items stay as they were.
    ...(item.pageCount !== undefined && item.pageCount !== null ? { pageCount: item.pageCount } : {}),
    objectKey: item.objectKey,
    createdAt: item.createdAt,
    // The API's fields (beyond-v2.md), written only when set, so older items stay as they were.
    ...(item.status !== undefined ? { status: item.status } : {}),
    ...(item.fileName !== undefined ? { fileName: item.fileName } : {}),
    ...(item.altText !== undefined && item.altText !== null ? { altText: item.altText } : {}),
    ...(item.width !== undefined && item.width !== null ? { width: item.width } : {}),
    ...(item.height !== undefined && item.height !== null ? { height: item.height } : {}),
    ...(item.error !== undefined && item.error !== null ? { error: item.error } : {}),
    ...(item.updatedAt !== undefined ? { updatedAt: item.updatedAt } : {}),
    ...(item.sourceUrl !== undefined ? { sourceUrl: item.sourceUrl } : {}),
    ...(item.dueAt !== undefined && item.dueAt !== null ? { dueAt: item.dueAt, ...mediaDueIndexKeys(item.id, item.dueAt) } : {}),
    ...(item.importClaims !== undefined ? { importClaims: item.importClaims } : {}),
  };
}

/**
 * The byMediaDue index keys of a media not settled yet (lib/store/tables.ts): one partition, as
 * few media are ever waiting at once, sorted by the time the sweeper looks at it.
 */
export const MEDIA_DUE_PARTITION = 'media-due';
export function mediaDueIndexKeys(mediaId: string, dueAt: string): { mediaDuePk: string; mediaDueSk: string } {
  return { mediaDuePk: MEDIA_DUE_PARTITION, mediaDueSk: mediaDueSortKey(new Date(dueAt), mediaId) };
}

export class DynamoDbMediaStore implements MediaReader, MediaAdmin {
  private readonly table: DirectoryTable;

  constructor(options: DirectoryTableOptions | DirectoryTable = {}) {
    this.table = DirectoryTable.from(options);
  }

  /** Ready files only: one still uploading, importing or failed is not a file a post may use. */
  async getMediaItems(mediaIds: string[]): Promise<Map<string, MediaItem>> {
    const items = await this.table.batchGet(mediaIds.map(directoryKeys.media));
    return new Map(
      items
        .map((item) => readDirectoryItem(MEDIA_ITEM, item))
        .filter((media) => mediaStatus(media) === 'ready')
        .map((media) => [media.id, media] as const),
    );
  }

  async putMediaItem(item: MediaItem): Promise<void> {
    await this.table.putNew('media', item.id, mediaRecord(item));
  }
}
