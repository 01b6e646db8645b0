/**
 * The media bucket as the media library's writer (admin CLI, tests; s3-media-object-writer.ts),
 * reader (publish worker; s3-media-source.ts) and settings' uploads (s3-media-uploads.ts) address
 * it: its name (MEDIA_BUCKET unless given) and whether requests use path-style addressing
 * (MEDIA_FORCE_PATH_STYLE=true: the local S3 emulator needs it because `<bucket>.localhost` does
 * not resolve). No SDK client here: the writer builds the S3 client it needs, the functions sign
 * plain requests (s3-signed-requests.ts), so no function bundle carries an S3 client.
 *
 * Read when an adapter is built, not at import, so a process that sets the variables before its
 * first media call gets them.
 */
import { ENV, requireEnv } from '../config.js';

export interface MediaBucketOptions {
  /** MEDIA_BUCKET when not given. */
  bucket?: string;
}

export interface MediaBucket {
  name: string;
  forcePathStyle: boolean;
}

export function mediaBucket(options: MediaBucketOptions = {}): MediaBucket {
  return {
    name: options.bucket ?? requireEnv(ENV.mediaBucket),
    forcePathStyle: process.env[ENV.mediaForcePathStyle] === 'true',
  };
}
