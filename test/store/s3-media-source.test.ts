/**
 * The publish worker's media reads: a SigV4-signed GET, no S3 client. The local S3 emulator
 * (fauxqs) does not check signatures, so these tests run the reads against a small S3 stand-in
 * that does, the way S3 does (test/support/verifying-s3.ts). The official S3 client's own
 * GetObject passes the same check, and a request signed with the wrong secret does not, so the
 * check is neither too strict nor too lax. Reads through the real emulator, as the worker runs
 * them, are in test/http/publishing.test.ts (images and video).
 */
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import { DependencyError } from '../../lib/domain/errors.js';
import type { MediaItem } from '../../lib/domain/model.js';
import { S3MediaSourceFactory } from '../../lib/store/s3-media-source.js';
import { mediaObjectUrl } from '../../lib/store/s3-signed-requests.js';
import { VerifyingS3 } from '../support/verifying-s3.js';

const REGION = 'eu-west-1';
const BUCKET = 'media-test';
const CREDENTIALS = { accessKeyId: 'AKIDTESTMEDIA', secretAccessKey: 'test-secret-of-the-media-reader', sessionToken: 'session-token-1' };

const s3 = new VerifyingS3(REGION, CREDENTIALS);
let endpoint: string;
const savedEnv: Record<string, string | undefined> = {};
const ENV_NAMES = ['AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL', 'AWS_REGION', ENV.mediaForcePathStyle];

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

beforeAll(async () => {
  endpoint = await s3.start();
  for (const name of ENV_NAMES) savedEnv[name] = process.env[name];
  setEnv({ AWS_ENDPOINT_URL_S3: endpoint, AWS_ENDPOINT_URL: undefined, AWS_REGION: REGION, [ENV.mediaForcePathStyle]: 'true' });
});

afterAll(async () => {
  setEnv(savedEnv);
  await s3.stop();
});

const VIDEO = Uint8Array.from({ length: 50_000 }, (_, index) => (index * 7) % 251);

function mediaItem(objectKey: string, bytes: Uint8Array): MediaItem {
  s3.objects.set(`/${BUCKET}/${objectKey}`, { body: bytes, contentType: 'video/mp4' });
  return {
    id: 'med_1',
    userId: 'usr_1',
    url: `https://media.example.test/${objectKey}`,
    contentType: 'video/mp4',
    sizeBytes: bytes.length,
    durationSeconds: 3,
    objectKey,
    createdAt: '2026-11-21T09:00:00.000Z',
  };
}

function reader(secretAccessKey = CREDENTIALS.secretAccessKey): S3MediaSourceFactory {
  return new S3MediaSourceFactory({ bucket: BUCKET, credentials: async () => ({ ...CREDENTIALS, secretAccessKey }) });
}

describe('the stand-in checks signatures as S3 does', () => {
  it("accepts the official S3 client's GetObject", async () => {
    mediaItem('usr_1/med_0/reference.bin', VIDEO);
    const client = new S3Client({ endpoint, region: REGION, credentials: CREDENTIALS, forcePathStyle: true });
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'usr_1/med_0/reference.bin', Range: 'bytes=10-19' }));
      expect(await out.Body?.transformToByteArray()).toEqual(VIDEO.subarray(10, 20));
    } finally {
      client.destroy();
    }
    expect(s3.seen.at(-1)?.verdict).toBe('ok');
  });

  it('refuses a read signed with the wrong secret: a DependencyError, and no retry', async () => {
    const item = mediaItem('usr_1/med_1/clip.mp4', VIDEO);
    const before = s3.seen.length;
    const read = reader('not-the-secret').open(item).read();
    await expect(read).rejects.toBeInstanceOf(DependencyError);
    await expect(read).rejects.toMatchObject({ cause: { status: 403, message: expect.stringContaining('SignatureDoesNotMatch') } });
    expect(s3.seen.slice(before).map((entry) => entry.verdict)).toEqual(['bad signature']);
  });
});

describe('S3MediaSourceFactory', () => {
  it('reads a whole object and a range with a valid signature covering host, range, date and session token', async () => {
    const item = mediaItem('usr_1/med_2/clip.mp4', VIDEO);
    const source = reader().open(item);
    expect(source).toMatchObject({ contentType: 'video/mp4', sizeBytes: VIDEO.length, durationSeconds: 3 });
    expect(await source.read()).toEqual(VIDEO);
    expect(await source.read({ start: 1_000, end: 33_000 })).toEqual(VIDEO.subarray(1_000, 33_000));
    const [whole, ranged] = s3.seen.slice(-2);
    expect(whole?.verdict).toBe('ok');
    expect(ranged?.verdict).toBe('ok');
    expect(ranged?.signedHeaders).toEqual(expect.arrayContaining(['host', 'range', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token']));
    expect(ranged?.path).toBe(`/${BUCKET}/usr_1/med_2/clip.mp4`);
  });

  it('signs and requests a key with characters that need encoding', async () => {
    const key = "usr_1/med_3/a file (copy)+'1'*.mp4";
    const item = mediaItem(key, VIDEO.subarray(0, 100));
    expect(await reader().open(item).read()).toEqual(VIDEO.subarray(0, 100));
    expect(s3.seen.at(-1)).toMatchObject({ verdict: 'ok', path: `/${BUCKET}/usr_1/med_3/a%20file%20%28copy%29%2B%271%27%2A.mp4` });
  });

  it('tries again after S3 asks to slow down, signing each attempt', async () => {
    const item = mediaItem('usr_1/med_4/clip.mp4', VIDEO);
    const before = s3.seen.length;
    s3.faults.push(503);
    expect(await reader().open(item).read({ start: 0, end: 10 })).toEqual(VIDEO.subarray(0, 10));
    expect(s3.seen.slice(before).map((entry) => entry.verdict)).toEqual(['ok', 'ok']);
  });

  it('a missing object is a DependencyError naming the media, after one request', async () => {
    const item = { ...mediaItem('usr_1/med_5/clip.mp4', VIDEO), objectKey: 'usr_1/med_5/gone.mp4', id: 'med_5' };
    const before = s3.seen.length;
    await expect(reader().open(item).read()).rejects.toThrow(/Could not read media med_5 from the media bucket/);
    expect(s3.seen.length - before).toBe(1);
  });
});

describe('mediaObjectUrl', () => {
  it('path-style on the configured endpoint, virtual-hosted on AWS, path-style for a bucket name with dots', () => {
    expect(mediaObjectUrl({ name: 'media', forcePathStyle: true }, 'u/m/f.png', REGION).href).toBe(`${endpoint}/media/u/m/f.png`);
    const saved = process.env.AWS_ENDPOINT_URL_S3;
    delete process.env.AWS_ENDPOINT_URL_S3;
    try {
      expect(mediaObjectUrl({ name: 'media-abc', forcePathStyle: false }, 'u/m/f.png', REGION).href).toBe('https://media-abc.s3.eu-west-1.amazonaws.com/u/m/f.png');
      expect(mediaObjectUrl({ name: 'media.example', forcePathStyle: false }, 'u/m/f.png', REGION).href).toBe('https://s3.eu-west-1.amazonaws.com/media.example/u/m/f.png');
    } finally {
      process.env.AWS_ENDPOINT_URL_S3 = saved;
    }
  });
});
