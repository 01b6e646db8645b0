/**
 * What Lambda's SQS event source mapping and the sweeper's EventBridge rule do on AWS, locally:
 *
 * - each queue consumer long-polls its queue with up to as many pollers in parallel as its function's
 *   maximum concurrency on AWS (functions/catalogue.ts), scaling out while batches come in and back
 *   when its queue is empty, as the mapping's pollers do (startQueueConsumers); hands each batch
 *   (up to its batch size) to the handler as a real SQSEvent, and then, like ReportBatchItemFailures,
 *   deletes the messages the handler did not list in `batchItemFailures`. A thrown error or an
 *   invalid response fails the whole batch. Failed messages are not touched: they become visible
 *   again when their visibility timeout ends, and the queue's redrive policy moves them to the
 *   dead-letter queue after maxReceiveCount receives, exactly as on AWS.
 * - a handler still running at its function timeout is abandoned, as Lambda stops it: its batch
 *   counts as failed and comes back. (Locally its promise cannot be killed; the handler is told its
 *   deadline through the context, and the publish worker stops renewing its leases there, so what
 *   it still writes afterwards is refused like a stopped Lambda's would never be made.)
 * - the sweeper is invoked with a scheduled event once at start-up and then every few seconds
 *   (every minute on AWS; sooner here so a local run never waits long).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes, ScheduledEvent } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './local-aws.js';
import { entryExists, lambdaContext, loadHandler } from './lambda-runtime.js';
import { sqsClientFor } from './messaging.js';

export interface ConsumerDefinition {
  name: string;
  entry: string;
  queueUrl: string;
  queueArn: string;
  /** Messages per batch (the event source mapping's batch size; 10 when unset). */
  batchSize?: number;
  /** Parallel pollers (the mapping's maximum concurrency); the options' pollersPerQueue when unset. */
  pollers?: number;
}

export interface ConsumerOptions {
  sqsEndpoint: string;
  consumers: readonly ConsumerDefinition[];
  /** Parallel pollers of a queue whose consumer does not say (Lambda scales out per queue the same way). */
  pollersPerQueue?: number;
  /**
   * Pollers of each consumer that keep long-polling while its queue is empty (2 by default, fewer
   * when the consumer has fewer); the rest start as batches come in (startQueueConsumers).
   */
  idlePollers?: number;
  /**
   * Long-poll wait, in seconds: 20 by default, as the event source mapping polls on AWS. fauxqs
   * answers a long poll as soon as a message is sent or becomes visible again, so a longer wait
   * costs no latency; a 1 s wait had every idle poller of every stack ask once a second, the
   * largest part of the test workers' SDK work (docs/performance.md, "The test suite's own time").
   */
  waitTimeSeconds?: number;
  /** Timeout each invocation's context reports (the function timeout on AWS). */
  functionTimeoutMs?: number;
  log?: (message: string, error?: unknown) => void;
}

export interface Runner {
  stop(): Promise<void>;
}

/** Lambda's record attribute names; anything SQS returns beyond them is passed on too. */
function recordAttributes(message: Message): SQSRecordAttributes {
  const raw = message.Attributes ?? {};
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) if (typeof value === 'string') attributes[name] = value;
  return {
    ...attributes,
    ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
    SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
    SenderId: attributes.SenderId ?? LOCAL_ACCOUNT_ID,
    ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
  };
}

function base64(value: Uint8Array): string {
  return Buffer.from(value).toString('base64');
}

/** SQS's MessageAttributes in the camel-cased shape Lambda puts in a record. */
function recordMessageAttributes(attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    out[name] = {
      ...(value.StringValue === undefined ? {} : { stringValue: value.StringValue }),
      ...(value.BinaryValue === undefined ? {} : { binaryValue: base64(value.BinaryValue) }),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map(base64),
      dataType: value.DataType ?? 'String',
    };
  }
  return out;
}

export function toSqsEvent(messages: readonly Message[], queueArn: string): SQSEvent {
  return {
    Records: messages.map(
      (message): SQSRecord => ({
        messageId: message.MessageId ?? '',
        receiptHandle: message.ReceiptHandle ?? '',
        body: message.Body ?? '',
        attributes: recordAttributes(message),
        messageAttributes: recordMessageAttributes(message.MessageAttributes),
        md5OfBody: message.MD5OfBody ?? '',
        ...(message.MD5OfMessageAttributes === undefined ? {} : { md5OfMessageAttributes: message.MD5OfMessageAttributes }),
        eventSource: 'aws:sqs',
        eventSourceARN: queueArn,
        awsRegion: LOCAL_REGION,
      }),
    ),
  };
}

