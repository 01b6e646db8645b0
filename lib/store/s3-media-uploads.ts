/**
 * The media bucket as the media library uses it (lib/use-cases/ports/media-upload.ts): presigned
 * PUTs for the API's uploads (the size and type signed), presigned POSTs for browser uploads (the policy pins bucket, key and Content-Type and bounds the size with
 * content-length-range), HEAD and ranged GET to check what arrived, DELETE. No S3 client: each is a
 * SigV4-signed request (s3-signed-requests.ts), so the media functions carry no more SDK than the
 * DynamoDB client brings.
 *
 * Locally MEDIA_UPLOAD_URL names the stand-in that checks POST policies and presigned PUTs
 * (local/s3-browser-upload.ts: the S3 emulator takes no browser POSTs and checks no signatures); on
 * AWS it is unset and uploads go to S3 itself.
 */
import type { AwsCredentialIdentity } from '@smithy/types';
import { ENV } from '../config.js';
import type { MediaImportStorage } from '../use-cases/ports/media-import.js';
import type { MediaUploadStorage, PresignedPutUpload, PresignedUpload } from '../use-cases/ports/media-upload.js';
import { putStreamedObject } from './s3-streamed-put.js';
import type { MediaBucket } from './media-bucket.js';
import { copyObject, mediaBucketUrl, presignPost, presignPut, S3RequestError, S3SignedRequests, type PostPolicyCondition, type S3SignedRequestsOptions } from './s3-signed-requests.js';
import { uploadSignerFromEnv, type UploadSigner } from './upload-signer.js';

/**
 * Per attempt (three at most): a settings function has 15 s in all, and these requests are a
 * HEAD, a DELETE or a range of at most a few megabytes read from S3 in the same region.
 */
const REQUEST_TIMEOUT_MS = 4_000;

export type S3MediaUploadsOptions = Omit<S3SignedRequestsOptions, 'timeoutMs'> & {
  /** What a streamed write does after each part it sent (s3-streamed-put.ts: the import worker's collection). */
  afterStreamedPart?: () => void;
};

/**
 * Where browsers post uploads to `bucket`: the local stand-in when MEDIA_UPLOAD_URL names one, else
 * the bucket's own URL, addressed as its presigned POSTs are (the page's form-action allows it).
 */
export function browserUploadUrl(bucket: MediaBucket, awsRegion: string): string {
  const standIn = process.env[ENV.mediaUploadUrl];
  return standIn ? `${standIn.replace(/\/+$/, '')}/${bucket.name}` : mediaBucketUrl(bucket, awsRegion).href;
}

export class S3MediaUploads implements MediaUploadStorage, MediaImportStorage {
  /** The bucket is read at first use: the library page lists records and never touches S3. */
  private readonly s3: S3SignedRequests;

  /** Built at the first upload signed; null when no signer role is configured (locally). */
  private signer: UploadSigner | null | undefined;

  private readonly afterStreamedPart: (() => void) | undefined;

  constructor(options: S3MediaUploadsOptions = {}) {
    const { afterStreamedPart, ...requests } = options;
    this.s3 = new S3SignedRequests({ ...requests, timeoutMs: REQUEST_TIMEOUT_MS });
    this.afterStreamedPart = afterStreamedPart;
  }

  /** An upload signer session's credentials for `objectKey`'s customer, or undefined to sign as this process. */
  private async uploadCredentials(objectKey: string, expiresSeconds: number): Promise<{ credentials?: AwsCredentialIdentity }> {
    if (this.signer === undefined) this.signer = uploadSignerFromEnv(this.s3.bucket.name, (await this.s3.signingScope()).region);
    return this.signer ? { credentials: await this.signer.credentialsFor(objectKey, expiresSeconds) } : {};
  }

  async presignUpload(input: { objectKey: string; contentType: string; maxBytes: number; expiresSeconds: number; successRedirect?: string }): Promise<PresignedUpload> {
    const fields: Record<string, string> = { 'Content-Type': input.contentType };
    const conditions: PostPolicyCondition[] = [
      ['eq', '$Content-Type', input.contentType],
      ['content-length-range', 1, input.maxBytes],
    ];
    if (input.successRedirect !== undefined) {
      fields.success_action_redirect = input.successRedirect;
      conditions.push(['eq', '$success_action_redirect', input.successRedirect]);
    }
    const presigned = await presignPost(this.s3, { objectKey: input.objectKey, fields, conditions, expiresSeconds: input.expiresSeconds, ...(await this.uploadCredentials(input.objectKey, input.expiresSeconds)) });
    return {
      url: browserUploadUrl(this.s3.bucket, presigned.region),
      fields: presigned.fields,
      expiresAt: new Date(Date.now() + input.expiresSeconds * 1000).toISOString(),
    };
  }

  async presignPut(input: { objectKey: string; contentType: string; sizeBytes: number; expiresSeconds: number }): Promise<PresignedPutUpload> {
    const standIn = process.env[ENV.mediaUploadUrl];
    const presigned = await presignPut(this.s3, {
      objectKey: input.objectKey,
      contentType: input.contentType,
      contentLength: input.sizeBytes,
      expiresSeconds: input.expiresSeconds,
      ...(standIn ? { baseUrl: standIn } : {}),
      ...(await this.uploadCredentials(input.objectKey, input.expiresSeconds)),
    });
    return { url: presigned.url, method: 'PUT', headers: presigned.headers, expiresAt: new Date(Date.now() + input.expiresSeconds * 1000).toISOString() };
  }

  head(objectKey: string): Promise<{ sizeBytes: number; contentType: string } | null> {
    return this.s3.send('HEAD', objectKey, { accept: [200, 404] }, async (response) => {
      if (response.status === 404) return null;
      return { sizeBytes: Number(response.headers.get('content-length') ?? 0), contentType: (response.headers.get('content-type') ?? '').toLowerCase() };
    });
  }

  async read(objectKey: string, start: number, end: number): Promise<Uint8Array> {
    return end <= start ? new Uint8Array(0) : this.s3.read(objectKey, { start, end });
  }

  /** CopyObject then DELETE: S3 has no rename. A copy that ran but whose delete failed leaves the upload for the lifecycle rule. */
  async move(from: string, to: string): Promise<void> {
    await copyObject(this.s3, from, to);
    await this.remove(from);
  }

  /** A stream written in parts as it arrives (s3-streamed-put.ts): the media import. */
  putStream(objectKey: string, contentType: string, chunks: AsyncIterable<Uint8Array>): Promise<number> {
    return putStreamedObject(this.s3, objectKey, contentType, chunks, { afterPart: this.afterStreamedPart });
  }

  async remove(objectKey: string): Promise<void> {
    try {
      await this.s3.send('DELETE', objectKey, { accept: [200, 204] }, async (response) => {
        await response.body?.cancel();
      });
    } catch (error) {
      // S3 answers 204 whether or not the object was there; a 404 for the key (an emulator that
      // says so) is as good, but not a bucket that is missing: that is our configuration.
      if (error instanceof S3RequestError && error.status === 404 && error.s3Code !== 'NoSuchBucket') return;
      throw error;
    }
  }
}
