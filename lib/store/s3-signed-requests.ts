/**
 * The media bucket reached without the S3 client. Each request is a plain HTTPS request signed
 * with SigV4 by the signer and the default credential chain the DynamoDB client already brings
 * into every bundle; S3's client and @aws-sdk/s3-presigned-post added about 260 kB (with the
 * event-stream serde the client imports at start) to each function that touches the bucket, and
 * about 25 ms to its import (docs/performance.md, "Function bundles"). Shared by the publish worker's media reads (s3-media-source.ts) and the
 * media library in settings (s3-media-uploads.ts: presigned POSTs, HEAD, ranged GET, DELETE).
 *
 * The endpoint is the SDK's: AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) when set (the local stack's
 * S3 emulator), otherwise the regional S3 endpoint; virtual-hosted addressing unless
 * MEDIA_FORCE_PATH_STYLE=true, or a bucket name a virtual host cannot carry (dots, which the
 * certificate does not cover, or anything but lower-case letters, digits and hyphens), as the
 * SDK's endpoint rules decide. Transient answers (5xx, 429, a connection that failed or timed
 * out) are tried again a couple of times, as the SDK would; each attempt is signed anew.
 */
import { createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { createScope, getSigningKey, SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { MissingConfigError } from '../config.js';
import { mediaBucket, type MediaBucket, type MediaBucketOptions } from './media-bucket.js';

/** Attempts per request, the SDK's default for S3. */
const ATTEMPTS = 3;
const SIGNING_ALGORITHM = 'AWS4-HMAC-SHA256';
/** The x-amz-content-sha256 of a request whose body is not hashed into its signature (S3 takes it over HTTPS). */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export interface S3SignedRequestsOptions extends MediaBucketOptions {
  /** The default credential chain when not given (tests). */
  credentials?: AwsCredentialIdentityProvider;
  /** Per attempt, the answer's body included. */
  timeoutMs: number;
}

/** S3 answered with a status the caller does not expect. */
export class S3RequestError extends Error {
  readonly code = 'media_bucket_request_failed';
  constructor(
    readonly status: number,
    readonly s3Code: string,
  ) {
    super(`The media bucket answered ${status}${s3Code ? ` (${s3Code})` : ''}`);
    this.name = 'S3RequestError';
  }
}

/** A POST policy condition (the forms S3 documents for browser uploads). */
export type PostPolicyCondition = Record<string, string> | ['eq' | 'starts-with', string, string] | ['content-length-range', number, number];

/** A presigned POST: the browser posts `fields`, then the file, to `url`; `region` is the one it was signed for. */
export interface PresignedPost {
  url: string;
  fields: Record<string, string>;
  region: string;
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

/** A bucket name S3 serves as `<bucket>.<endpoint host>` over HTTPS (the SDK's isVirtualHostableS3Bucket, no sub-domains). */
function virtualHostable(name: string): boolean {
  return /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(name);
}

/** The bucket's URL (where a presigned POST goes): endpoint as the SDK resolves it, path-style or virtual-hosted. */
export function mediaBucketUrl(bucket: MediaBucket, awsRegion: string): URL {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || `https://s3.${awsRegion}.amazonaws.com`);
  const base = endpoint.pathname.replace(/\/+$/, '');
  if (bucket.forcePathStyle || !virtualHostable(bucket.name)) {
    return new URL(`${endpoint.protocol}//${endpoint.host}${base}/${encodeSegment(bucket.name)}`);
  }
  return new URL(`${endpoint.protocol}//${bucket.name}.${endpoint.host}${base}`);
}

/** The object's URL: the bucket's URL and the key, each segment encoded once. */
export function mediaObjectUrl(bucket: MediaBucket, objectKey: string, awsRegion: string): URL {
  const url = mediaBucketUrl(bucket, awsRegion);
  const key = objectKey.split('/').map(encodeSegment).join('/');
  return new URL(`${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}/${key}`);
}

/**
 * CopyObject within the bucket: `to` becomes a copy of `from` (its content type and metadata too).
 * S3 may answer 200 and still fail the copy (an <Error> in the body): read as a transient 500, so
 * it is tried again. A function of its own, so only the bundles that copy carry it.
 */
export function copyObject(s3: S3SignedRequests, from: string, to: string): Promise<void> {
  const source = `/${encodeSegment(s3.bucket.name)}/${from.split('/').map(encodeSegment).join('/')}`;
  return s3.send('PUT', to, { headers: { 'x-amz-copy-source': source }, accept: [200] }, async (response) => {
    const body = await response.text();
    if (!body.includes('CopyObjectResult')) throw new S3RequestError(500, /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1] ?? 'CopyFailed');
  });
}

/** ISO 8601 to the second, as SigV4 and POST policies write times. */
function iso8601(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The POST policy's signature: HMAC-SHA256 of the base64 policy with the SigV4 signing key of the day. */
export async function signPostPolicy(policyBase64: string, credentials: AwsCredentialIdentity, shortDate: string, awsRegion: string): Promise<string> {
  const signingKey = await getSigningKey(Sha256, credentials, shortDate, awsRegion, 's3');
  return createHmac('sha256', signingKey).update(policyBase64, 'utf8').digest('hex');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function transient(error: unknown): boolean {
  if (error instanceof S3RequestError) return error.status >= 500 || error.status === 429;
  // fetch rejects with a TypeError when the connection failed, and a TimeoutError on our timeout.
  return error instanceof TypeError || (error instanceof Error && error.name === 'TimeoutError');
}

interface Signing {
  sign: SignatureV4['sign'];
  region: string;
  credentials: AwsCredentialIdentityProvider;
}

export class S3SignedRequests {
  private resolvedBucket: MediaBucket | undefined;
  private signing: Signing | undefined;

  constructor(private readonly options: S3SignedRequestsOptions) {}

  /** Read at first use (MEDIA_BUCKET unless given). */
  get bucket(): MediaBucket {
    this.resolvedBucket ??= mediaBucket(this.options);
    return this.resolvedBucket;
  }

  /** Built on the first request: the region and the credential chain are those of the process then. */
  private signingNow(): Signing {
    if (!this.signing) {
      const awsRegion = region();
      const credentials = this.options.credentials ?? defaultProvider();
      const signer = new SignatureV4({
        service: 's3',
        region: awsRegion,
        credentials,
        sha256: Sha256,
        // S3 signs the path as sent (already encoded once), and wants the payload hash header.
        uriEscapePath: false,
        applyChecksum: true,
      });
      this.signing = { sign: signer.sign.bind(signer), region: awsRegion, credentials };
    }
    return this.signing;
  }

  /**
   * One request on one object. An answer whose status is in `accept` goes to `take` (its body read
   * there, inside the attempt and its timeout); any other status is an S3RequestError. Transient
   * failures, of the request or of reading the body, are tried again.
   */
  async send<T>(
    method: 'GET' | 'HEAD' | 'DELETE' | 'PUT' | 'POST',
    objectKey: string,
    request: { headers?: Record<string, string>; query?: Record<string, string>; body?: Uint8Array | string; accept: readonly number[] },
    take: (response: Response) => Promise<T>,
  ): Promise<T> {
    const signing = this.signingNow();
    const url = mediaObjectUrl(this.bucket, objectKey, signing.region);
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await this.attempt(method, url, signing, request.headers ?? {}, request.query ?? {}, request.body);
        if (!request.accept.includes(response.status)) {
          const body = await response.text().catch(() => '');
          const code = /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1] ?? '';
          throw new S3RequestError(response.status, code);
        }
        return await take(response);
      } catch (error) {
        if (attempt >= ATTEMPTS || !transient(error)) throw error;
        await sleep(100 * 2 ** attempt * (0.5 + Math.random() / 2));
      }
    }
  }

  /** GetObject: the whole object, or bytes [start, end) of it. */
  read(objectKey: string, range?: { start: number; end: number }): Promise<Uint8Array> {
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end - 1}` } : {};
    return this.send('GET', objectKey, { headers, accept: [200, 206] }, async (response) => {
      const bytes = new Uint8Array(await response.arrayBuffer());
      // A server that ignored the range sent the whole object: keep the range asked for.
      return range && response.status === 200 ? bytes.subarray(range.start, range.end) : bytes;
    });
  }

  private async attempt(method: string, url: URL, signing: Signing, extraHeaders: Record<string, string>, query: Record<string, string>, body: Uint8Array | string | undefined): Promise<Response> {
    // Signed per attempt: a signature carries its time, and credentials may have been renewed.
    const signed = await signing.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...extraHeaders, host: url.host },
      // The payload's hash is signed (x-amz-content-sha256), unless the caller sends it unsigned
      // (UNSIGNED-PAYLOAD, over TLS: a streamed file's parts, not hashed a second time in memory).
      ...(body !== undefined && extraHeaders['x-amz-content-sha256'] !== UNSIGNED_PAYLOAD ? { body } : {}),
    });
    // fetch sets Host itself from the URL: the same value that was signed.
    const { host: _host, ...sent } = signed.headers;
    const target = new URL(url);
    for (const [name, value] of Object.entries(query)) target.searchParams.set(name, value);
    // A PUT or POST without a payload (CopyObject, starting a multipart upload) is sent with Content-Length 0.
    const payload = body ?? (method === 'PUT' || method === 'POST' ? '' : undefined);
    return fetch(target, { method, headers: sent, ...(payload !== undefined ? { body: payload } : {}), signal: AbortSignal.timeout(this.options.timeoutMs) });
  }

  /** The region and the credentials a signature made now would use. */
  async signingScope(): Promise<{ region: string; credentials: AwsCredentialIdentity }> {
    const signing = this.signingNow();
    return { region: signing.region, credentials: await signing.credentials() };
  }
}

/**
 * A presigned POST for a browser upload, the fields and policy exactly as
 * `@aws-sdk/s3-presigned-post` builds them (test/store/s3-media-uploads.test.ts compares the two):
 * the given fields and conditions, then one condition per field (bucket, the signing algorithm,
 * credential and date, and the session token when the credentials carry one), then the key; the
 * base64 policy is signed with the SigV4 signing key of the day. A function of its own, not a
 * method, so the publish worker's bundle, which never presigns, leaves it out.
 */
export async function presignPost(
  s3: S3SignedRequests,
  input: { objectKey: string; fields: Record<string, string>; conditions: readonly PostPolicyCondition[]; expiresSeconds: number; credentials?: AwsCredentialIdentity },
): Promise<PresignedPost> {
  const scope = await s3.signingScope();
  const awsRegion = scope.region;
  // Signed as given (an upload signer's session, upload-signer.ts), else as this process.
  const credentials = input.credentials ?? scope.credentials;
  const now = new Date();
  const amzDate = iso8601(now).replace(/[-:]/g, '');
  const shortDate = amzDate.slice(0, 8);
  const fields: Record<string, string> = {
    ...input.fields,
    bucket: s3.bucket.name,
    'X-Amz-Algorithm': SIGNING_ALGORITHM,
    'X-Amz-Credential': `${credentials.accessKeyId}/${createScope(shortDate, awsRegion, 's3')}`,
    'X-Amz-Date': amzDate,
    ...(credentials.sessionToken ? { 'X-Amz-Security-Token': credentials.sessionToken } : {}),
  };
  // Each condition once, in the order given (as written into JSON).
  const conditions = new Set<string>(input.conditions.map((condition) => JSON.stringify(condition)));
  for (const [name, value] of Object.entries(fields)) conditions.add(JSON.stringify({ [name]: value }));
  conditions.add(JSON.stringify({ key: input.objectKey }));
  const policy = `{"expiration":${JSON.stringify(iso8601(new Date(now.getTime() + input.expiresSeconds * 1000)))},"conditions":[${[...conditions].join(',')}]}`;
  const encodedPolicy = Buffer.from(policy, 'utf8').toString('base64');
  return {
    url: mediaBucketUrl(s3.bucket, awsRegion).href,
    region: awsRegion,
    fields: { ...fields, key: input.objectKey, Policy: encodedPolicy, 'X-Amz-Signature': await signPostPolicy(encodedPolicy, credentials, shortDate, awsRegion) },
  };
}

/** A presigned PUT: the client sends exactly `headers` (signed: the size and type are bound) and the bytes to `url`. */
export interface PresignedPut {
  url: string;
  headers: Record<string, string>;
}

/**
 * A presigned PUT of one object (query-string SigV4, as S3's presigner makes it): Content-Type and
 * Content-Length are signed headers, so S3 refuses a PUT of another type or of more or fewer bytes
 * than declared (SignatureDoesNotMatch); the payload itself is unsigned (UNSIGNED-PAYLOAD), as S3
 * expects of a presigned URL. `baseUrl`: where the PUT goes when not the bucket's own URL (the
 * local stand-in, which checks these signatures as S3 does). A function of its own, as presignPost.
 */
export async function presignPut(
  s3: S3SignedRequests,
  input: { objectKey: string; contentType: string; contentLength: number; expiresSeconds: number; baseUrl?: string; credentials?: AwsCredentialIdentity },
): Promise<PresignedPut> {
  const scope = await s3.signingScope();
  const awsRegion = scope.region;
  const credentials = input.credentials ?? scope.credentials;
  const key = input.objectKey.split('/').map(encodeSegment).join('/');
  const bucketUrl = input.baseUrl ? new URL(`${input.baseUrl.replace(/\/+$/, '')}/${encodeSegment(s3.bucket.name)}`) : mediaBucketUrl(s3.bucket, awsRegion);
  const url = new URL(`${bucketUrl.protocol}//${bucketUrl.host}${bucketUrl.pathname.replace(/\/+$/, '')}/${key}`);
  const signer = new SignatureV4({ service: 's3', region: awsRegion, credentials, sha256: Sha256, uriEscapePath: false });
  const headers = { 'content-type': input.contentType, 'content-length': String(input.contentLength) };
  const presigned = await signer.presign(
    {
      method: 'PUT',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      headers: { ...headers, host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    },
    { expiresIn: input.expiresSeconds, unsignableHeaders: new Set(['x-amz-content-sha256']), unhoistableHeaders: new Set(['x-amz-content-sha256']) },
  );
  for (const [name, value] of Object.entries(presigned.query ?? {})) {
    if (typeof value === 'string') url.searchParams.set(name, value);
  }
  return { url: url.href, headers: { 'Content-Type': input.contentType, 'Content-Length': String(input.contentLength) } };
}