/**
 * Which messages of a batch succeeded, read from the handler's result as Lambda reads it with
 * ReportBatchItemFailures: no result, an object without the list, or an empty list means all
 * succeeded; a result that is not an object, or an entry whose itemIdentifier is missing, empty or
 * not in the batch, fails the whole batch.
 */
export function succeededMessageIds(result: unknown, messageIds: readonly string[]): string[] {
  if (result === undefined || result === null) return [...messageIds];
  if (typeof result !== 'object' || Array.isArray(result)) return [];
  const failures = (result as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return [...messageIds];
  if (!Array.isArray(failures)) return [];
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = typeof failure === 'object' && failure !== null ? (failure as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || id === '' || !messageIds.includes(id)) return [];
    failed.add(id);
  }
  return messageIds.filter((id) => !failed.has(id));
}

async function deleteMessages(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (let start = 0; start < messages.length; start += 10) {
    const chunk = messages.slice(start, start + 10);
    const out = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle ?? '' })),
      }),
    );
    if (out.Failed && out.Failed.length > 0) throw new Error(`DeleteMessageBatch failed for ${out.Failed.length} message(s)`);
  }
}

const TIMED_OUT = Symbol('timed out');

/** The invocation's result, or TIMED_OUT once the function timeout has passed (the invocation is left to itself). */
async function withinTimeout(invocation: Promise<unknown>, timeoutMs: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  // An abandoned invocation that fails later must not surface as an unhandled rejection.
  invocation.catch(() => undefined);
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ConsumersRunner extends Runner {
  /** How many pollers of the named consumer are running now (0 for a name it does not have). */
  pollers(name: string): number;
}

/**
 * Each consumer's pollers scale as the event source mapping's do (it scales out while messages
 * keep coming and back to a few concurrent batches when traffic is low): `idlePollers` long-poll
 * while its queue is empty, each batch received starts one more poller up to the consumer's
 * maximum (its function's maximum concurrency), and a poller whose receive comes back empty stops
 * while more than `idlePollers` are left. Why not all of them all the time: fauxqs answers every
 * waiting long poll of a queue when one message arrives, so the publish worker's 100 idle pollers
 * asked again 99 times for nothing per message (docs/performance.md, "The test suite's own time").
 */
export function startQueueConsumers(options: ConsumerOptions): ConsumersRunner {
  const log = options.log ?? ((message: string, error?: unknown) => console.error(`[consumers] ${message}`, error ?? ''));
  // Each running poller, by its own abort controller. One controller per poller, not one for all:
  // every long poll in flight holds an abort listener on its signal until it returns, so a shared
  // signal carried one per poller (102 with the catalogue's consumers) and Node warned of a
  // listener leak (MaxListenersExceededWarning).
  const running = new Map<AbortController, Promise<void>>();
  let stopped = false;
  const pollers = options.pollersPerQueue ?? 4;
  const idlePollers = options.idlePollers ?? 2;
  const wait = options.waitTimeSeconds ?? 20;
  const timeoutMs = options.functionTimeoutMs ?? 30_000;
  const pollersOf = (consumer: ConsumerDefinition): number => consumer.pollers ?? pollers;
  /**
   * A client per consumer, with a connection for each of its pollers' long polls and each one's
   * delete: on AWS every event source mapping polls on its own. One client for all (the SDK's
   * default of 50 connections, under the publish worker's 100 pollers alone) made the webhook
   * consumer's receives wait up to a long poll (1 s) for a connection while messages sat in its queue.
   */
  const clients = new Map(options.consumers.map((consumer) => [consumer, sqsClientFor(options.sqsEndpoint, { maxSockets: 2 * pollersOf(consumer) })]));

  /** Pollers of each consumer now running. */
  const live = new Map(options.consumers.map((consumer) => [consumer, 0]));
  const liveOf = (consumer: ConsumerDefinition): number => live.get(consumer) ?? 0;

  function startPoller(consumer: ConsumerDefinition): void {
    if (stopped) return;
    live.set(consumer, liveOf(consumer) + 1);
    const abort = new AbortController();
    running.set(abort, poll(consumer, abort).finally(() => running.delete(abort)));
  }

  async function poll(consumer: ConsumerDefinition, abort: AbortController): Promise<void> {
    const sqs = clients.get(consumer)!;
    const most = pollersOf(consumer);
    const idle = Math.min(most, idlePollers);
    // Counted out in the finally below, as it returns: in the same step as the check that lets it
    // leave (no await between), so no other poller can still count it once it has decided to go.
    try {
      while (!abort.signal.aborted) {
        let messages: Message[];
        try {
          const out = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: consumer.queueUrl,
              MaxNumberOfMessages: consumer.batchSize ?? 10,
              WaitTimeSeconds: wait,
              MessageSystemAttributeNames: ['All'],
              MessageAttributeNames: ['All'],
            }),
            { abortSignal: abort.signal },
          );
          messages = out.Messages ?? [];
        } catch (error) {
          if (abort.signal.aborted) return;
          log(`${consumer.name}: receive failed`, error);
          await sleep(1000);
          continue;
        }
        if (messages.length === 0) {
          if (liveOf(consumer) > idle) return;
          continue;
        }
        if (liveOf(consumer) < most) startPoller(consumer);
        let succeeded: string[] = [];
        const ids = messages.map((message) => message.MessageId ?? '');
        try {
          const handler = await loadHandler(consumer.entry);
          const invocation = handler(toSqsEvent(messages, consumer.queueArn), lambdaContext(consumer.name, timeoutMs));
          const result = await withinTimeout(invocation, timeoutMs);
          if (result === TIMED_OUT) {
            log(`${consumer.name} ran past its ${timeoutMs} ms timeout and was abandoned; the batch becomes visible again after the visibility timeout`);
          } else {
            succeeded = succeededMessageIds(result, ids);
          }
        } catch (error) {
          log(`${consumer.name} failed; the batch becomes visible again after the visibility timeout`, error);
        }
        const done = messages.filter((message) => succeeded.includes(message.MessageId ?? ''));
        if (done.length === 0) continue;
        try {
          await deleteMessages(sqs, consumer.queueUrl, done);
        } catch (error) {
          log(`${consumer.name}: could not delete processed messages (they will be received again)`, error);
        }
      }
    } finally {
      live.set(consumer, liveOf(consumer) - 1);
    }
  }

  for (const consumer of options.consumers) {
    for (let n = Math.min(pollersOf(consumer), idlePollers); n > 0; n -= 1) startPoller(consumer);
  }
  let stopping: Promise<void> | undefined;
  return {
    pollers: (name) => options.consumers.reduce((sum, consumer) => (consumer.name === name ? sum + liveOf(consumer) : sum), 0),
    stop: () => {
      stopping ??= (async () => {
        stopped = true;
        for (const controller of running.keys()) controller.abort();
        await Promise.allSettled([...running.values()]);
        for (const sqs of clients.values()) sqs.destroy();
      })();
      return stopping;
    },
  };
}

