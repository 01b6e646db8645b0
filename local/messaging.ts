/**
 * SQS and S3 locally: fauxqs, in this process. Queues and the media bucket are created through the
 * real SDK (so a test worker can create its own on a fauxqs that another process runs), each work
 * queue with a dead-letter queue and a redrive policy like the CDK app gives it.
 *
 * fauxqs keeps everything in memory. Queue messages are meant to be short-lived, but media files
 * are not, so with a media directory every object written to the media bucket is mirrored to disk
 * and loaded back into the bucket at the next start.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { MAX_RECEIVE_COUNT } from '../functions/catalogue.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION, resolveLocalhostSubdomains } from './local-aws.js';

export interface Fauxqs {
  /** S3 endpoint (path-style requests). */
  endpoint: string;
  /** SQS endpoint: the host fauxqs puts in its queue URLs, so the SDK never has to switch hosts. */
  sqsEndpoint: string;
  port: number;
  server: FauxqsServer;
  stop(): Promise<void>;
}

export function sqsEndpointFor(port: number): string {
  return `http://sqs.${LOCAL_REGION}.localhost:${port}`;
}

export async function startFauxqsServer(options: { mediaMirror?: boolean } = {}): Promise<Fauxqs> {
  resolveLocalhostSubdomains();
  // A one-message spy buffer: the spy is only used as the hook that tells the media mirror about
  // writes (see mirrorMediaToDisk), not to keep messages around.
  const server = await startFauxqs({
    port: 0,
    logger: false,
    defaultRegion: LOCAL_REGION,
    ...(options.mediaMirror ? { messageSpies: { bufferSize: 1 } } : {}),
  });
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    sqsEndpoint: sqsEndpointFor(server.port),
    port: server.port,
    server,
    stop: () => (stopping ??= server.stop()),
  };
}

/**
 * `maxSockets`: connections the client may hold open at once (the SDK's default is 50). A client
 * whose long polls would queue behind each other for a connection needs one per poller.
 */
export function sqsClientFor(sqsEndpoint: string, options: { maxSockets?: number } = {}): SQSClient {
  resolveLocalhostSubdomains();
  return new SQSClient({
    endpoint: sqsEndpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    ...(options.maxSockets === undefined ? {} : { requestHandler: { httpAgent: { keepAlive: true, maxSockets: options.maxSockets } } }),
  });
}

export function s3ClientFor(endpoint: string): S3Client {
  return new S3Client({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, forcePathStyle: true });
}

export interface QueueRef {
  name: string;
  url: string;
  arn: string;
}

export interface WorkQueue extends QueueRef {
  deadLetter: QueueRef;
}

export interface LocalQueues {
  publish: WorkQueue;
  deletion: WorkQueue;
  /** Webhook deliveries (functions/webhook-delivery-worker.ts). */
  webhook: WorkQueue;
  /** Media imports from a URL (functions/media-import-worker.ts). */
  mediaImport: WorkQueue;
  /** Where the Scheduler puts a due-post message it could not deliver (SCHEDULER_DLQ_ARN). */
  schedulerDeadLetter: QueueRef;
}

async function createQueue(sqs: SQSClient, name: string, attributes: Record<string, string>): Promise<QueueRef> {
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!created.QueueUrl) throw new Error(`CreateQueue ${name} returned no URL`);
  const described = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: created.QueueUrl, AttributeNames: ['QueueArn'] }));
  const arn = described.Attributes?.QueueArn;
  if (!arn) throw new Error(`Queue ${name} has no ARN`);
  return { name, url: created.QueueUrl, arn };
}

async function createWorkQueue(sqs: SQSClient, name: string, visibilityTimeoutSeconds: number): Promise<WorkQueue> {
  const deadLetter = await createQueue(sqs, `${name}-dlq`, { MessageRetentionPeriod: '1209600' });
  const queue = await createQueue(sqs, name, {
    VisibilityTimeout: String(visibilityTimeoutSeconds),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetter.arn, maxReceiveCount: String(MAX_RECEIVE_COUNT) }),
  });
  return { ...queue, deadLetter };
}

/** Creates (or finds: CreateQueue is idempotent) the work queues, their dead-letter queues and the Scheduler's. */
export async function ensureQueues(
  sqsEndpoint: string,
  options: { prefix?: string; visibilityTimeoutSeconds?: number } = {},
): Promise<LocalQueues> {
  const prefix = options.prefix ?? '';
  const visibility = options.visibilityTimeoutSeconds ?? 30;
  const sqs = sqsClientFor(sqsEndpoint);
  try {
    return {
      publish: await createWorkQueue(sqs, `${prefix}publish`, visibility),
      deletion: await createWorkQueue(sqs, `${prefix}deletion`, visibility),
      webhook: await createWorkQueue(sqs, `${prefix}webhook`, visibility),
      mediaImport: await createWorkQueue(sqs, `${prefix}media-import`, visibility),
      schedulerDeadLetter: await createQueue(sqs, `${prefix}scheduler-dlq`, { MessageRetentionPeriod: '1209600' }),
    };
  } finally {
    sqs.destroy();
  }
}

