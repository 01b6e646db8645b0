/**
 * Run as a child process by the media phase (bench/phases/media.ts), with the bench stack's
 * environment: the media import worker's handler, exactly as deployed, in a process of its own, so
 * its memory is its own. It first imports a small file (warming every module and client), then
 * takes the resident set at rest, then imports the large one while sampling the resident set every
 * few milliseconds. Prints {idleRssBytes, peakRssBytes, atPeak: the heap and buffers then} as JSON.
 *
 *   node --expose-gc --import tsx bench/import-memory.ts <warm-up media id> <measured media id>
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { handler } from '../functions/media-import-worker.js';
import { sdkMeter } from '../lib/store/sdk-metering.js';

const [warmUpId, measuredId] = process.argv.slice(2);
if (!warmUpId || !measuredId) throw new Error('usage: import-memory.ts <warm-up media id> <measured media id>');

function event(mediaId: string): SQSEvent {
  return {
    Records: [
      {
        messageId: `bench-${mediaId}`,
        receiptHandle: 'bench',
        body: JSON.stringify({ kind: 'media-import', mediaId }),
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'bench', ApproximateFirstReceiveTimestamp: String(Date.now()) },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:media-import',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

const context = { getRemainingTimeInMillis: () => 120_000, functionName: 'MediaImportWorker', awsRequestId: 'bench' } as unknown as Context;
const gc = (globalThis as { gc?: () => void }).gc;

await handler(event(warmUpId), context);
// The measured import's DynamoDB and SQS requests alone (the bench's stack sets SDK_METERING=1).
sdkMeter()?.reset();
gc?.();
await new Promise((resolve) => setTimeout(resolve, 200));
const idleRssBytes = process.memoryUsage.rss();
let peakRssBytes = idleRssBytes;
/** Where the memory was at the peak: the heap, buffers outside it. */
let atPeak = process.memoryUsage();
const sampler = setInterval(() => {
  const rss = process.memoryUsage.rss();
  if (rss > peakRssBytes) {
    peakRssBytes = rss;
    atPeak = process.memoryUsage();
  }
}, 5);
const began = performance.now();
await handler(event(measuredId), context);
const handlerMs = performance.now() - began;
clearInterval(sampler);
peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
process.stdout.write(JSON.stringify({ idleRssBytes, peakRssBytes, handlerMs, commands: sdkMeter()?.commands ?? {}, atPeak: { heapUsedBytes: atPeak.heapUsed, externalBytes: atPeak.external, arrayBuffersBytes: atPeak.arrayBuffers } }));
