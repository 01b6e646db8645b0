/**
 * The webhook queue, read by the delivery worker (functions/webhook-delivery-worker.ts). Like the
 * publish queue's, a message only names the records (user, endpoint, events, attempt): the worker
 * reads them, so a message never carries a body or a secret. Two kinds:
 *
 *   the router's first attempts of a stream batch's events to one endpoint (at most MAX_EVENTS_PER_MESSAGE):
 *   {"kind":"webhook-batch","userId","endpointId","events":[{"eventId","eventCreatedAt"},…]}
 *   one attempt of one delivery (a retry, the sweeper's re-send, a test event, a resend from settings):
 *   {"kind":"webhook-delivery","userId","endpointId","eventId","eventCreatedAt","attempt":1,"notBefore":null}
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { MAX_EVENTS_PER_MESSAGE } from '../domain/webhooks.js';
import { parseMessageBody } from './messages.js';
import { isBatchMessage, type WebhookQueue, type WebhookQueueMessage } from '../use-cases/ports/webhooks.js';

const ID = v.pipe(v.string(), v.maxLength(100));
const TIME = v.pipe(v.string(), v.maxLength(40));

const DELIVERY = v.object({
  kind: v.literal('webhook-delivery'),
  userId: ID,
  endpointId: ID,
  eventId: ID,
  eventCreatedAt: TIME,
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)),
  notBefore: v.nullable(TIME),
  manual: v.optional(v.boolean()),
});

const BATCH = v.object({
  kind: v.literal('webhook-batch'),
  userId: ID,
  endpointId: ID,
  events: v.pipe(v.array(v.object({ eventId: ID, eventCreatedAt: TIME })), v.minLength(1), v.maxLength(MAX_EVENTS_PER_MESSAGE)),
});

const MESSAGE = v.variant('kind', [DELIVERY, BATCH]);

export function parseWebhookQueueMessage(body: string): WebhookQueueMessage | null {
  const parsed = parseMessageBody(body, MESSAGE);
  if (!parsed) return null;
  if (parsed.kind === 'webhook-batch') {
    const { kind: _kind, ...batch } = parsed;
    return batch;
  }
  const { kind: _kind, manual, ...message } = parsed;
  return manual === undefined ? message : { ...message, manual };
}

export class SqsWebhookQueue implements WebhookQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly WebhookQueueMessage[], delaySeconds = 0): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map((message, index) => ({
            Id: String(index),
            MessageBody: JSON.stringify({ kind: isBatchMessage(message) ? 'webhook-batch' : 'webhook-delivery', ...message }),
            ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
          })),
        }),
      );
      // A message not queued must fail the caller (the router's batch is then handled again).
      if (out.Failed && out.Failed.length > 0) throw new Error(`SendMessageBatch refused ${out.Failed.length} webhook message(s)`);
    }
  }
}
