/** Writes media library files to the media bucket (media-bucket.ts: its name and shared client). */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { MediaObjectWriter } from '../ports.js';
import { mediaBucket, type MediaBucket, type MediaBucketOptions } from './media-bucket.js';

export class S3MediaObjectWriter implements MediaObjectWriter {
  private readonly bucket: MediaBucket;

  constructor(options: MediaBucketOptions = {}) {
    this.bucket = mediaBucket(options);
  }

  async putObject(objectKey: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.bucket
      .client()
      .send(new PutObjectCommand({ Bucket: this.bucket.name, Key: objectKey, Body: body, ContentType: contentType }));
  }
}
