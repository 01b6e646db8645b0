/**
 * Phase `media` (issue 29): what completing an upload costs. A 5 MB image and a 200 MB video are
 * each uploaded through the API (create, PUT to the presigned URL), then completed while timed and
 * metered: the latency of POST /media/{id}/complete beside a floor (GET /media/{id}: the same HTTP
 * path, authentication and one item read, none of complete's checks), the S3 requests and the bytes
 * complete read out of the bucket (bench/s3-meter.ts: a video is checked by ranged reads of its box
 * headers and its moov, never read whole; budget: under 1 MB for the 200 MB video), DynamoDB
 * requests and units, and from those the AWS bill per 1,000 media uploaded. Then the import
 * worker's memory importing the same 200 MB video from a URL (bench/import-memory.ts).
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { newId } from '../../lib/domain/ids.js';
import { IMPORT_LEASE_SECONDS } from '../../lib/domain/media-import.js';
import { call, log, type BenchContext, type BenchUser } from '../harness.js';
import { PRICES } from '../prices.js';
import { budget, ms, table, type Budget, type PhaseOutcome } from '../report.js';
import { round, summarize } from '../stats.js';
import { costOf, metered, type OperationCost } from './cost.js';
import type { CommandMeter } from '../../lib/store/sdk-metering.js';
import type { S3Traffic } from '../s3-meter.js';

const MiB = 1024 * 1024;
/** Bytes complete may read of a 200 MB video: its box headers and its moov, a few kilobytes. */
const VIDEO_BYTES_READ_LIMIT = 1_000_000;
/** The import worker's peak memory over its resting memory, importing a 200 MB video (issue 29). */
const IMPORT_MEMORY_LIMIT_BYTES = 64 * MiB;
/** The import worker's memory (infra/stacks/api-stack.ts, SIZING.MediaImportWorker). */
const IMPORT_WORKER_MEMORY_GB = 0.5;
/** The media functions' memory (infra/stacks/api-stack.ts, API_FUNCTION). */
const API_MEMORY_GB = 0.5;

interface MediaView {
  id: string;
  status: string;
  url: string | null;
  upload?: { url: string; method: string; headers: Record<string, string> } | null;
  error?: unknown;
}

interface Sample {
  name: string;
  fileName: string;
  contentType: string;
  body: Buffer;
  repetitions: number;
}

/** A PNG as the library reads it (signature and a 1x1 IHDR), padded with an ancillary chunk to `size` bytes. */
function png(size: number): Buffer {
  const head = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ', 'base64');
  const pad = Buffer.alloc(size - head.byteLength, 7);
  pad.writeUInt32BE(size - head.byteLength - 12, 0);
  pad.write('teXt', 4, 'latin1');
  return Buffer.concat([head, pad]);
}

function box(type: string, content: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + content.byteLength, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, content]);
}

/** An MP4 of `size` bytes with its moov after the mdat, as many encoders write it: complete must walk the box headers to find it. */
function mp4(size: number, seconds: number): Buffer {
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(seconds * 1000, 16);
  const ftyp = box('ftyp', Buffer.from('isom\0\0\0\0isomavc1', 'latin1'));
  const moov = box('moov', box('mvhd', mvhd));
  const mdat = box('mdat', Buffer.alloc(size - ftyp.byteLength - moov.byteLength - 8, 1));
  return Buffer.concat([ftyp, mdat, moov]);
}

