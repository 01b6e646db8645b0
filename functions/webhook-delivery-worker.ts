/**
 * Webhook queue consumer (lib/use-cases/webhooks/deliver-webhook.ts): a message is one endpoint's
 * events (the router's batch) or one attempt (a retry, a resend, a test); the router's messages of
 * one endpoint in a receive are delivered as one (mergeBatchMessages). The records of a batch
 * are delivered at the same time, so a slow receiver holds only its own deliveries (bounded by the
 * endpoint's in-flight slots and the message's turn), never the others of the batch.
 * Retries are new messages the use case queues; a record fails (and SQS tries it again, then the
 * DLQ) only when the service itself failed (DynamoDB, KMS, SQS).
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { SQSClient } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { atColdStart } from '../lib/cold-start.js';
import { ENV, numberEnv, optionalEnv, requireEnv } from '../lib/config.js';
import { parseWebhookQueueMessage, SqsWebhookQueue } from '../lib/dispatch/webhook-queue.js';
import { DELIVERY_TIMEOUT_MS } from '../lib/domain/webhooks.js';
import { HttpWebhookSender } from '../lib/egress/webhook-sender.js';
import { logger } from '../lib/observability.js';
import { DynamoDbWebhookDeliveryStore } from '../lib/store/dynamodb-webhook-delivery-store.js';
import { meterSdkClient } from '../lib/store/sdk-metering.js';
import { tokenCipherFromEnv } from '../lib/store/token-cipher.js';
import { systemClock } from '../lib/use-cases/ports/clock.js';
import { DeliverWebhook, mergeBatchMessages, type DeliveryResult } from '../lib/use-cases/webhooks/deliver-webhook.js';

const sqs = new SQSClient({});
// The bench's cost phase counts its sends (a no-op unless SDK_METERING=1).
meterSdkClient(sqs, 'sqs');
const processor = new BatchProcessor(EventType.SQS);

const deliver = atColdStart(() => {
  // 10 s (the contract); only tests change it.
  const timeoutMs = numberEnv(ENV.webhookDeliveryTimeoutSeconds, DELIVERY_TIMEOUT_MS / 1000) * 1000;
  return new DeliverWebhook({
    store: new DynamoDbWebhookDeliveryStore(),
    cipher: tokenCipherFromEnv(),
    // The local stack alone sets it: receivers on http://127.0.0.1.
    sender: new HttpWebhookSender({ allowLoopback: optionalEnv(ENV.webhookAllowLoopback, 'false') === 'true', timeoutMs }),
    queue: new SqsWebhookQueue(sqs, requireEnv(ENV.webhookQueueUrl)),
    clock: systemClock,
    attemptTimeoutMs: timeoutMs,
  });
});

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event, context) => {
  const worker = deliver();
  const parsed = new Map(event.Records.map((record) => [record.messageId, parseWebhookQueueMessage(record.body)]));
  // One endpoint's batch messages of this receive are delivered together (mergeBatchMessages); each
  // of their records succeeds or fails with that one delivery.
  const runs = new Map<string, Promise<DeliveryResult[]>>();
  for (const { ids, message } of mergeBatchMessages([...parsed].flatMap(([id, message]) => (message ? [{ id, message }] : [])))) {
    const run = worker.execute(message);
    // Awaited by each record's handler below; a failure is reported there, never left unhandled.
    run.catch(() => undefined);
    for (const id of ids) runs.set(id, run);
  }
  const handleRecord = async (record: SQSRecord): Promise<void> => {
    const message = parsed.get(record.messageId);
    const run = runs.get(record.messageId);
    if (!message || !run) {
      logger.error('Dropped a message that is not a webhook delivery message', { messageId: record.messageId });
      return;
    }
    const results = await run;
    const outcomes: Record<string, number> = {};
    for (const result of results) {
      const key = 'reason' in result ? `${result.outcome}: ${result.reason}` : result.outcome;
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    logger.debug('Webhook deliveries handled', { endpointId: message.endpointId, ...('events' in message ? { events: message.events.length } : { eventId: message.eventId, attempt: message.attempt }), outcomes });
  };
  return processPartialResponse(event, handleRecord, processor, { context, processInParallel: true, throwOnFullBatchFailure: false });
});
