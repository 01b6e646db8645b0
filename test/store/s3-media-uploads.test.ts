/**
 * The media library's S3 adapter without the S3 client (lib/store/s3-media-uploads.ts over
 * lib/store/s3-signed-requests.ts):
 *
 * - the POST policy's signature against AWS's documented example (a known answer), and the whole
 *   presigned POST (URL, every field, the policy byte for byte) against what
 *   `@aws-sdk/s3-presigned-post` builds with the same credentials at the same instant, path-style
 *   on a local endpoint and virtual-hosted on AWS, with and without a session token;
 * - HEAD, ranged GET and DELETE signed as S3 checks them (test/support/verifying-s3.ts: the
 *   emulator checks no signature), and how their answers map, against the local S3 emulator
 *   (fauxqs). The browser's POST through the policy-checking stand-in is in
 *   test/settings/media-library.test.ts and the browser tests of the media page.
 */
import { randomBytes } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ENV } from '../../lib/config.js';
import { S3MediaObjectWriter } from '../../lib/store/s3-media-object-writer.js';
import { S3MediaUploads } from '../../lib/store/s3-media-uploads.js';
import { S3RequestError, signPostPolicy } from '../../lib/store/s3-signed-requests.js';
import { mediaUploadOrigin } from '../../lib/web/connect-dependencies.js';
import { ensureBucket, s3ClientFor } from '../../local/messaging.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { checkPostPolicy } from '../../local/s3-browser-upload.js';
import { VerifyingS3 } from '../support/verifying-s3.js';

const ENV_NAMES = ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL', 'AWS_REGION', ENV.mediaBucket, ENV.mediaForcePathStyle, ENV.mediaUploadUrl];
const savedEnv: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

beforeAll(() => {
  for (const name of ENV_NAMES) savedEnv[name] = process.env[name];
});
afterAll(() => setEnv(savedEnv));

/** The example's base64 policy and signature as AWS documents them. */
const DOCUMENTED_POLICY =
  'eyAiZXhwaXJhdGlvbiI6ICIyMDE1LTEyLTMwVDEyOjAwOjAwLjAwMFoiLA0KICAiY29uZGl0aW9ucyI6IFsNCiAgICB7ImJ1Y2tldCI6ICJzaWd2NGV4YW1wbGVidWNrZXQifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRrZXkiLCAidXNlci91c2VyMS8iXSwNCiAgICB7ImFjbCI6ICJwdWJsaWMtcmVhZCJ9LA0KICAgIHsic3VjY2Vzc19hY3Rpb25fcmVkaXJlY3QiOiAiaHR0cDovL3NpZ3Y0ZXhhbXBsZWJ1Y2tldC5zMy5hbWF6b25hd3MuY29tL3N1Y2Nlc3NmdWxfdXBsb2FkLmh0bWwifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRDb250ZW50LVR5cGUiLCAiaW1hZ2UvIl0sDQogICAgeyJ4LWFtei1tZXRhLXV1aWQiOiAiMTQzNjUxMjM2NTEyNzQifSwNCiAgICB7IngtYW16LXNlcnZlci1zaWRlLWVuY3J5cHRpb24iOiAiQUVTMjU2In0sDQogICAgWyJzdGFydHMtd2l0aCIsICIkeC1hbXotbWV0YS10YWciLCAiIl0sDQoNCiAgICB7IngtYW16LWNyZWRlbnRpYWwiOiAiQUtJQUlPU0ZPRE5ON0VYQU1QTEUvMjAxNTEyMjkvdXMtZWFzdC0xL3MzL2F3czRfcmVxdWVzdCJ9LA0KICAgIHsieC1hbXotYWxnb3JpdGhtIjogIkFXUzQtSE1BQy1TSEEyNTYifSwNCiAgICB7IngtYW16LWRhdGUiOiAiMjAxNTEyMjlUMDAwMDAwWiIgfQ0KICBdDQp9';
const DOCUMENTED_SIGNATURE = '8afdbf4008c03f22c2cd3cdb72e4afbb1f6a588f3255ac628749a66d7f09699e';