async function uploaded(context: BenchContext, user: BenchUser, sample: Sample): Promise<string> {
  const created = await call<MediaView>(context.stack, user, 'POST', '/media', { fileName: sample.fileName, contentType: sample.contentType, size: sample.body.byteLength });
  if (created.status !== 201 || !created.body.upload) throw new Error(`media create failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
  const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: sample.body });
  if (!put.ok) throw new Error(`upload PUT failed: ${put.status} ${(await put.text()).slice(0, 300)}`);
  return created.body.id;
}

interface CompleteFigures {
  sample: string;
  sizeBytes: number;
  completeMs: ReturnType<typeof summarize>;
  floorMs: ReturnType<typeof summarize>;
  /** The most bytes one complete read out of the bucket, and that complete's requests. */
  bytesRead: number;
  s3: Omit<S3Traffic, 'ranges'> & { ranges: string[] };
  dynamodb: OperationCost;
}

async function measureComplete(context: BenchContext, user: BenchUser, sample: Sample): Promise<CompleteFigures> {
  const ids: string[] = [];
  for (let index = 0; index < sample.repetitions; index++) ids.push(await uploaded(context, user, sample));
  const latencies: number[] = [];
  let heaviest: S3Traffic | null = null;
  const dynamodb = await metered(`complete: ${sample.name}`, sample.repetitions, async (repetition) => {
    const id = ids[repetition] as string;
    context.s3.reset();
    const began = performance.now();
    const completed = await call<MediaView>(context.stack, user, 'POST', `/media/${id}/complete`, {});
    latencies.push(performance.now() - began);
    if (completed.status !== 200 || completed.body.status !== 'ready') throw new Error(`complete failed: ${completed.status} ${JSON.stringify(completed.body).slice(0, 300)}`);
    const traffic = context.s3.traffic();
    if (!heaviest || traffic.bytesRead > heaviest.bytesRead) heaviest = traffic;
  });
  // The floor: the same route's path, key check and one read of the item, without complete's work.
  const floors: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const id of ids) {
      const began = performance.now();
      const got = await call<MediaView>(context.stack, user, 'GET', `/media/${id}`);
      floors.push(performance.now() - began);
      if (got.status !== 200) throw new Error(`media get failed: ${got.status}`);
    }
  }
  for (const id of ids) await call(context.stack, user, 'DELETE', `/media/${id}`);
  const most = heaviest ?? context.s3.traffic();
  return { sample: sample.name, sizeBytes: sample.body.byteLength, completeMs: summarize(latencies), floorMs: summarize(floors), bytesRead: most.bytesRead, s3: most, dynamodb };
}

/** The AWS bill per 1,000 media uploaded through the API (create, the client's PUT, complete), storage apart. */
function perThousand(figures: CompleteFigures, create: OperationCost, createMs: number): { usd: number; lines: Record<string, number>; storagePerMonthUsd: number } {
  const lines: Record<string, number> = {
    'API Gateway (create, complete)': 2 * PRICES.httpApiRequest.usd,
    'Lambda requests': 2 * PRICES.lambdaRequest.usd,
    'Lambda GB-seconds': ((createMs + figures.completeMs.p50) / 1000) * API_MEMORY_GB * PRICES.lambdaArmGbSecond.usd,
    DynamoDB:
      (create.readUnits + figures.dynamodb.readUnits) * PRICES.dynamodbReadRequestUnit.usd +
      (create.writeUnits + figures.dynamodb.writeUnits) * PRICES.dynamodbWriteRequestUnit.usd,
    // The client's PUT and complete's copy to the served key are tier-1 requests; HEAD and GET tier 2; DELETE is free.
    'S3 requests': (1 + figures.s3.puts + figures.s3.copies) * PRICES.s3PutRequest.usd + (figures.s3.gets + figures.s3.heads) * PRICES.s3GetRequest.usd,
  };
  for (const key of Object.keys(lines)) lines[key] = (lines[key] as number) * 1000;
  const usd = Object.values(lines).reduce((sum, value) => sum + value, 0);
  return { usd, lines, storagePerMonthUsd: (figures.sizeBytes * 1000 / 1e9) * PRICES.s3StorageGbMonth.usd };
}

const run = promisify(execFile);

interface ImportMemory {
  sizeBytes: number;
  idleRssBytes: number;
  peakRssBytes: number;
  /** At the peak: the JavaScript heap, and the buffers outside it (the parts, and received chunks not yet collected). */
  atPeak: { heapUsedBytes: number; externalBytes: number; arrayBuffersBytes: number };
  /** Wall time of the child process: its start, the warm-up import and the measured one. */
  importMs: number;
  /** The measured import's handler alone (fetch from a server on this machine, parts to the emulator, checks, copy). */
  handlerMs: number;
  /** Its SDK requests (DynamoDB, SQS) as the child's metering counted them. */
  commands: Record<string, CommandMeter>;
}

/**
 * The import worker's memory importing a 200 MB video, in a process of its own
 * (bench/import-memory.ts) with the stack's environment: its resident set at rest after a first
 * small import, and its peak while the large one streams through (budget: 64 MB over rest). The
 * two media are written `processing` straight to the table, due well after the run, so no queue
 * message exists for the stack's own worker to take first and the sweeper leaves them alone.
 */
async function measureImportMemory(context: BenchContext, user: BenchUser, video: Buffer, image: Buffer): Promise<ImportMemory> {
  const server = createServer((request, response) => {
    const body = request.url === '/clip.mp4' ? video : image;
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.byteLength) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Imported only now: the store's module builds the shared DynamoDB client, which must see the
  // stack's SDK_METERING=1 (a static import made it at the bench's start, and every figure of the
  // phase read 0 DynamoDB requests).
  const { DynamoDbMediaLibraryStore } = await import('../../lib/store/dynamodb-media-library.js');
  const library = new DynamoDbMediaLibraryStore();
  const processing = async (path: string): Promise<string> => {
    const id = newId('med');
    const at = new Date().toISOString();
    await library.addPending(
      {
        id,
        userId: user.userId,
        url: '',
        contentType: 'application/octet-stream',
        sizeBytes: 0,
        durationSeconds: null,
        objectKey: `incoming/${user.userId}/${id}${path}`,
        createdAt: at,
        updatedAt: at,
        status: 'processing',
        fileName: path.slice(1),
        altText: null,
        sourceUrl: `${origin}${path}`,
        dueAt: new Date(Date.now() + 10 * IMPORT_LEASE_SECONDS * 1000).toISOString(),
        importClaims: 0,
      },
      null,
    );
    return id;
  };
  try {
    const warmUp = await processing('/pixel.png');
    const measured = await processing('/clip.mp4');
    const began = performance.now();
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/import-memory.ts', warmUp, measured], { env: process.env, maxBuffer: 1024 * 1024 });
    const importMs = performance.now() - began;
    const figures = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Omit<ImportMemory, 'sizeBytes' | 'importMs'>;
    context.s3.reset();
    const settled = await call<MediaView>(context.stack, user, 'GET', `/media/${measured}`);
    if (settled.body.status !== 'ready') throw new Error(`the measured import did not end ready: ${JSON.stringify(settled.body).slice(0, 300)}`);
    for (const id of [warmUp, measured]) await call(context.stack, user, 'DELETE', `/media/${id}`);
    return { sizeBytes: video.byteLength, ...figures, importMs };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * The AWS bill per 1,000 imports of a file like the measured one: the create (its DynamoDB work
 * taken as an upload session's create, the same idempotency record and pending item, without the
 * STS call), the queue message (send, receive, delete), the worker's time at its memory and its
 * metered DynamoDB requests, and S3: the multipart write (start, one PUT per 8 MiB part,
 * complete) plus what a complete of the same file reads and copies.
 */
function importPerThousand(imported: ImportMemory, create: OperationCost, createMs: number, completeOfSameFile: CompleteFigures): { usd: number; lines: Record<string, number> } {
  const worker = costOf('import worker', imported.commands, 1);
  const parts = Math.max(1, Math.ceil(imported.sizeBytes / (8 * MiB)));
  const lines: Record<string, number> = {
    'API Gateway (create)': PRICES.httpApiRequest.usd,
    'Lambda requests (create, worker)': 2 * PRICES.lambdaRequest.usd,
    'Lambda GB-seconds': (createMs / 1000) * API_MEMORY_GB * PRICES.lambdaArmGbSecond.usd + (imported.handlerMs / 1000) * IMPORT_WORKER_MEMORY_GB * PRICES.lambdaArmGbSecond.usd,
    'SQS (send, receive, delete)': 3 * PRICES.sqsRequest.usd,
    DynamoDB: (create.readUnits + worker.readUnits) * PRICES.dynamodbReadRequestUnit.usd + (create.writeUnits + worker.writeUnits) * PRICES.dynamodbWriteRequestUnit.usd,
    'S3 requests': (parts + 2 + completeOfSameFile.s3.copies) * PRICES.s3PutRequest.usd + (completeOfSameFile.s3.gets + completeOfSameFile.s3.heads) * PRICES.s3GetRequest.usd,
  };
  for (const key of Object.keys(lines)) lines[key] = (lines[key] as number) * 1000;
  return { usd: Object.values(lines).reduce((sum, value) => sum + value, 0), lines };
}

export async function mediaPhase(context: BenchContext): Promise<PhaseOutcome> {
  const user = context.users.cost;
  log('media: uploading and completing a 5 MB image and a 200 MB video');
  const createLatencies: number[] = [];
  const create = await metered('create an upload session', 5, async () => {
    const began = performance.now();
    const created = await call<MediaView>(context.stack, user, 'POST', '/media', { fileName: 'session.png', contentType: 'image/png', size: 1000 });
    createLatencies.push(performance.now() - began);
    if (created.status !== 201) throw new Error(`media create failed: ${created.status}`);
    await call(context.stack, user, 'DELETE', `/media/${created.body.id}`);
  });
  const samples: Sample[] = [
    { name: '5 MB image', fileName: 'chart.png', contentType: 'image/png', body: png(5 * MiB), repetitions: 10 },
    { name: '200 MB video', fileName: 'clip.mp4', contentType: 'video/mp4', body: mp4(200 * 1000 * 1000, 42), repetitions: 3 },
  ];
  const figures: CompleteFigures[] = [];
  for (const sample of samples) {
    figures.push(await measureComplete(context, user, sample));
    log(`media: ${sample.name} done`);
  }
  log('media: importing a 200 MB video from a URL in a worker process of its own');
  const imported = await measureImportMemory(context, user, (samples[1] as Sample).body, png(1000));
  const importOverRestBytes = imported.peakRssBytes - imported.idleRssBytes;
  const createMs = summarize(createLatencies).p50;
  const video = figures.find((entry) => entry.sample === '200 MB video');
  const budgets: Budget[] = [
    ...(video ? [budget('media complete, 200 MB video: bytes read from S3', video.bytesRead, VIDEO_BYTES_READ_LIMIT, 'bytes')] : []),
    budget('media import, 200 MB video: worker memory over rest', round(importOverRestBytes / MiB), IMPORT_MEMORY_LIMIT_BYTES / MiB, 'MB'),
  ];
  const costs = Object.fromEntries(figures.map((entry) => [entry.sample, perThousand(entry, create, createMs)]));
  const importCost = video ? importPerThousand(imported, create, createMs, video) : null;
  const report = [
    'Media uploads through the API: POST /media/{id}/complete (p50 / p99 ms) beside GET /media/{id} (its floor), what it read from S3',
    table([
      ['file', 'complete p50', 'p99', 'floor p50', 'ratio', 'bytes read', 'S3 GET / HEAD / COPY / DELETE', 'DDB req', 'RRU', 'WRU'],
      ...figures.map((entry) => [
        entry.sample,
        ms(entry.completeMs.p50),
        ms(entry.completeMs.p99),
        ms(entry.floorMs.p50),
        `${round(entry.completeMs.p50 / entry.floorMs.p50)}x`,
        String(entry.bytesRead),
        `${entry.s3.gets} / ${entry.s3.heads} / ${entry.s3.copies} / ${entry.s3.deletes}`,
        ms(entry.dynamodb.dynamodbRequests),
        ms(entry.dynamodb.readUnits),
        ms(entry.dynamodb.writeUnits),
      ]),
    ]),
    `create (upload session): p50 ${ms(createMs)} ms, ${ms(create.dynamodbRequests)} DynamoDB requests`,
    `import of a ${Math.round(imported.sizeBytes / 1e6)} MB video from a URL: the worker's resident memory ${round(imported.idleRssBytes / MiB)} MB at rest, ${round(imported.peakRssBytes / MiB)} MB at its peak (+${round(importOverRestBytes / MiB)} MB; at the peak ${round(imported.atPeak.arrayBuffersBytes / MiB)} MB of array buffers, ${round(imported.atPeak.heapUsedBytes / MiB)} MB of heap); ${ms(imported.importMs)} ms in all, its process start included`,
    '',
    'AWS cost per 1,000 media uploaded through the API (us-east-1 on-demand, free tiers not subtracted; storage apart, per month)',
    ...Object.entries(costs).flatMap(([name, cost]) => [
      `  ${name}: $${cost.usd.toFixed(4)}; storage $${cost.storagePerMonthUsd.toFixed(2)} a month`,
      ...Object.entries(cost.lines).map(([line, usd]) => `    ${line}: $${usd.toFixed(5)}`),
    ]),
    ...(importCost
      ? [`  200 MB video imported from a URL: $${importCost.usd.toFixed(4)}`, ...Object.entries(importCost.lines).map(([line, usd]) => `    ${line}: $${usd.toFixed(5)}`)]
      : []),
    '',
  ];
  return {
    results: { media: { create: { p50Ms: round(createMs), dynamodb: create }, complete: figures, costPerThousandMedia: costs, importMemory: imported, costPerThousandImports: importCost } },
    budgets,
    report,
    notes: ['Complete\'s latency is reported beside its floor, not budgeted: it is bounded by S3 round trips, which the S3 emulator here does not time as S3 does.'],
  };
}
