/**
 * The publish queue as the worker and the sweeper use it: put a post's message back with a delay
 * (the last stretch before its due time, a retry after a transient failure, a message the sweeper
 * found lost). Same message body as the dispatcher's (messages.ts).
 */
import { GetQueueAttributesCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { MAX_QUEUE_DELAY_SECONDS } from '../domain/publishing.js';
import { logger } from '../observability.js';
import type { PublishGroup, PublishGroupQueue, PublishQueue } from '../use-cases/ports/dispatch.js';
import { publishGroupMessage, publishMessage } from './messages.js';

const BATCH = 10;

export class SqsPublishQueue implements PublishQueue, PublishGroupQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  send(entries: readonly { postId: string; scheduledFor: string; delaySeconds: number }[]): Promise<{ failed: string[] }> {
    return this.sendBodies(entries.map((entry) => ({ postIds: [entry.postId], body: publishMessage(entry.postId, entry.scheduledFor), delaySeconds: entry.delaySeconds })));
  }

  /** Each group as one message (lib/dispatch/messages.ts, PublishGroupMessage). */
  sendGroups(groups: readonly PublishGroup[]): Promise<{ failed: string[] }> {
    return this.sendBodies(
      groups.map((group) => ({
        postIds: group.postIds,
        body: publishGroupMessage(group.postIds, group.scheduledFor, group.prepareMs),
        delaySeconds: group.delaySeconds,
      })),
    );
  }

  private async sendBodies(entries: readonly { postIds: readonly string[]; body: object; delaySeconds: number }[]): Promise<{ failed: string[] }> {
    const failed: string[] = [];
    for (let start = 0; start < entries.length; start += BATCH) {
      const chunk = entries.slice(start, start + BATCH);
      try {
        const out = await this.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: chunk.map((entry, index) => ({
              Id: String(index),
              MessageBody: JSON.stringify(entry.body),
              DelaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.floor(entry.delaySeconds))),
            })),
          }),
        );
        for (const refused of out.Failed ?? []) {
          const entry = chunk[Number(refused.Id)];
          if (entry) failed.push(...entry.postIds);
        }
      } catch (error) {
        logger.error('Could not put publish messages back on the queue', { error: error as Error, posts: chunk.flatMap((entry) => entry.postIds) });
        failed.push(...chunk.flatMap((entry) => entry.postIds));
      }
    }
    return { failed };
  }

  /**
   * When the queue was created (Unix seconds, as text). A queue created again has lost every
   * message it held (the local stack's in-memory queues after a restart): the sweeper then looks
   * ahead for posts whose messages went with it.
   */
  async generation(): Promise<string | null> {
    const out = await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['CreatedTimestamp'] }));
    return out.Attributes?.CreatedTimestamp ?? null;
  }
}