describe('the POST policy signature', () => {
  it("matches AWS's documented example (Browser-Based Upload using HTTP POST, Signature Version 4)", async () => {
    // The example's policy, as the documentation prints it (CRLF line ends), and its signature.
    const policy = [
      '{ "expiration": "2015-12-30T12:00:00.000Z",',
      '  "conditions": [',
      '    {"bucket": "sigv4examplebucket"},',
      '    ["starts-with", "$key", "user/user1/"],',
      '    {"acl": "public-read"},',
      '    {"success_action_redirect": "http://sigv4examplebucket.s3.amazonaws.com/successful_upload.html"},',
      '    ["starts-with", "$Content-Type", "image/"],',
      '    {"x-amz-meta-uuid": "14365123651274"},',
      '    {"x-amz-server-side-encryption": "AES256"},',
      '    ["starts-with", "$x-amz-meta-tag", ""],',
      '',
      '    {"x-amz-credential": "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"},',
      '    {"x-amz-algorithm": "AWS4-HMAC-SHA256"},',
      '    {"x-amz-date": "20151229T000000Z" }',
      '  ]',
      '}',
    ].join('\r\n');
    const encoded = Buffer.from(policy, 'utf8').toString('base64');
    expect(encoded).toBe(DOCUMENTED_POLICY);
    const credentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
    expect(await signPostPolicy(encoded, credentials, '20151229', 'us-east-1')).toBe(DOCUMENTED_SIGNATURE);
    // And a different secret, date or region signs differently.
    expect(await signPostPolicy(encoded, { ...credentials, secretAccessKey: 'other' }, '20151229', 'us-east-1')).not.toBe(DOCUMENTED_SIGNATURE);
    expect(await signPostPolicy(encoded, credentials, '20151230', 'us-east-1')).not.toBe(DOCUMENTED_SIGNATURE);
    expect(await signPostPolicy(encoded, credentials, '20151229', 'eu-west-1')).not.toBe(DOCUMENTED_SIGNATURE);
  });
});

