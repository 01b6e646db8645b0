/**
 * Writes media library files to the media bucket. The client is built once, on first use, so a
 * process that sets MEDIA_FORCE_PATH_STYLE / AWS_ENDPOINT_URL_S3 before its first upload (the
 * admin CLI, tests) gets them; the local S3 emulator needs path-style addressing because
 * `<bucket>.localhost` does not resolve.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ENV, requireEnv } from '../config.js';
import type { MediaObjectWriter } from '../ports.js';

let s3Client: S3Client | undefined;

function sharedClient(): S3Client {
  s3Client ??= new S3Client({ forcePathStyle: process.env[ENV.mediaForcePathStyle] === 'true' });
  return s3Client;
}

export class S3MediaObjectWriter implements MediaObjectWriter {
  private readonly bucket: string;
  private readonly client: S3Client | undefined;

  constructor(options: { bucket?: string; client?: S3Client } = {}) {
    this.bucket = options.bucket ?? requireEnv(ENV.mediaBucket);
    this.client = options.client;
  }

  async putObject(objectKey: string, body: Uint8Array, contentType: string): Promise<void> {
    await (this.client ?? sharedClient()).send(
      new PutObjectCommand({ Bucket: this.bucket, Key: objectKey, Body: body, ContentType: contentType }),
    );
  }
}
