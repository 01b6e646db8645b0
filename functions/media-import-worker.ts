/**
 * Media import queue consumer (lib/use-cases/media-import.ts): each message names a `processing`
 * media; the worker claims it, fetches its URL (lib/egress/media-fetcher.ts) into the bucket and
 * settles it ready or failed. Records are handled one after the other by Powertools' batch
 * processor (an import streams up to 500 MB: one at a time keeps the memory to one part). A
 * failure of our own parts (the table, the bucket) is reported in `batchItemFailures`, so SQS
 * delivers it again (and parks it in the dead-letter queue after its maxReceiveCount, where the
 * sweeper's requeue still brings it back); a refusal of the file is final: the media is failed.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { atColdStart } from '../lib/cold-start.js';
import { ENV, numberEnv, optionalEnv, requireEnv } from '../lib/config.js';
import { IMPORT_TIMEOUT_MS } from '../lib/domain/media-import.js';
import { parseMediaImportMessage } from '../lib/dispatch/media-import-queue.js';
import { HttpMediaFetcher } from '../lib/egress/media-fetcher.js';
import { logger } from '../lib/observability.js';
import { DynamoDbMediaLibraryStore } from '../lib/store/dynamodb-media-library.js';
import { S3MediaUploads } from '../lib/store/s3-media-uploads.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { MediaImports } from '../lib/use-cases/media-import.js';

const processor = new BatchProcessor(EventType.SQS);

/**
 * A full collection after each 8 MiB part the import wrote: the socket's chunks it was gathered
 * from are garbage by then, and left to V8's own pace they pile up to well over the import's memory
 * budget before it collects them (docs/performance.md, "Media imports"). The deployed function runs
 * with --expose-gc for it (infra/stacks/api-stack.ts NODE_FLAGS); elsewhere `gc` is absent and
 * nothing is collected early.
 */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

const imports = atColdStart(
  () =>
    new MediaImports({
      library: new DynamoDbMediaLibraryStore(),
      storage: new S3MediaUploads(collectGarbage ? { afterStreamedPart: () => collectGarbage() } : {}),
      fetcher: new HttpMediaFetcher({
        allowLoopback: optionalEnv(ENV.mediaImportAllowLoopback, 'false') === 'true',
        timeoutMs: numberEnv(ENV.mediaImportTimeoutSeconds, IMPORT_TIMEOUT_MS / 1000) * 1000,
      }),
      mediaBaseUrl: () => requireEnv(ENV.mediaBaseUrl),
      clock: systemClock,
    }),
);

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event, context) => {
  const worker = imports();
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const message = parseMediaImportMessage(record.body);
    if (!message) {
      logger.error('Dropped a message that is not a media import message', { messageId: record.messageId });
      return;
    }
    try {
      const outcome = await worker.run(message.mediaId);
      logger.info('Media import handled', { mediaId: message.mediaId, outcome });
    } catch (error) {
      logger.warn('Media import failed on our side; SQS will deliver it again', { mediaId: message.mediaId, error: error as Error });
      throw error;
    }
  };
  return processPartialResponse(event, handleRecord, processor, { context, processInParallel: false, throwOnFullBatchFailure: false });
});
