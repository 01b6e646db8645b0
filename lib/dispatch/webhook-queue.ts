/**
 * The webhook queue: one message per delivery attempt waiting to be made, read by the delivery
 * worker (functions/webhook-delivery-worker.ts). Like the publish queue's, a message only names
 * the records (user, endpoint, event, attempt): the worker reads them, so a message never carries
 * the body or a secret.
 *
 *   {"kind":"webhook-delivery","userId","endpointId","eventId","eventCreatedAt","attempt":1,"notBefore":null}
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import type { WebhookDeliveryMessage, WebhookQueue } from '../use-cases/ports/webhooks.js';

const MESSAGE = v.object({
  kind: v.literal('webhook-delivery'),
  userId: v.pipe(v.string(), v.maxLength(100)),
  endpointId: v.pipe(v.string(), v.maxLength(100)),
  eventId: v.pipe(v.string(), v.maxLength(100)),
  eventCreatedAt: v.pipe(v.string(), v.maxLength(40)),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)),
  notBefore: v.nullable(v.pipe(v.string(), v.maxLength(40))),
  manual: v.optional(v.boolean()),
});

export function parseWebhookDeliveryMessage(body: string): WebhookDeliveryMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const parsed = v.safeParse(MESSAGE, value);
  if (!parsed.success) return null;
  const { kind: _kind, manual, ...message } = parsed.output;
  return manual === undefined ? message : { ...message, manual };
}

export class SqsWebhookQueue implements WebhookQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly WebhookDeliveryMessage[], delaySeconds = 0): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map((message, index) => ({
            Id: String(index),
            MessageBody: JSON.stringify({ kind: 'webhook-delivery', ...message }),
            ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
          })),
        }),
      );
      // A message not queued must fail the caller (the router's batch is then handled again).
      if (out.Failed && out.Failed.length > 0) throw new Error(`SendMessageBatch refused ${out.Failed.length} webhook message(s)`);
    }
  }
}
