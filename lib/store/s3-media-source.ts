/**
 * Media library files read from the media bucket for the platform adapters, a range at a time, so
 * a large video is never held in memory whole. Only objects of the media library are read (the
 * post names media ids; the object key comes from the library item), never a URL from a caller.
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ENV, requireEnv } from '../config.js';
import { DependencyError } from '../domain/errors.js';
import type { MediaItem } from '../domain/model.js';
import type { MediaSourceFactory, PlatformMediaSource } from '../ports.js';

let sharedClient: S3Client | undefined;

function client(): S3Client {
  // Path-style for the local S3 emulator (`<bucket>.localhost` does not resolve there).
  sharedClient ??= new S3Client({ forcePathStyle: process.env[ENV.mediaForcePathStyle] === 'true' });
  return sharedClient;
}

export class S3MediaSourceFactory implements MediaSourceFactory {
  private readonly bucket: string;

  constructor(options: { bucket?: string; client?: S3Client } = {}) {
    this.bucket = options.bucket ?? requireEnv(ENV.mediaBucket);
    if (options.client) sharedClient = options.client;
  }

  open(item: MediaItem): PlatformMediaSource {
    return {
      contentType: item.contentType,
      sizeBytes: item.sizeBytes,
      durationSeconds: item.durationSeconds,
      read: async (range) => {
        try {
          const out = await client().send(
            new GetObjectCommand({
              Bucket: this.bucket,
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
