import type { MediaItem } from '../../domain/model.js';
import type { PlatformMediaSource } from './platform-publisher.js';

export interface MediaReader {
  /** BatchGetItem by media id; ids that do not exist are absent from the map. */
  getMediaItems(mediaIds: string[]): Promise<Map<string, MediaItem>>;
}

/** Writes of the account-settings stand-in: a media library item (its file goes through MediaObjectWriter). */
export interface MediaAdmin {
  putMediaItem(item: MediaItem): Promise<void>;
}

/** Where media library files are stored (the media bucket); used by the admin CLI's `media add`. */
export interface MediaObjectWriter {
  putObject(objectKey: string, body: Uint8Array, contentType: string): Promise<void>;
}

/** Opens a media library file (the media bucket) as a source an adapter can read in ranges. */
export interface MediaSourceFactory {
  open(item: MediaItem): PlatformMediaSource;
}
