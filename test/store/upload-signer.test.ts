/**
 * Upload URLs signed per customer on AWS (lib/store/upload-signer.ts): the AssumeRole request STS
 * receives (a stand-in here: STS has no emulator), its SigV4 signature checked as STS checks it,
 * the session policy that limits the session to one customer's incoming prefix, and the presigned
 * PUT and POST signed with the session's credentials, never the process's own.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import { DependencyError } from '../../lib/domain/errors.js';
import { S3MediaUploads } from '../../lib/store/s3-media-uploads.js';
import { uploadPrefixOf, UploadSigner } from '../../lib/store/upload-signer.js';

const CALLER = { accessKeyId: 'AKIAFUNCTIONROLE', secretAccessKey: 'function-secret', sessionToken: 'function-token' };
const SESSION = { accessKeyId: 'ASIAUPLOADSESSION', secretAccessKey: 'session-secret', sessionToken: 'session-token' };
const ROLE_ARN = 'arn:aws:iam::123456789012:role/SocialPublishingApi-MediaUploadSigner';

interface Received {
  form: URLSearchParams;
  signatureValid: boolean;
}

let server: Server;
let endpoint: string;
const received: Received[] = [];
let answer: { status: number; body: string } | null = null;

async function verifySignature(request: IncomingMessage, body: string): Promise<boolean> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
  const given = headers.authorization ?? '';
  const amzDate = headers['x-amz-date'] ?? '';
  const signedNames = /SignedHeaders=([^,]+)/.exec(given)?.[1]?.split(';') ?? [];
  const signedHeaders = Object.fromEntries(signedNames.map((name) => [name, headers[name] ?? '']));
  const signer = new SignatureV4({ service: 'sts', region: 'eu-west-1', credentials: CALLER, sha256: Sha256 });
  const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  const again = await signer.sign(
    { method: 'POST', protocol: 'http:', hostname: '127.0.0.1', path: '/', headers: { ...signedHeaders }, body },
    { signingDate: date },
  );
  return again.headers.authorization === given && given.includes('/eu-west-1/sts/aws4_request');
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      void verifySignature(request, body).then((signatureValid) => {
        received.push({ form: new URLSearchParams(body), signatureValid });
        const reply = answer ?? {
          status: 200,
          body: `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>${SESSION.accessKeyId}</AccessKeyId><SecretAccessKey>${SESSION.secretAccessKey}</SecretAccessKey><SessionToken>${SESSION.sessionToken}</SessionToken><Expiration>2030-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleResult></AssumeRoleResponse>`,
        };
        response.writeHead(reply.status, { 'content-type': 'text/xml' });
        response.end(reply.body);
      });
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));
afterEach(() => {
  received.length = 0;
  answer = null;
});

const signer = () => new UploadSigner({ roleArn: ROLE_ARN, bucketName: 'media-bucket', region: 'eu-west-1', endpoint, credentials: async () => CALLER });

describe('the upload signer', () => {
  it('assumes the signer role for one customer\'s incoming prefix only, signed as STS checks, for as long as the URL lives', async () => {
    const credentials = await signer().credentialsFor('incoming/usr_abc/med_1/chart.png', 3600);
    expect(credentials).toMatchObject(SESSION);
    const [request] = received;
    expect(request?.signatureValid).toBe(true);
    expect(Object.fromEntries(request?.form ?? [])).toMatchObject({ Action: 'AssumeRole', Version: '2011-06-15', RoleArn: ROLE_ARN, RoleSessionName: 'upload-usr_abc', DurationSeconds: '3600' });
    expect(JSON.parse(request?.form.get('Policy') ?? '')).toEqual({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: 'arn:aws:s3:::media-bucket/incoming/usr_abc/*' }],
    });
  });

  it('asks for STS\'s shortest session (15 minutes) for a settings upload of 10 minutes', async () => {
    await signer().credentialsFor('incoming/usr_abc/med_2/a.png', 600);
    expect(received[0]?.form.get('DurationSeconds')).toBe('900');
  });

  it('never scopes a session wider than one customer: a key outside incoming/<user>/ is refused before STS is asked', async () => {
    for (const key of ['usr_abc/med_1/served.png', 'incoming/', 'incoming//x', 'incoming/../usr_b/x', 'incoming/*/x']) {
      expect(() => uploadPrefixOf(key)).toThrow(/not an upload key/);
      await expect(signer().credentialsFor(key, 3600)).rejects.toThrow(/not an upload key/);
    }
    expect(received).toHaveLength(0);
  });

  it('a refusal from STS is a dependency failure naming its code, not its body', async () => {
    answer = { status: 403, body: '<ErrorResponse><Error><Code>AccessDenied</Code><Message>User arn:aws:sts::123456789012:assumed-role/x is not authorized</Message></Error></ErrorResponse>' };
    const refused = signer().credentialsFor('incoming/usr_abc/med_1/a.png', 3600);
    await expect(refused).rejects.toBeInstanceOf(DependencyError);
    await expect(refused).rejects.toThrow('STS refused to sign an upload: 403 AccessDenied');
    await expect(refused).rejects.not.toThrow(/123456789012/);
  });
});

describe('presigned uploads with a signer role configured', () => {
  const saved: Record<string, string | undefined> = {};
  const names = [ENV.mediaUploadSignerRoleArn, ENV.stsEndpoint, ENV.mediaBucket, ENV.mediaUploadUrl, 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];
  beforeAll(() => {
    for (const name of names) saved[name] = process.env[name];
    Object.assign(process.env, {
      [ENV.mediaUploadSignerRoleArn]: ROLE_ARN,
      [ENV.stsEndpoint]: endpoint,
      [ENV.mediaBucket]: 'media-bucket',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: CALLER.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CALLER.secretAccessKey,
      AWS_SESSION_TOKEN: CALLER.sessionToken,
    });
    delete process.env[ENV.mediaUploadUrl];
  });
  afterAll(() => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('a presigned PUT carries the session\'s key and token, not the function\'s', async () => {
    const upload = await new S3MediaUploads().presignPut({ objectKey: 'incoming/usr_abc/med_1/chart.png', contentType: 'image/png', sizeBytes: 1000, expiresSeconds: 3600 });
    const url = new URL(upload.url);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^ASIAUPLOADSESSION\//);
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(SESSION.sessionToken);
    expect(upload.url).not.toContain(CALLER.accessKeyId);
    expect(received[0]?.form.get('RoleSessionName')).toBe('upload-usr_abc');
  });

  it('so does a settings upload\'s presigned POST', async () => {
    const upload = await new S3MediaUploads().presignUpload({ objectKey: 'incoming/usr_abc/med_2/a.png', contentType: 'image/png', maxBytes: 5000, expiresSeconds: 600 });
    expect(upload.fields['X-Amz-Credential']).toMatch(/^ASIAUPLOADSESSION\//);
    expect(upload.fields['X-Amz-Security-Token']).toBe(SESSION.sessionToken);
  });
});
