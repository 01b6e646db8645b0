/**
 * The media import worker and the sweeper's part in it (beyond-v2.md "Media through the API"): a
 * `processing` media (POST /media with sourceUrl, lib/use-cases/media-files.ts) is fetched from its
 * URL, streamed into the bucket's incoming prefix, checked with the library's rules exactly as a
 * completed upload is (inspectStoredFile), moved to its served key and made `ready`; or `failed`
 * with why. The item's change to ready or failed is what becomes the `media.ready` /
 * `media.failed` event (the webhook router reads it from the table's stream: the outbox).
 *
 * Nothing stuck, nothing twice:
 * - a worker claims the import before fetching (a conditional write: only one worker holds it, for
 *   IMPORT_LEASE_SECONDS); a copy of the message, or the sweeper's, finds it held and is dropped;
 * - a worker killed mid-import leaves the item `processing` with its lease running out; the sweeper
 *   (byMediaDue) queues it again and a new worker claims it, at most MAX_IMPORT_CLAIMS times;
 * - every attempt writes the same incoming key and the same served key, so a file is never kept
 *   twice; the settle is conditioned on the item still being `processing`.
 */
import { ApiError } from '../domain/errors.js';
import { IMPORT_LEASE_SECONDS, MAX_IMPORT_BYTES, MAX_IMPORT_CLAIMS, ruleByContent } from '../domain/media-import.js';
import { mediaUrl, servedObjectKey } from '../domain/media-library.js';
import { describeLimit, SNIFF_BYTES } from '../domain/media-upload-rules.js';
import { mediaStatus, type MediaItem } from '../domain/model.js';
import { failMedia, roomFor, settleStoredFile } from './media-files.js';
import type { Clock } from './ports/clock.js';
import { MediaFetchError, type MediaImportQueue, type MediaImportStorage, type MediaSourceFetcher } from './ports/media-import.js';
import type { MediaLibraryStore } from './ports/media-upload.js';
import { ACCEPTED_IN_WORDS, inspectStoredFile, MediaLibraryError } from './settings/media-library.js';

export interface MediaImportDeps {
  library: Pick<MediaLibraryStore, 'get' | 'claimImport' | 'markReady' | 'markFailed' | 'storedBytes'>;
  storage: MediaImportStorage;
  fetcher: MediaSourceFetcher;
  mediaBaseUrl: () => string;
  clock: Clock;
}

export type ImportOutcome = 'ready' | 'failed' | 'skipped';

/** Media the sweeper looks at per run at most: a backlog drains over a few runs, never in one long one. */
const SWEEP_LIMIT = 100;

export class MediaImports {
  constructor(private readonly deps: MediaImportDeps) {}

  /** One queued import: claimed, fetched, checked, settled. 'skipped' when it is not this worker's to run. */
  async run(mediaId: string): Promise<ImportOutcome> {
    const item = await this.deps.library.get(mediaId);
    if (!item || mediaStatus(item) !== 'processing' || !item.sourceUrl) return 'skipped';
    const now = this.deps.clock.now();
    const leaseOver = item.dueAt !== undefined && item.dueAt !== null && item.dueAt <= now.toISOString();
    if ((item.importClaims ?? 0) >= MAX_IMPORT_CLAIMS && leaseOver) {
      await this.fail(item, new MediaFetchError(`The import did not finish after ${MAX_IMPORT_CLAIMS} attempts.`), []);
      return 'failed';
    }
    if (!(await this.deps.library.claimImport(item, now, new Date(now.getTime() + IMPORT_LEASE_SECONDS * 1000)))) return 'skipped';
    const incomingKey = item.objectKey;
    try {
      const contentType = await this.fetchInto(item.sourceUrl, incomingKey);
      const head = await this.deps.storage.head(incomingKey);
      if (!head) throw new MediaFetchError('The file could not be stored.');
      const inspected = await inspectStoredFile(this.deps.storage, incomingKey, { ...head, contentType });
      await roomFor(this.deps.library, item.userId, head.sizeBytes);
      const servedKey = servedObjectKey(incomingKey);
      await this.deps.storage.move(incomingKey, servedKey);
      const file = { ...inspected, url: mediaUrl(this.deps.mediaBaseUrl(), servedKey), objectKey: servedKey, sizeBytes: head.sizeBytes, updatedAt: this.deps.clock.now().toISOString() };
      const settled = await settleStoredFile(this.deps, item, file, null, 'Your media library became full while this file was imported; delete files you no longer need.');
      // Settled meanwhile (deleted): the copy made here went with it.
      return settled.outcome === 'ready' ? 'ready' : settled.outcome === 'over_quota' ? 'failed' : 'skipped';
    } catch (error) {
      const refusal = error instanceof MediaFetchError || error instanceof MediaLibraryError || error instanceof ApiError ? error : null;
      // Anything else (the bucket or the table failing) is tried again: the message comes back, or the sweeper brings it.
      if (!refusal) throw error;
      await this.fail(item, refusal, [incomingKey]);
      return 'failed';
    }
  }