export interface SweeperOptions {
  name: string;
  entry: string;
  intervalMs?: number;
  functionTimeoutMs?: number;
  log?: (message: string, error?: unknown) => void;
}

/** Invokes the sweeper at once and then every `intervalMs`; a run still going when the next is due is not overlapped. */
export function startSweeper(options: SweeperOptions): Runner {
  const log = options.log ?? ((message: string, error?: unknown) => console.error(`[sweeper] ${message}`, error ?? ''));
  const intervalMs = options.intervalMs ?? 5000;
  let current: Promise<void> | null = null;
  let stopped = false;
  const tick = (): void => {
    if (stopped || current) return;
    const now = new Date();
    const event: ScheduledEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: LOCAL_ACCOUNT_ID,
      time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: LOCAL_REGION,
      resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${options.name}`],
      detail: {},
    };
    current = loadHandler(options.entry)
      .then((handler) => handler(event, lambdaContext(options.name, options.functionTimeoutMs ?? 60_000)))
      .then(
        () => undefined,
        (error: unknown) => log(`${options.name} failed`, error),
      )
      .finally(() => {
        current = null;
      });
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}

/** The consumers whose handler module exists, among those asked for (all when `which` is true). */
export function availableConsumers<T extends { name: string; entry: string }>(all: readonly T[], which: boolean | readonly string[]): T[] {
  if (which === false) return [];
  const wanted = which === true ? all : all.filter((consumer) => which.includes(consumer.name));
  return wanted.filter((consumer) => entryExists(consumer.entry));
}
