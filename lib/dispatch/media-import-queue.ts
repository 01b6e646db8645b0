/**
 * The media import queue, read by the import worker (functions/media-import-worker.ts). A message
 * only names the media, {"kind":"media-import","mediaId"}: the worker reads the item (its URL, its
 * owner), so a message never carries a customer's URL.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import type { MediaImportMessage, MediaImportQueue } from '../use-cases/ports/media-import.js';
import { parseMessageBody } from './messages.js';

const MESSAGE = v.object({ kind: v.literal('media-import'), mediaId: v.pipe(v.string(), v.regex(/^med_[0-9A-Za-z]{20}$/)) });

export function parseMediaImportMessage(body: string): MediaImportMessage | null {
  const message = parseMessageBody(body, MESSAGE);
  return message ? { mediaId: message.mediaId } : null;
}

export class SqsMediaImportQueue implements MediaImportQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(message: MediaImportMessage): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify({ kind: 'media-import', mediaId: message.mediaId }) }));
  }
}
