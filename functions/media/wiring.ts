/**
 * The composition the media functions share (lib/use-cases/media-files.ts): each builds the use
 * case with only the adapters its operation uses, so its bundle and environment hold only those
 * (infra/stacks/function-access.ts): the posts table only for a delete (media_in_use), the
 * idempotency table only for the two POSTs, the cursor secret only for the list. A part a
 * function does not wire fails loudly if its operation ever reached it.
 */
import { ENV, optionalEnv, requireEnv } from '../../lib/config.js';
import { notWired } from '../../lib/not-wired.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsMediaImportQueue } from '../../lib/dispatch/media-import-queue.js';
import { DynamoDbIdempotencyStore } from '../../lib/store/dynamodb-idempotency-store.js';
import { DynamoDbMediaLibraryStore } from '../../lib/store/dynamodb-media-library.js';
import { S3MediaUploads } from '../../lib/store/s3-media-uploads.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { WITHOUT_IDEMPOTENCY_KEYS } from '../../lib/use-cases/idempotent-request.js';
import { MediaFiles, type MediaFilesDeps } from '../../lib/use-cases/media-files.js';

export type MediaParts = Partial<Pick<MediaFilesDeps, 'posts' | 'cursorSigningKey' | 'storage' | 'importQueue'>> & { idempotency?: boolean; mediaBaseUrl?: boolean };

export function mediaFiles(parts: MediaParts): MediaFiles {
  return new MediaFiles({
    library: new DynamoDbMediaLibraryStore(),
    storage: parts.storage ?? notWired('The media bucket'),
    idempotency: parts.idempotency ? new DynamoDbIdempotencyStore() : WITHOUT_IDEMPOTENCY_KEYS,
    posts: parts.posts ?? notWired('The posts table'),
    mediaBaseUrl: parts.mediaBaseUrl ? () => requireEnv(ENV.mediaBaseUrl) : () => { throw new Error('The media base URL is not wired in this function'); },
    cursorSigningKey: parts.cursorSigningKey ?? (() => Promise.reject(new Error('The cursor signing key is not wired in this function'))),
    importQueue: parts.importQueue ?? notWired('The media import queue'),
    allowLoopbackImports: optionalEnv(ENV.mediaImportAllowLoopback, 'false') === 'true',
    clock: systemClock,
  });
}

/** The import queue (POST /media with sourceUrl). */
export function mediaImportQueue(): SqsMediaImportQueue {
  return new SqsMediaImportQueue(new SQSClient({}), requireEnv(ENV.mediaImportQueueUrl));
}

/** The S3 adapter of the media functions that touch the bucket. */
export function mediaBucketAccess(): S3MediaUploads {
  return new S3MediaUploads();
}
