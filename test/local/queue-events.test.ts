/**
 * How the local stack's queue consumers talk to a handler the way Lambda's SQS event source does:
 * the SQSEvent built from messages really received from fauxqs, and which messages count as
 * processed under ReportBatchItemFailures.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { sqsClientFor } from '../../local/messaging.js';
import { startQueueConsumers, succeededMessageIds, toSqsEvent } from '../../local/queue-consumers.js';
import { until } from '../support/queues.js';
import { slowHandlerState } from './fixtures/slow-handler.js';

let sqs: SQSClient;
let queueUrl: string;
const queueArnOf = (name: string): string => `arn:aws:sqs:us-east-1:000000000000:${name}`;
const queueName = `events-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  sqs = sqsClientFor(inject('localAws').sqsEndpoint);
  queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: queueName }))).QueueUrl ?? '';
});

afterAll(async () => {
  await sqs?.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
  sqs?.destroy();
});

describe('SQSEvent', () => {
  it('has the Lambda record shape, built from a message received from SQS', async () => {
    const binary = Uint8Array.from([1, 2, 3]);
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: '{"postId":"post_1"}',
        MessageAttributes: {
          kind: { DataType: 'String', StringValue: 'publish' },
          blob: { DataType: 'Binary', BinaryValue: binary },
        },
      }),
    );
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = received.Messages ?? [];
    expect(messages).toHaveLength(1);
    const event = toSqsEvent(messages, queueArnOf(queueName));
    const [record] = event.Records;
    expect(record).toMatchObject({
      messageId: messages[0]?.MessageId,
      receiptHandle: messages[0]?.ReceiptHandle,
      body: '{"postId":"post_1"}',
      md5OfBody: messages[0]?.MD5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: queueArnOf(queueName),
      awsRegion: 'us-east-1',
      messageAttributes: {
        kind: { stringValue: 'publish', stringListValues: [], binaryListValues: [], dataType: 'String' },
        blob: { binaryValue: Buffer.from(binary).toString('base64'), stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
    });
    expect(record?.attributes.ApproximateReceiveCount).toBe('1');
    expect(Number(record?.attributes.SentTimestamp)).toBeGreaterThan(0);
    expect(Number(record?.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(Number(record?.attributes.SentTimestamp));
  });
});

describe('ReportBatchItemFailures', () => {
  const ids = ['m1', 'm2', 'm3'];

  it('treats no result, an empty object or an empty list as all processed', () => {
    expect(succeededMessageIds(undefined, ids)).toEqual(ids);
    expect(succeededMessageIds(null, ids)).toEqual(ids);
    expect(succeededMessageIds({}, ids)).toEqual(ids);
    expect(succeededMessageIds({ batchItemFailures: [] }, ids)).toEqual(ids);
  });

  it('keeps the listed failures', () => {
    expect(succeededMessageIds({ batchItemFailures: [{ itemIdentifier: 'm2' }] }, ids)).toEqual(['m1', 'm3']);
    expect(succeededMessageIds({ batchItemFailures: ids.map((id) => ({ itemIdentifier: id })) }, ids)).toEqual([]);
  });

  it('fails the whole batch for an invalid response', () => {
    expect(succeededMessageIds({ batchItemFailures: [{ itemIdentifier: '' }] }, ids)).toEqual([]);
    expect(succeededMessageIds({ batchItemFailures: [{ itemIdentifier: null }] }, ids)).toEqual([]);
    expect(succeededMessageIds({ batchItemFailures: [{ id: 'm1' }] }, ids)).toEqual([]);
    expect(succeededMessageIds({ batchItemFailures: [{ itemIdentifier: 'not-in-batch' }] }, ids)).toEqual([]);
    expect(succeededMessageIds({ batchItemFailures: 'm1' }, ids)).toEqual([]);
    expect(succeededMessageIds('ok', ids)).toEqual([]);
  });
});

describe('the function timeout', () => {
  it('a handler still running at its timeout is abandoned as Lambda stops it: the poller moves on and the batch comes back', async () => {
    const name = `deadline-${randomBytes(4).toString('hex')}`;
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '1' } }))).QueueUrl ?? '';
    const state = slowHandlerState();
    state.slowHandlerMs = 60_000;
    const logged: string[] = [];
    const consumers = startQueueConsumers({
      sqsEndpoint: inject('localAws').sqsEndpoint,
      consumers: [{ name: 'Slow', entry: 'test/local/fixtures/slow-handler.ts', queueUrl: url, queueArn: queueArnOf(name) }],
      pollersPerQueue: 1,
      waitTimeSeconds: 1,
      functionTimeoutMs: 300,
      log: (message) => logged.push(message),
    });
    try {
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late' }));
      const deadline = Date.now() + 20_000;
      // The one poller is free again long before the first invocation would have ended.
      while (state.invocations.filter((bodies) => bodies.includes('late')).length < 2) {
        if (Date.now() > deadline) throw new Error('the batch did not come back');
        if (state.invocations.length > 0) state.slowHandlerMs = 0;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(logged.some((message) => message.includes('ran past its 300 ms timeout'))).toBe(true);
    } finally {
      await consumers.stop();
      await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    }
  });
});

describe('pollers of different consumers', () => {
  it("one consumer's long polls never hold up another's receives (each polls on connections of its own, as each mapping does on AWS)", async () => {
    const busyName = `busy-${randomBytes(4).toString('hex')}`;
    const otherName = `other-${randomBytes(4).toString('hex')}`;
    const busyUrl = (await sqs.send(new CreateQueueCommand({ QueueName: busyName }))).QueueUrl ?? '';
    const otherUrl = (await sqs.send(new CreateQueueCommand({ QueueName: otherName }))).QueueUrl ?? '';
    const state = slowHandlerState();
    state.slowHandlerMs = 0;
    // More long polls on an empty queue than the SDK's default of 50 connections per client (all of
    // them idle pollers, so they poll from the start), started first: on one shared client the
    // other consumer's receive waited behind them for 20 s.
    const consumers = startQueueConsumers({
      sqsEndpoint: inject('localAws').sqsEndpoint,
      consumers: [
        { name: 'Busy', entry: 'test/local/fixtures/slow-handler.ts', queueUrl: busyUrl, queueArn: queueArnOf(busyName), pollers: 60 },
        { name: 'Other', entry: 'test/local/fixtures/slow-handler.ts', queueUrl: otherUrl, queueArn: queueArnOf(otherName), pollers: 1 },
      ],
      waitTimeSeconds: 20,
      idlePollers: 60,
    });
    try {
      const body = `prompt-${randomBytes(4).toString('hex')}`;
      await sqs.send(new SendMessageCommand({ QueueUrl: otherUrl, MessageBody: body }));
      // Well within the busy consumer's first long poll (20 s).
      const deadline = Date.now() + 10_000;
      while (!state.invocations.some((bodies) => bodies.includes(body))) {
        if (Date.now() > deadline) throw new Error("the other consumer's message was not received while the busy consumer's long polls were open");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await consumers.stop();
      await sqs.send(new DeleteQueueCommand({ QueueUrl: busyUrl }));
      await sqs.send(new DeleteQueueCommand({ QueueUrl: otherUrl }));
    }
  });
});

describe('pollers scale as the event source mapping scales them', () => {
  it('an empty queue is polled by the idle pollers only; a burst scales them out to the maximum, never past it, and back once the queue is empty', async () => {
    const name = `scaling-${randomBytes(4).toString('hex')}`;
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl ?? '';
    const state = slowHandlerState();
    state.slowHandlerMs = 300;
    const consumers = startQueueConsumers({
      sqsEndpoint: inject('localAws').sqsEndpoint,
      consumers: [{ name: 'Scaling', entry: 'test/local/fixtures/slow-handler.ts', queueUrl: url, queueArn: queueArnOf(name), batchSize: 1, pollers: 5 }],
      idlePollers: 2,
      // Short polls, so the pollers left over after the burst find the queue empty soon.
      waitTimeSeconds: 1,
    });
    try {
      expect(consumers.pollers('Scaling')).toBe(2);
      const bodies = Array.from({ length: 20 }, (_, n) => `burst-${name}-${n}`);
      for (let start = 0; start < bodies.length; start += 10) {
        await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: bodies.slice(start, start + 10).map((body, n) => ({ Id: String(n), MessageBody: body })),
          }),
        );
      }
      const handled = (): string[] => state.invocations.flat().filter((body) => body.startsWith(`burst-${name}-`));
      await until('every message of the burst handled', () => handled().length >= bodies.length);
      expect(new Set(handled())).toEqual(new Set(bodies));
      // 20 messages of 300 ms each, one a batch: the pollers reach the maximum, and no more run.
      expect(state.mostAtOnce.get(queueArnOf(name))).toBe(5);
      await until('the pollers back to the idle ones', () => consumers.pollers('Scaling') === 2);
      // And those still take what comes.
      const later = `later-${name}`;
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: later }));
      await until('the later message handled', () => state.invocations.some((batch) => batch.includes(later)));
    } finally {
      await consumers.stop();
      await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    }
    expect(consumers.pollers('Scaling')).toBe(0);
  });
});
