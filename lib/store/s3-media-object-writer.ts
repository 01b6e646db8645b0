/**
 * Writes media library files to the media bucket (media-bucket.ts: its name and addressing). Used
 * by the admin CLI and the tests only, never by a Lambda function, so the S3 client it needs is
 * in no function bundle. The client is built on first use and shared by every writer of the
 * process.
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { MediaObjectWriter } from '../use-cases/ports/media.js';
import { mediaBucket, type MediaBucket, type MediaBucketOptions } from './media-bucket.js';
import { putObjectInParts } from './s3-put-in-parts.js';

export interface S3MediaObjectWriterOptions extends MediaBucketOptions {
  /** The shared client when not given. */
  client?: S3Client;
}

let sharedClient: S3Client | undefined;

export class S3MediaObjectWriter implements MediaObjectWriter {
  private readonly bucket: MediaBucket;
  private readonly givenClient: S3Client | undefined;

  constructor(options: S3MediaObjectWriterOptions = {}) {
    this.bucket = mediaBucket(options);
    this.givenClient = options.client;
  }

  private client(): S3Client {
    if (this.givenClient) return this.givenClient;
    sharedClient ??= new S3Client({ forcePathStyle: this.bucket.forcePathStyle });
    return sharedClient;
  }

  async putObject(objectKey: string, body: Uint8Array, contentType: string): Promise<void> {
    // In parts past 8 MiB: the local S3 emulator refuses a larger request (s3-put-in-parts.ts).
    await putObjectInParts(this.client(), { Bucket: this.bucket.name, Key: objectKey, ContentType: contentType }, body);
  }
}
