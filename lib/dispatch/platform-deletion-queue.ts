/** The deletion queue (PlatformDeletionQueue): one message per soft-deleted published post whose live post must go. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { PlatformDeletionQueue } from '../use-cases/ports/dispatch.js';
import { platformDeletionMessage } from './messages.js';

export class SqsPlatformDeletionQueue implements PlatformDeletionQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueue(postId: string): Promise<void> {
    await this.sqs.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(platformDeletionMessage(postId)) }));
  }
}
