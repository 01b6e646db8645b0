/**
 * The media bucket as settings' media library uses it (lib/use-cases/ports/media-upload.ts): presigned
 * POSTs for browser uploads (`@aws-sdk/s3-presigned-post`; the policy pins bucket, key and
 * Content-Type and bounds the size with content-length-range), HeadObject and ranged GetObject to
 * check what arrived, DeleteObject. The S3 client is built on first use, once per process.
 *
 * Locally MEDIA_UPLOAD_URL names the stand-in that checks POST policies (local/s3-browser-upload.ts:
 * the S3 emulator takes no browser POSTs); on AWS it is unset and the form posts to S3 itself.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NotFound, NoSuchKey, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import { ENV } from '../config.js';
import type { MediaUploadStorage, PresignedUpload } from '../use-cases/ports/media-upload.js';
import { mediaBucket, type MediaBucket, type MediaBucketOptions } from './media-bucket.js';

type Condition = NonNullable<PresignedPostOptions['Conditions']>[number];

let sharedClient: S3Client | undefined;

export class S3MediaUploads implements MediaUploadStorage {
  private resolved: MediaBucket | undefined;
  private readonly givenClient: S3Client | undefined;

  /** The bucket is read at first use: the library page lists records and never touches S3. */
  constructor(private readonly options: MediaBucketOptions & { client?: S3Client } = {}) {
    this.givenClient = options.client;
  }

  private get bucket(): MediaBucket {
    this.resolved ??= mediaBucket(this.options);
    return this.resolved;
  }

  private client(): S3Client {
    if (this.givenClient) return this.givenClient;
    sharedClient ??= new S3Client({ forcePathStyle: this.bucket.forcePathStyle });
    return sharedClient;
  }

  async presignUpload(input: { objectKey: string; contentType: string; maxBytes: number; expiresSeconds: number; successRedirect?: string }): Promise<PresignedUpload> {
    const fields: Record<string, string> = { 'Content-Type': input.contentType };
    const conditions: Condition[] = [
      ['eq', '$Content-Type', input.contentType],
      ['content-length-range', 1, input.maxBytes],
    ];
    if (input.successRedirect !== undefined) {
      fields.success_action_redirect = input.successRedirect;
      conditions.push(['eq', '$success_action_redirect', input.successRedirect]);
    }
    const presigned = await createPresignedPost(this.client(), {
      Bucket: this.bucket.name,
      Key: input.objectKey,
      Fields: fields,
      Conditions: conditions,
      Expires: input.expiresSeconds,
    });
    const standIn = process.env[ENV.mediaUploadUrl];
    return {
      url: standIn ? `${standIn.replace(/\/+$/, '')}/${this.bucket.name}` : presigned.url,
      fields: presigned.fields,
      expiresAt: new Date(Date.now() + input.expiresSeconds * 1000).toISOString(),
    };
  }

  async head(objectKey: string): Promise<{ sizeBytes: number; contentType: string } | null> {
    try {
      const out = await this.client().send(new HeadObjectCommand({ Bucket: this.bucket.name, Key: objectKey }));
      return { sizeBytes: out.ContentLength ?? 0, contentType: (out.ContentType ?? '').toLowerCase() };
    } catch (error) {
      if (error instanceof NotFound || error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return null;
      throw error;
    }
  }

  async read(objectKey: string, start: number, end: number): Promise<Uint8Array> {
    if (end <= start) return new Uint8Array(0);
    const out = await this.client().send(new GetObjectCommand({ Bucket: this.bucket.name, Key: objectKey, Range: `bytes=${start}-${end - 1}` }));
    return out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
  }

  async remove(objectKey: string): Promise<void> {
    await this.client().send(new DeleteObjectCommand({ Bucket: this.bucket.name, Key: objectKey }));
  }
}
