/**
 * The media bucket as the media library's writer (admin CLI, tests) and reader (publish worker)
 * reach it: its name (MEDIA_BUCKET unless given) and one S3 client shared by both. The client is
 * built on first use rather than at import, so a process that sets MEDIA_FORCE_PATH_STYLE /
 * AWS_ENDPOINT_URL_S3 before its first media call gets them; the local S3 emulator needs
 * path-style addressing because `<bucket>.localhost` does not resolve.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { ENV, requireEnv } from '../config.js';

export interface MediaBucketOptions {
  /** MEDIA_BUCKET when not given. */
  bucket?: string;
  /** The shared client when not given. */
  client?: S3Client;
}

export interface MediaBucket {
  name: string;
  client(): S3Client;
}

let sharedClient: S3Client | undefined;

export function mediaBucket(options: MediaBucketOptions = {}): MediaBucket {
  const name = options.bucket ?? requireEnv(ENV.mediaBucket);
  return {
    name,
    client: () => {
      if (options.client) return options.client;
      sharedClient ??= new S3Client({ forcePathStyle: process.env[ENV.mediaForcePathStyle] === 'true' });
      return sharedClient;
    },
  };
}