export async function deleteQueues(sqsEndpoint: string, queues: LocalQueues): Promise<void> {
  const sqs = sqsClientFor(sqsEndpoint);
  try {
    const all = [
      queues.publish,
      queues.publish.deadLetter,
      queues.deletion,
      queues.deletion.deadLetter,
      queues.webhook,
      queues.webhook.deadLetter,
      queues.mediaImport,
      queues.mediaImport.deadLetter,
      queues.schedulerDeadLetter,
    ];
    for (const queue of all) await sqs.send(new DeleteQueueCommand({ QueueUrl: queue.url }));
  } finally {
    sqs.destroy();
  }
}

export async function ensureBucket(s3Endpoint: string, bucket: string): Promise<void> {
  const s3 = s3ClientFor(s3Endpoint);
  try {
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    s3.destroy();
  }
}

interface MirroredObjectMeta {
  key: string;
  contentType: string;
}

/**
 * Mirrors the media bucket to `dir`: first loads every object saved there by earlier runs into the
 * bucket, then writes each new or replaced object to disk and removes deleted ones. One file per
 * object (`objects/<url-encoded key>`) plus its content type (`meta/<url-encoded key>.json`).
 *
 * fauxqs has no change feed, but it reports every S3 write to its message spy, and a spy waiter
 * whose matcher never matches is called for every event: that is the hook used here.
 */
export async function mirrorMediaToDisk(
  fauxqs: Fauxqs,
  bucket: string,
  dir: string,
  log: (message: string, error?: unknown) => void,
): Promise<{ loaded: number; flush(): Promise<void> }> {
  const objectsDir = join(dir, 'objects');
  const metaDir = join(dir, 'meta');
  await mkdir(objectsDir, { recursive: true });
  await mkdir(metaDir, { recursive: true });
  const s3 = s3ClientFor(fauxqs.endpoint);

  let loaded = 0;
  for (const file of await readdir(metaDir)) {
    if (!file.endsWith('.json')) continue;
    const encoded = file.slice(0, -'.json'.length);
    try {
      const meta = JSON.parse(await readFile(join(metaDir, file), 'utf8')) as MirroredObjectMeta;
      const body = await readFile(join(objectsDir, encoded));
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: meta.key, Body: body, ContentType: meta.contentType }));
      loaded++;
    } catch (error) {
      log(`media mirror: could not reload ${decodeURIComponent(encoded)}`, error);
    }
  }

  // Writes of one key happen in order; different keys in parallel.
  const pending = new Map<string, Promise<void>>();
  const enqueue = (key: string, work: () => Promise<void>): void => {
    const next = (pending.get(key) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => log(`media mirror: could not save ${key}`, error))
      .finally(() => {
        if (pending.get(key) === next) pending.delete(key);
      });
    pending.set(key, next);
  };
  const save = async (key: string): Promise<void> => {
    const encoded = encodeURIComponent(key);
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = await object.Body?.transformToByteArray();
    if (!body) return;
    const meta: MirroredObjectMeta = { key, contentType: object.ContentType ?? 'application/octet-stream' };
    // Write to a temporary name and rename: a crash never leaves half a file under the real name.
    await writeFile(join(objectsDir, `${encoded}.tmp`), body);
    await rename(join(objectsDir, `${encoded}.tmp`), join(objectsDir, encoded));
    await writeFile(join(metaDir, `${encoded}.json.tmp`), JSON.stringify(meta));
    await rename(join(metaDir, `${encoded}.json.tmp`), join(metaDir, `${encoded}.json`));
  };
  const remove = async (key: string): Promise<void> => {
    const encoded = encodeURIComponent(key);
    await rm(join(metaDir, `${encoded}.json`), { force: true });
    await rm(join(objectsDir, encoded), { force: true });
  };

  void fauxqs.server.spy.waitForMessage((event) => {
    if (event.service === 's3' && event.bucket === bucket) {
      if (event.status === 'uploaded') enqueue(event.key, () => save(event.key));
      else if (event.status === 'deleted') enqueue(event.key, () => remove(event.key));
    }
    return false;
  });

  return {
    loaded,
    flush: async () => {
      while (pending.size > 0) await Promise.all(pending.values());
    },
  };
}