describe('a presigned POST is the one @aws-sdk/s3-presigned-post builds', () => {
  const NOW = new Date('2026-11-22T16:45:12.345Z');
  const KEYS = { accessKeyId: 'AKIDMEDIAUPLOADS', secretAccessKey: 'secret-of-the-media-uploads' };

  afterEach(() => {
    vi.useRealTimers();
  });

  const cases = [
    { name: 'path-style on a local endpoint, no session token', bucket: 'media', region: 'us-east-1', endpoint: 'http://127.0.0.1:4566', pathStyle: true, credentials: KEYS, redirect: undefined },
    {
      name: 'virtual-hosted on AWS, with a session token and a success redirect',
      bucket: 'data-mediabucket-1a2b3c',
      region: 'eu-west-1',
      endpoint: undefined,
      pathStyle: false,
      credentials: { ...KEYS, sessionToken: 'IQoJb3JpZ2luX2VjE/session+token==' },
      redirect: 'https://settings.example.test/settings/media/uploaded?media=med_1',
    },
    { name: 'path-style on AWS for a bucket name with dots', bucket: 'media.example.test', region: 'eu-central-1', endpoint: undefined, pathStyle: false, credentials: KEYS, redirect: undefined },
  ] as const;

  it.each(cases)('$name', async ({ bucket, region, endpoint, pathStyle, credentials, redirect }) => {
    setEnv({ AWS_ENDPOINT_URL_S3: endpoint, AWS_ENDPOINT_URL: undefined, AWS_REGION: region, [ENV.mediaBucket]: bucket, [ENV.mediaForcePathStyle]: String(pathStyle), [ENV.mediaUploadUrl]: undefined });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const objectKey = 'usr_1/med_1/Holiday photo (1).png';
    const ours = await new S3MediaUploads({ bucket, credentials: async () => credentials }).presignUpload({
      objectKey,
      contentType: 'image/png',
      maxBytes: 5_242_880,
      expiresSeconds: 900,
      ...(redirect ? { successRedirect: redirect } : {}),
    });

    const client = new S3Client({ region, credentials, forcePathStyle: pathStyle });
    try {
      const fields: Record<string, string> = { 'Content-Type': 'image/png', ...(redirect ? { success_action_redirect: redirect } : {}) };
      const sdk = await createPresignedPost(client, {
        Bucket: bucket,
        Key: objectKey,
        Fields: fields,
        Conditions: [['eq', '$Content-Type', 'image/png'], ['content-length-range', 1, 5_242_880], ...(redirect ? [['eq', '$success_action_redirect', redirect] as ['eq', string, string]] : [])],
        Expires: 900,
      });
      expect(ours.url).toBe(sdk.url);
      // The media page's Content-Security-Policy lets its form post there.
      expect(mediaUploadOrigin()).toBe(new URL(sdk.url).origin);
      expect(ours.fields).toEqual(sdk.fields);
      expect(Object.keys(ours.fields).sort()).toEqual(Object.keys(sdk.fields).sort());
      expect(ours.expiresAt).toBe('2026-11-22T17:00:12.345Z');
    } finally {
      client.destroy();
    }
    // What the policy says, read back: expiry to the second, and the session token only when there is one.
    const policy = JSON.parse(Buffer.from(ours.fields.Policy ?? '', 'base64').toString('utf8')) as { expiration: string; conditions: unknown[] };
    expect(policy.expiration).toBe('2026-11-22T17:00:12Z');
    expect(policy.conditions).toContainEqual({ bucket });
    expect(policy.conditions).toContainEqual({ key: objectKey });
    expect(policy.conditions).toContainEqual(['content-length-range', 1, 5_242_880]);
    expect(policy.conditions).toContainEqual({ 'X-Amz-Credential': `${KEYS.accessKeyId}/20261122/${region}/s3/aws4_request` });
    expect('X-Amz-Security-Token' in ours.fields).toBe('sessionToken' in credentials);
  });

  it("passes the checks S3 makes of a browser POST (local/s3-browser-upload.ts), a session token included, and fails them once altered", async () => {
    setEnv({ AWS_ENDPOINT_URL_S3: undefined, AWS_ENDPOINT_URL: undefined, AWS_REGION: LOCAL_REGION, [ENV.mediaForcePathStyle]: 'false', [ENV.mediaUploadUrl]: undefined });
    const credentials = { ...KEYS, sessionToken: 'session-token-of-the-role' };
    const upload = await new S3MediaUploads({ bucket: 'media', credentials: async () => credentials }).presignUpload({
      objectKey: 'usr_1/med_1/a.png',
      contentType: 'image/png',
      maxBytes: 100,
      expiresSeconds: 600,
      successRedirect: 'https://settings.example.test/settings/media/uploaded',
    });
    // As a browser sends the form: field names are case-insensitive to S3.
    const form = new Map(Object.entries(upload.fields).map(([name, value]) => [name.toLowerCase(), value]));
    expect(checkPostPolicy('media', form, { size: 50 }, new Date(), credentials)).toEqual({ key: 'usr_1/med_1/a.png', contentType: 'image/png' });
    expect(() => checkPostPolicy('media', form, { size: 101 }, new Date(), credentials)).toThrow(/content-length-range/);
    expect(() => checkPostPolicy('media', new Map(form).set('content-type', 'text/html'), { size: 50 }, new Date(), credentials)).toThrow(/Policy Condition failed/);
    expect(() => checkPostPolicy('media', new Map(form).set('key', 'usr_2/med_1/a.png'), { size: 50 }, new Date(), credentials)).toThrow(/Policy Condition failed/);
    expect(() => checkPostPolicy('other-bucket', form, { size: 50 }, new Date(), credentials)).toThrow(/Policy Condition failed/);
    expect(() => checkPostPolicy('media', form, { size: 50 }, new Date(Date.now() + 601_000), credentials)).toThrow(/expired/);
    expect(() => checkPostPolicy('media', form, { size: 50 }, new Date(), { ...credentials, secretAccessKey: 'another-secret' })).toThrow(/signature/);
  });

  it('posts to the local stand-in when MEDIA_UPLOAD_URL names one, with the same signed fields', async () => {
    setEnv({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4566', AWS_REGION: LOCAL_REGION, [ENV.mediaForcePathStyle]: 'true', [ENV.mediaUploadUrl]: 'http://127.0.0.1:9999/' });
    const upload = await new S3MediaUploads({ bucket: 'media', credentials: async () => KEYS }).presignUpload({ objectKey: 'u/m/f.png', contentType: 'image/png', maxBytes: 10, expiresSeconds: 60 });
    expect(upload.url).toBe('http://127.0.0.1:9999/media');
    expect(upload.fields).toMatchObject({ key: 'u/m/f.png', bucket: 'media', 'X-Amz-Algorithm': 'AWS4-HMAC-SHA256' });
  });
});

describe('HEAD, ranged GET and DELETE are signed as S3 checks them', () => {
  const REGION = 'eu-west-1';
  const CREDENTIALS = { accessKeyId: 'AKIDMEDIAUPLOADS', secretAccessKey: 'secret-of-the-media-uploads', sessionToken: 'session-token-2' };
  const s3 = new VerifyingS3(REGION, CREDENTIALS);
  const uploads = (secretAccessKey = CREDENTIALS.secretAccessKey) => new S3MediaUploads({ bucket: 'media', credentials: async () => ({ ...CREDENTIALS, secretAccessKey }) });

  beforeAll(async () => {
    setEnv({ AWS_ENDPOINT_URL_S3: await s3.start(), AWS_ENDPOINT_URL: undefined, AWS_REGION: REGION, [ENV.mediaForcePathStyle]: 'true', [ENV.mediaUploadUrl]: undefined });
  });
  afterAll(() => s3.stop());

  it('each request carries a valid signature over host, date, payload hash and session token (and the range)', async () => {
    s3.objects.set('/media/usr_1/med_1/clip.mp4', { body: new Uint8Array(2_000).fill(9), contentType: 'video/mp4' });
    const storage = uploads();
    const before = s3.seen.length;
    expect(await storage.head('usr_1/med_1/clip.mp4')).toEqual({ sizeBytes: 2_000, contentType: 'video/mp4' });
    expect(await storage.read('usr_1/med_1/clip.mp4', 100, 108)).toEqual(new Uint8Array(8).fill(9));
    await storage.remove('usr_1/med_1/clip.mp4');
    expect(await storage.head('usr_1/med_1/clip.mp4')).toBeNull();
    const seen = s3.seen.slice(before);
    expect(seen.map(({ method, verdict }) => `${method} ${verdict}`)).toEqual(['HEAD ok', 'GET ok', 'DELETE ok', 'HEAD ok']);
    for (const { signedHeaders } of seen) expect(signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token']));
    expect(seen[1]?.signedHeaders).toContain('range');
  });

  it('a refused signature is an error after one request, HEAD included (whose answer has no body)', async () => {
    s3.objects.set('/media/usr_1/med_2/a.png', { body: new Uint8Array(10), contentType: 'image/png' });
    const before = s3.seen.length;
    await expect(uploads('not-the-secret').head('usr_1/med_2/a.png')).rejects.toMatchObject({ name: 'S3RequestError', status: 403, s3Code: '' });
    await expect(uploads('not-the-secret').remove('usr_1/med_2/a.png')).rejects.toMatchObject({ status: 403, s3Code: 'SignatureDoesNotMatch' });
    expect(s3.seen.slice(before).map(({ verdict }) => verdict)).toEqual(['bad signature', 'bad signature']);
    expect(s3.objects.has('/media/usr_1/med_2/a.png')).toBe(true);
  });

  it('tries again, signing anew, when S3 asks to slow down or fails', async () => {
    s3.objects.set('/media/usr_1/med_3/a.png', { body: new Uint8Array(10), contentType: 'image/png' });
    const before = s3.seen.length;
    s3.faults.push(503, 500);
    expect(await uploads().head('usr_1/med_3/a.png')).toEqual({ sizeBytes: 10, contentType: 'image/png' });
    expect(s3.seen.slice(before).map(({ verdict }) => verdict)).toEqual(['ok', 'ok', 'ok']);
  });
});

describe('HEAD, ranged GET and DELETE against the S3 emulator', () => {
  const bucket = `uploads-${randomBytes(4).toString('hex')}`;
  let storage: S3MediaUploads;
  let writer: S3MediaObjectWriter;
  let client: S3Client;
  const BYTES = Uint8Array.from({ length: 3_000 }, (_, index) => index % 256);

  beforeAll(async () => {
    const { s3Endpoint } = inject('localAws');
    setEnv({ AWS_ENDPOINT_URL_S3: s3Endpoint, AWS_ENDPOINT_URL: undefined, AWS_REGION: LOCAL_REGION, [ENV.mediaForcePathStyle]: 'true', [ENV.mediaUploadUrl]: undefined });
    await ensureBucket(s3Endpoint, bucket);
    client = s3ClientFor(s3Endpoint);
    writer = new S3MediaObjectWriter({ bucket, client });
    storage = new S3MediaUploads({ bucket, credentials: async () => LOCAL_CREDENTIALS });
  });
  afterAll(() => client?.destroy());

  it('HEAD gives the size and the content type (lower case); a missing object is null', async () => {
    await writer.putObject('usr_1/med_1/clip.mp4', BYTES, 'Video/MP4');
    expect(await storage.head('usr_1/med_1/clip.mp4')).toEqual({ sizeBytes: 3_000, contentType: 'video/mp4' });
    expect(await storage.head('usr_1/med_1/other.mp4')).toBeNull();
  });

  it('GET reads the range asked for, of a key with characters that need encoding', async () => {
    const key = "usr_1/med_2/a file (copy)+'1'*.png";
    await writer.putObject(key, BYTES, 'image/png');
    expect(await storage.read(key, 0, 8)).toEqual(BYTES.subarray(0, 8));
    expect(await storage.read(key, 2_990, 3_000)).toEqual(BYTES.subarray(2_990, 3_000));
    expect(await storage.read(key, 5, 5)).toEqual(new Uint8Array(0));
  });

  it('the writer puts a file larger than one emulator request (20 MB) in parts: its size, its type and its bytes at both ends read back', async () => {
    const large = Uint8Array.from({ length: 20_000_000 }, (_, index) => (index * 7) % 251);
    await writer.putObject('usr_1/med_9/long.mp4', large, 'video/mp4');
    expect(await storage.head('usr_1/med_9/long.mp4')).toEqual({ sizeBytes: 20_000_000, contentType: 'video/mp4' });
    expect(await storage.read('usr_1/med_9/long.mp4', 8_388_600, 8_388_616)).toEqual(large.subarray(8_388_600, 8_388_616));
    expect(await storage.read('usr_1/med_9/long.mp4', 19_999_990, 20_000_000)).toEqual(large.subarray(19_999_990));
  });

  it('a streamed write goes out in 8 MiB parts, calling afterStreamedPart once after each part sent (the import worker collects there)', async () => {
    let partsSent = 0;
    const streaming = new S3MediaUploads({ bucket, credentials: async () => LOCAL_CREDENTIALS, afterStreamedPart: () => partsSent++ });
    async function* chunks(): AsyncGenerator<Uint8Array> {
      // 20 MB in 64 kB chunks, as a socket hands them over.
      for (let offset = 0; offset < 20_000_000; offset += 65_536) yield Uint8Array.from({ length: Math.min(65_536, 20_000_000 - offset) }, (_, index) => (offset + index) % 253);
    }
    expect(await streaming.putStream('usr_1/med_8/streamed.mp4', 'video/mp4', chunks())).toBe(20_000_000);
    expect(partsSent).toBe(3);
    expect(await storage.head('usr_1/med_8/streamed.mp4')).toEqual({ sizeBytes: 20_000_000, contentType: 'video/mp4' });
    expect(await storage.read('usr_1/med_8/streamed.mp4', 19_999_990, 20_000_000)).toEqual(Uint8Array.from({ length: 10 }, (_, index) => (19_999_990 + index) % 253));
  });

  it('GET of a missing object is an error naming S3 status and code, not empty bytes', async () => {
    const read = storage.read('usr_1/med_3/gone.png', 0, 8);
    await expect(read).rejects.toBeInstanceOf(S3RequestError);
    await expect(read).rejects.toMatchObject({ status: 404, s3Code: 'NoSuchKey' });
  });

  it('DELETE removes the object, and deleting it again succeeds', async () => {
    await writer.putObject('usr_1/med_4/photo.png', BYTES, 'image/png');
    await storage.remove('usr_1/med_4/photo.png');
    expect(await storage.head('usr_1/med_4/photo.png')).toBeNull();
    await expect(storage.remove('usr_1/med_4/photo.png')).resolves.toBeUndefined();
  });

  it('DELETE in a bucket that does not exist is an error, not a silent success', async () => {
    const elsewhere = new S3MediaUploads({ bucket: `${bucket}-missing`, credentials: async () => LOCAL_CREDENTIALS });
    await expect(elsewhere.remove('usr_1/med_5/photo.png')).rejects.toMatchObject({ name: 'S3RequestError', status: 404, s3Code: 'NoSuchBucket' });
  });
});