  /**
   * The body streamed to `objectKey`, counted as it arrives: its type read from its first bytes
   * (whatever the server called it), and the transfer cut as soon as it passes that type's limit.
   */
  private async fetchInto(sourceUrl: string, objectKey: string): Promise<string> {
    const source = await this.deps.fetcher.open(sourceUrl);
    if (source.declaredBytes !== null && source.declaredBytes > MAX_IMPORT_BYTES) {
      source.cancel();
      throw new MediaFetchError(`The file is too large (${source.declaredBytes} bytes); the library takes files of at most ${MAX_IMPORT_BYTES} bytes.`);
    }
    const iterator = source.body[Symbol.asyncIterator]();
    // The first bytes, enough to tell the type, before anything is written.
    const first: Uint8Array[] = [];
    let buffered = 0;
    let ended = false;
    while (buffered < SNIFF_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      first.push(next.value);
      buffered += next.value.byteLength;
    }
    const head = Buffer.concat(first);
    if (head.byteLength === 0) throw new MediaFetchError('The server sent an empty file.');
    const rule = ruleByContent(head.subarray(0, SNIFF_BYTES));
    if (!rule) {
      source.cancel();
      const looksLikeHtml = /^\s*</.test(head.toString('latin1'));
      throw new MediaFetchError(`The URL does not serve a file the library takes (${looksLikeHtml ? 'it answered a web page' : 'its contents are of another kind'}); accepted: ${ACCEPTED_IN_WORDS}.`);
    }
    if (source.declaredBytes !== null && source.declaredBytes > rule.maxBytes) {
      source.cancel();
      throw new MediaFetchError(`The file is too large: ${describeLimit(rule)} is accepted.`);
    }
    let total = 0;
    const counted = async function* (): AsyncGenerator<Uint8Array> {
      total += head.byteLength;
      if (total > rule.maxBytes) throw new MediaFetchError(`The file is too large: ${describeLimit(rule)} is accepted.`);
      yield head;
      if (ended) return;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        total += next.value.byteLength;
        if (total > rule.maxBytes) {
          source.cancel();
          throw new MediaFetchError(`The file is too large: ${describeLimit(rule)} is accepted.`);
        }
        yield next.value;
      }
    };
    await this.deps.storage.putStream(objectKey, rule.contentType, counted());
    return rule.contentType;
  }

  private fail(item: MediaItem, error: { code: string; message: string }, objectKeys: string[]): Promise<void> {
    return failMedia(this.deps, item, error, objectKeys);
  }
}

export interface SweepMediaDeps {
  library: Pick<MediaLibraryStore, 'get' | 'markFailed' | 'dueMedia'>;
  storage: Pick<MediaImportStorage, 'remove'>;
  queue: MediaImportQueue;
  clock: Clock;
}

export class SweepMedia {
  constructor(private readonly deps: SweepMediaDeps) {}

  /**
   * The sweeper's run: every media whose due time has come. An import nobody holds (its message
   * lost, its worker killed) is queued again; an upload never completed within its hour fails
   * (`media_upload_missing`), and any bytes that did arrive are removed.
   */
  async sweep(): Promise<{ requeued: number; abandoned: number }> {
    const now = this.deps.clock.now();
    let requeued = 0;
    let abandoned = 0;
    for (const mediaId of await this.deps.library.dueMedia(now, SWEEP_LIMIT)) {
      const item = await this.deps.library.get(mediaId);
      if (!item) continue;
      const status = mediaStatus(item);
      if (status === 'processing') {
        await this.deps.queue.send({ mediaId });
        requeued += 1;
      } else if (status === 'pending') {
        const failure = { code: 'media_upload_missing', message: 'No file was completed within the hour its upload URL was valid; create the media again.' };
        if (await this.deps.library.markFailed(item, failure, now.toISOString())) {
          await this.deps.storage.remove(item.objectKey);
          abandoned += 1;
        }
      }
    }
    return { requeued, abandoned };
  }
}
