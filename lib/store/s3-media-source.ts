/**
 * Media library files read from the media bucket for the platform adapters, a range at a time, so
 * a large video is never held in memory whole. Only objects of the media library are read (the
 * post names media ids; the object key comes from the library item), never a URL from a caller.
 *
 * A read is one S3 GetObject sent as a plain HTTPS GET, signed with SigV4 by the signer and the
 * default credential chain the DynamoDB client already brings into the bundle: the S3 client
 * would add about 130 kB to the publish worker for this one call. The endpoint is the SDK's:
 * AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) when set (the local stack's S3 emulator), otherwise
 * the regional S3 endpoint; virtual-hosted addressing unless MEDIA_FORCE_PATH_STYLE=true (or a
 * bucket name with dots, which a virtual host's certificate cannot cover). Transient answers
 * (5xx, 429, a connection that failed) are tried again a couple of times, as the SDK would.
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { MissingConfigError } from '../config.js';
import { DependencyError } from '../domain/errors.js';
import type { MediaItem } from '../domain/model.js';
import type { MediaSourceFactory } from '../use-cases/ports/media.js';
import type { PlatformMediaSource } from '../use-cases/ports/platform-publisher.js';
import { mediaBucket, type MediaBucket, type MediaBucketOptions } from './media-bucket.js';

/** Attempts per read, the SDK's default for S3. */
const READ_ATTEMPTS = 3;
/** One range of a video is a few megabytes: far less than this even on a slow link. */
const READ_TIMEOUT_MS = 30_000;

export interface S3MediaSourceOptions extends MediaBucketOptions {
  /** The default credential chain when not given (tests). */
  credentials?: AwsCredentialIdentityProvider;
}

/** S3 answered a read with an error status. */
export class MediaReadError extends Error {
  readonly code = 'media_read_failed';
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`The media bucket answered ${status}${detail ? ` (${detail})` : ''}`);
    this.name = 'MediaReadError';
  }
}

/** RFC 3986 encoding of one key segment, as S3's canonical request expects it. */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function region(): string {
  const value = process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION;
  if (!value) throw new MissingConfigError('AWS_REGION');
  return value;
}

/** The object's URL: endpoint as the SDK resolves it, path-style or virtual-hosted. */
export function mediaObjectUrl(bucket: MediaBucket, objectKey: string, awsRegion: string): URL {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || `https://s3.${awsRegion}.amazonaws.com`);
  const base = endpoint.pathname.replace(/\/+$/, '');
  const key = objectKey.split('/').map(encodeSegment).join('/');
  if (bucket.forcePathStyle || bucket.name.includes('.')) {
    return new URL(`${endpoint.protocol}//${endpoint.host}${base}/${encodeSegment(bucket.name)}/${key}`);
  }
  return new URL(`${endpoint.protocol}//${bucket.name}.${endpoint.host}${base}/${key}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function transient(error: unknown): boolean {
  if (error instanceof MediaReadError) return error.status >= 500 || error.status === 429;
  // fetch rejects with a TypeError when the connection failed, and a TimeoutError on our timeout.
  return error instanceof TypeError || (error instanceof Error && error.name === 'TimeoutError');
}

export class S3MediaSourceFactory implements MediaSourceFactory {
  private readonly bucket: MediaBucket;
  private readonly credentials: AwsCredentialIdentityProvider | undefined;
  private signer: { sign: SignatureV4['sign']; region: string } | undefined;

  constructor(options: S3MediaSourceOptions = {}) {
    this.bucket = mediaBucket(options);
    this.credentials = options.credentials;
  }

  open(item: MediaItem): PlatformMediaSource {
    return {
      contentType: item.contentType,
      sizeBytes: item.sizeBytes,
      durationSeconds: item.durationSeconds,
      read: async (range) => {
        try {
          return await this.read(item.objectKey, range);
        } catch (error) {
          throw new DependencyError(`Could not read media ${item.id} from the media bucket`, { cause: error });
        }
      },
    };
  }

  /** Built on the first read: the region and the credential chain are those of the process then. */
  private signerNow(): { sign: SignatureV4['sign']; region: string } {
    if (!this.signer) {
      const awsRegion = region();
      const signer = new SignatureV4({
        service: 's3',
        region: awsRegion,
        credentials: this.credentials ?? defaultProvider(),
        sha256: Sha256,
        // S3 signs the path as sent (already encoded once), and wants the payload hash header.
        uriEscapePath: false,
        applyChecksum: true,
      });
      this.signer = { sign: signer.sign.bind(signer), region: awsRegion };
    }
    return this.signer;
  }

  private async read(objectKey: string, range: { start: number; end: number } | undefined): Promise<Uint8Array> {
    const signer = this.signerNow();
    const url = mediaObjectUrl(this.bucket, objectKey, signer.region);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.get(url, signer, range);
      } catch (error) {
        if (attempt >= READ_ATTEMPTS || !transient(error)) throw error;
        await sleep(100 * 2 ** attempt * (0.5 + Math.random() / 2));
      }
    }
  }

  private async get(url: URL, signer: { sign: SignatureV4['sign'] }, range: { start: number; end: number } | undefined): Promise<Uint8Array> {
    const headers: Record<string, string> = { host: url.host };
    if (range) headers.range = `bytes=${range.start}-${range.end - 1}`;
    // Signed per attempt: a signature carries its time, and credentials may have been renewed.
    const signed = await signer.sign({
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers,
    });
    // fetch sets Host itself from the URL: the same value that was signed.
    const { host: _host, ...sent } = signed.headers;
    const response = await fetch(url, { method: 'GET', headers: sent, signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    if (response.status !== 200 && response.status !== 206) {
      const body = await response.text().catch(() => '');
      const code = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1] ?? '';
      throw new MediaReadError(response.status, code);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    // A server that ignored the range sent the whole object: keep the range asked for.
    return range && response.status === 200 ? bytes.subarray(range.start, range.end) : bytes;
  }
}
