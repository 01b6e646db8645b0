/**
 * Ports of the media import (lib/use-cases/media-import.ts): the fetch of a customer's URL
 * (lib/egress/media-fetcher.ts), the queue of imports to run (lib/dispatch/media-import-queue.ts),
 * and the bucket written from a stream (lib/store/s3-media-uploads.ts).
 */
import type { MediaUploadStorage } from './media-upload.js';

/** Why a fetch gave no file, in words the customer reads on the media's `error` (code media_fetch_failed). */
export class MediaFetchError extends Error {
  readonly code = 'media_fetch_failed';
  constructor(message: string) {
    super(message);
    this.name = 'MediaFetchError';
  }
}

export interface FetchedSource {
  /** Content-Length as the server sent it, when it did (a promise, not a fact: the bytes are counted too). */
  declaredBytes: number | null;
  /** The body; it throws MediaFetchError when the deadline passes mid-way. */
  body: AsyncIterable<Uint8Array>;
  /** Stops the transfer (enough was read, or too much). */
  cancel(): void;
}

export interface MediaSourceFetcher {
  /** Connects (following redirects, each checked), and answers once a 2xx status arrived; MediaFetchError otherwise. */
  open(url: string): Promise<FetchedSource>;
}

export interface MediaImportMessage {
  mediaId: string;
}

export interface MediaImportQueue {
  send(message: MediaImportMessage): Promise<void>;
}

export interface MediaImportStorage extends Pick<MediaUploadStorage, 'head' | 'read' | 'move' | 'remove'> {
  /** Writes the stream under `objectKey` with `contentType`, never holding it whole; the bytes written. */
  putStream(objectKey: string, contentType: string, chunks: AsyncIterable<Uint8Array>): Promise<number>;
}
