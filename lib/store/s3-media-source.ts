/**
 * Media library files read from the media bucket for the platform adapters, a range at a time, so
 * a large video is never held in memory whole. Only objects of the media library are read (the
 * post names media ids; the object key comes from the library item), never a URL from a caller.
 *
 * A read is one S3 GetObject sent as a plain HTTPS GET, signed and tried again on transient
 * answers by s3-signed-requests.ts (no S3 client in the publish worker's bundle).
 */
import { DependencyError } from '../domain/errors.js';
import type { MediaItem } from '../domain/model.js';
import type { MediaSourceFactory } from '../use-cases/ports/media.js';
import type { PlatformMediaSource } from '../use-cases/ports/platform-publisher.js';
import { S3SignedRequests, type S3SignedRequestsOptions } from './s3-signed-requests.js';

/** One range of a video is a few megabytes: far less than this even on a slow link. */
const READ_TIMEOUT_MS = 30_000;

export type S3MediaSourceOptions = Omit<S3SignedRequestsOptions, 'timeoutMs'>;

export class S3MediaSourceFactory implements MediaSourceFactory {
  private readonly s3: S3SignedRequests;

  constructor(options: S3MediaSourceOptions = {}) {
    this.s3 = new S3SignedRequests({ ...options, timeoutMs: READ_TIMEOUT_MS });
    // Resolved now: a worker without MEDIA_BUCKET fails when it is built, not at its first media post.
    void this.s3.bucket;
  }

  open(item: MediaItem): PlatformMediaSource {
    return {
      contentType: item.contentType,
      sizeBytes: item.sizeBytes,
      durationSeconds: item.durationSeconds,
      altText: item.altText ?? null,
      read: async (range) => {
        try {
          return await this.s3.read(item.objectKey, range);
        } catch (error) {
          throw new DependencyError(`Could not read media ${item.id} from the media bucket`, { cause: error });
        }
      },
    };
  }
}
