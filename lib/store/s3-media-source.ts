/**
 * Media library files read from the media bucket for the platform adapters, a range at a time, so
 * a large video is never held in memory whole. Only objects of the media library are read (the
 * post names media ids; the object key comes from the library item), never a URL from a caller.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { DependencyError } from '../domain/errors.js';
import type { MediaItem } from '../domain/model.js';
import type { MediaSourceFactory, PlatformMediaSource } from '../ports.js';
import { mediaBucket, type MediaBucket, type MediaBucketOptions } from './media-bucket.js';

export class S3MediaSourceFactory implements MediaSourceFactory {
  private readonly bucket: MediaBucket;

  constructor(options: MediaBucketOptions = {}) {
    this.bucket = mediaBucket(options);
  }

  open(item: MediaItem): PlatformMediaSource {
    return {
      contentType: item.contentType,
      sizeBytes: item.sizeBytes,
      durationSeconds: item.durationSeconds,
      read: async (range) => {
        try {
          const out = await this.bucket.client().send(
            new GetObjectCommand({
              Bucket: this.bucket.name,
              Key: item.objectKey,
              ...(range ? { Range: `bytes=${range.start}-${range.end - 1}` } : {}),
            }),
          );
          if (!out.Body) throw new Error('empty body');
          return await out.Body.transformToByteArray();
        } catch (error) {
          throw new DependencyError(`Could not read media ${item.id} from the media bucket`, { cause: error });
        }
      },
    };
  }
}
