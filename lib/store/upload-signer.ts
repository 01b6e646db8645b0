/**
 * The credentials an upload URL is signed with. A presigned PUT or POST carries the signer's
 * authority: with the function's own role, a URL (or a leaked function credential) could write
 * anywhere the role may. So on AWS each upload is signed with a session of the upload signer role,
 * assumed for that one upload with a session policy that allows s3:PutObject under the
 * customer's own incoming prefix only (`incoming/<userId>/`): the intersection of the role's and
 * the session's policies is all the URL can do, and the session lasts exactly as long as the URL
 * may be used (an hour, the most a role assumed from a role may last), so the URL does not die
 * early with the function's own credentials (an API upload's URL is valid for an hour).
 *
 * AssumeRole is one signed HTTPS POST to STS's query API (no STS client in the bundle, as
 * s3-signed-requests.ts sends S3's requests). Locally no role is configured and the process's own
 * credentials sign (the upload stand-in checks those).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { ENV } from '../config.js';
import { DependencyError } from '../domain/errors.js';
import { INCOMING_PREFIX } from '../domain/media-library.js';

/** Longest a session of a role assumed from another role (the function's) may last; STS's shortest is 15 minutes. */
const MAX_UPLOAD_SESSION_SECONDS = 3600;
const MIN_SESSION_SECONDS = 900;
const STS_TIMEOUT_MS = 5_000;

export interface UploadSignerOptions {
  roleArn: string;
  bucketName: string;
  region: string;
  /** Where STS answers; default its regional endpoint. */
  endpoint?: string;
  /** Who assumes the role: the function's own credentials by default. */
  credentials?: AwsCredentialIdentityProvider;
}

/**
 * The prefix an object key's upload may be written under: `incoming/<userId>/`. Refuses a key of
 * any other shape, so a session is never scoped wider than one customer.
 */
export function uploadPrefixOf(objectKey: string): string {
  const [incoming, userId] = objectKey.split('/');
  if (`${incoming}/` !== INCOMING_PREFIX || !userId || !/^[A-Za-z0-9_-]+$/.test(userId)) {
    throw new Error(`not an upload key: ${objectKey}`);
  }
  return `${INCOMING_PREFIX}${userId}/`;
}

/** The session policy: PutObject under `prefix` of the bucket, nothing else. */
export function uploadSessionPolicy(partition: string, bucketName: string, prefix: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: `arn:${partition}:s3:::${bucketName}/${prefix}*` }],
  });
}

function element(xml: string, name: string): string | null {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match?.[1] ?? null;
}

export class UploadSigner {
  private readonly signer: SignatureV4;
  private readonly endpoint: URL;
  private readonly partition: string;

  constructor(private readonly options: UploadSignerOptions) {
    this.signer = new SignatureV4({ service: 'sts', region: options.region, credentials: options.credentials ?? defaultProvider(), sha256: Sha256 });
    this.endpoint = new URL(options.endpoint ?? `https://sts.${options.region}.amazonaws.com/`);
    this.partition = options.roleArn.split(':')[1] || 'aws';
  }

  /** Credentials that may put objects only under the upload prefix of `objectKey`, for as long as its URL is valid (`seconds`; 15 minutes at least, an hour at most). */
  async credentialsFor(objectKey: string, seconds: number): Promise<AwsCredentialIdentity> {
    const prefix = uploadPrefixOf(objectKey);
    const body = new URLSearchParams({
      Action: 'AssumeRole',
      Version: '2011-06-15',
      RoleArn: this.options.roleArn,
      // Names the customer in CloudTrail; at most 64 characters of [\w+=,.@-].
      RoleSessionName: `upload-${prefix.split('/')[1] ?? ''}`.slice(0, 64),
      DurationSeconds: String(Math.min(MAX_UPLOAD_SESSION_SECONDS, Math.max(MIN_SESSION_SECONDS, Math.ceil(seconds)))),
      Policy: uploadSessionPolicy(this.partition, this.options.bucketName, prefix),
    }).toString();
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: this.endpoint.protocol,
      hostname: this.endpoint.hostname,
      ...(this.endpoint.port ? { port: Number(this.endpoint.port) } : {}),
      path: this.endpoint.pathname,
      headers: { host: this.endpoint.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body,
    });
    let text: string;
    let status: number;
    try {
      const response = await fetch(this.endpoint, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(STS_TIMEOUT_MS) });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw new DependencyError('Could not reach STS to sign an upload', { cause: error });
    }
    const accessKeyId = element(text, 'AccessKeyId');
    const secretAccessKey = element(text, 'SecretAccessKey');
    const sessionToken = element(text, 'SessionToken');
    const expiration = element(text, 'Expiration');
    if (status !== 200 || !accessKeyId || !secretAccessKey || !sessionToken) {
      // STS's error code only (e.g. AccessDenied, Throttling): never the body, which may name the role.
      throw new DependencyError(`STS refused to sign an upload: ${status} ${element(text, 'Code') ?? 'no error code'}`);
    }
    return { accessKeyId, secretAccessKey, sessionToken, ...(expiration ? { expiration: new Date(expiration) } : {}) };
  }
}

/** The signer configured for this process (MEDIA_UPLOAD_SIGNER_ROLE_ARN), or null locally. */
export function uploadSignerFromEnv(bucketName: string, region: string): UploadSigner | null {
  const roleArn = process.env[ENV.mediaUploadSignerRoleArn];
  if (!roleArn) return null;
  const endpoint = process.env[ENV.stsEndpoint];
  return new UploadSigner({ roleArn, bucketName, region, ...(endpoint ? { endpoint } : {}) });
}
