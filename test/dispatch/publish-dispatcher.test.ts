/**
 * The dispatcher against real SQS semantics (fauxqs) for the queue path, and aws-sdk-client-mock
 * for EventBridge Scheduler (no emulator of AWS's own exists; the HTTP tests also go through the
 * local Scheduler stand-in).
 */
import { randomBytes } from 'node:crypto';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { deleteQueues, ensureQueues, sqsClientFor, type LocalQueues } from '../../local/messaging.js';
import { parsePublishMessage } from '../../lib/dispatch/messages.js';
import { EARLY_FIRE_SECONDS, PublishDispatcher } from '../../lib/dispatch/publish-dispatcher.js';

const NOW = new Date('2026-11-21T09:30:00.000Z');
const at = (offsetSeconds: number) => new Date(NOW.getTime() + offsetSeconds * 1000).toISOString();
const postId = (n: number) => `post_${String(n).padStart(20, '0')}`;

let queues: LocalQueues;
let sqs: SQSClient;
const scheduler = new SchedulerClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const schedulerMock = mockClient(scheduler);

function dispatcher(queueUrl = queues.publish.url): PublishDispatcher {
  return new PublishDispatcher(sqs, scheduler, {
    publishQueueUrl: queueUrl,
    publishQueueArn: queues.publish.arn,
    schedulerGroup: 'posts',
    schedulerRoleArn: 'arn:aws:iam::000000000000:role/scheduler',
    schedulerDlqArn: queues.schedulerDeadLetter.arn,
  });
}

async function receiveAll(): Promise<{ body: string }[]> {
  const seen: { body: string }[] = [];
  for (let round = 0; round < 5; round++) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.publish.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    const messages = out.Messages ?? [];
    if (messages.length === 0) break;
    seen.push(...messages.map((message) => ({ body: message.Body ?? '' })));
  }
  return seen;
}

beforeAll(async () => {
  const { sqsEndpoint } = inject('localAws');
  queues = await ensureQueues(sqsEndpoint, { prefix: `d${randomBytes(4).toString('hex')}-` });
  sqs = sqsClientFor(sqsEndpoint);
});

afterAll(async () => {
  sqs.destroy();
  await deleteQueues(inject('localAws').sqsEndpoint, queues);
});

beforeEach(() => {
  schedulerMock.reset();
});

describe('PublishDispatcher', () => {
  it('queues posts due within 15 minutes on SQS: the posts of a due time as groups of up to 25, a lone post as its own message', async () => {
    // 60 posts of one due time (group messages of 25, 25 and 10: 60 single messages made a burst
    // come back as many small groups, each holding an invocation), and one post of another time.
    const requests = [...Array.from({ length: 60 }, (_, i) => ({ postId: postId(i), scheduledFor: at(0) })), { postId: postId(99), scheduledFor: at(5) }];
    const result = await dispatcher().dispatch(requests, NOW);
    expect(result.failed).toEqual([]);
    const bodies = (await receiveAll()).map((message) => JSON.parse(message.body) as Record<string, unknown>);
    const groups = bodies.filter((body) => body.kind === 'publish-group');
    expect(groups.map((group) => (group.postIds as string[]).length).sort((a, b) => a - b)).toEqual([10, 25, 25]);
    expect(groups.every((group) => group.scheduledFor === at(0) && !('prepareMs' in group))).toBe(true);
    expect(groups.flatMap((group) => group.postIds as string[]).sort()).toEqual(requests.slice(0, 60).map((request) => request.postId).sort());
    const singles = bodies.filter((body) => body.kind === 'publish').map((body) => parsePublishMessage(JSON.stringify(body)));
    expect(singles).toEqual([{ kind: 'publish', postId: postId(99), scheduledFor: at(5) }]);
    expect(schedulerMock.calls()).toHaveLength(0);
  });

  it('creates one early-firing Scheduler schedule per post due later than 15 minutes', async () => {
    schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    const scheduledFor = at(901);
    const result = await dispatcher().dispatch([{ postId: postId(1), scheduledFor }], NOW);
    expect(result.failed).toEqual([]);
    const calls = schedulerMock.commandCalls(CreateScheduleCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    const fireAt = new Date(Date.parse(scheduledFor) - EARLY_FIRE_SECONDS * 1000).toISOString().slice(0, 19);
    expect(input).toMatchObject({
      Name: `post-${postId(1)}`,
      GroupName: 'posts',
      ScheduleExpression: `at(${fireAt})`,
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      // The post and its time: a retried create is the same request, a moved post a new one.
      ClientToken: `${postId(1)}-${Math.floor(Date.parse(scheduledFor) / 1000)}`,
      Target: {
        Arn: queues.publish.arn,
        RoleArn: 'arn:aws:iam::000000000000:role/scheduler',
        DeadLetterConfig: { Arn: queues.schedulerDeadLetter.arn },
      },
    });
    expect(JSON.parse(input?.Target?.Input ?? '')).toEqual({ kind: 'publish', postId: postId(1), scheduledFor });
    expect(await receiveAll()).toEqual([]);
  });

  it('reports the posts that could not be queued or scheduled, and only those', async () => {
    schedulerMock
      .on(CreateScheduleCommand, { Name: `post-${postId(2)}` })
      .rejects(new ValidationException({ message: 'bad', Message: 'bad', $metadata: {} }))
      .on(CreateScheduleCommand, { Name: `post-${postId(3)}` })
      .resolves({ ScheduleArn: 'arn' })
      .on(CreateScheduleCommand, { Name: `post-${postId(4)}` })
      .rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    const result = await dispatcher().dispatch(
      [
        { postId: postId(2), scheduledFor: at(3600) },
        { postId: postId(3), scheduledFor: at(3600) },
        { postId: postId(4), scheduledFor: at(3600) },
      ],
      NOW,
    );
    // A ConflictException is a retry of the same post: its schedule exists already.
    expect(result.failed).toEqual([postId(2)]);

    const broken = dispatcher(`${queues.publish.url}-missing`);
    expect((await broken.dispatch([{ postId: postId(5), scheduledFor: at(10) }], NOW)).failed).toEqual([postId(5)]);
  });

  it('cancel deletes the schedule by its derived name and ignores one that is gone', async () => {
    schedulerMock.on(DeleteScheduleCommand).resolvesOnce({}).rejectsOnce(new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} }));
    await dispatcher().cancel(postId(7));
    await dispatcher().cancel(postId(7));
    const calls = schedulerMock.commandCalls(DeleteScheduleCommand);
    expect(calls.map((call) => call.args[0].input)).toEqual([
      { Name: `post-${postId(7)}`, GroupName: 'posts' },
      { Name: `post-${postId(7)}`, GroupName: 'posts' },
    ]);
    schedulerMock.on(DeleteScheduleCommand).rejects(new ValidationException({ message: 'bad', Message: 'bad', $metadata: {} }));
    await expect(dispatcher().cancel(postId(8))).rejects.toThrow('bad');
  });

  it('reschedule deletes the old schedule before it creates the one of the new time; a failed delete creates nothing', async () => {
    schedulerMock.on(DeleteScheduleCommand).resolves({}).on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn' });
    const moved = at(7200);
    expect(await dispatcher().reschedule({ postId: postId(9), scheduledFor: moved }, NOW)).toBe(true);
    expect(schedulerMock.calls().map((call) => call.args[0].constructor.name)).toEqual(['DeleteScheduleCommand', 'CreateScheduleCommand']);
    expect(JSON.parse(schedulerMock.commandCalls(CreateScheduleCommand)[0]?.args[0].input.Target?.Input ?? '')).toMatchObject({ scheduledFor: moved });

    // Moved within 15 minutes (here: due now): the old schedule goes, and a message carries the new time.
    schedulerMock.reset();
    schedulerMock.on(DeleteScheduleCommand).rejects(new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} }));
    expect(await dispatcher().reschedule({ postId: postId(10), scheduledFor: at(0) }, NOW)).toBe(true);
    expect((await receiveAll()).map((message) => parsePublishMessage(message.body))).toEqual([{ kind: 'publish', postId: postId(10), scheduledFor: at(0) }]);

    // The old schedule could not be deleted: creating one of the same name would look like a
    // retried create and be taken as done, so nothing is created and the caller hears false.
    schedulerMock.reset();
    schedulerMock.on(DeleteScheduleCommand).rejects(new ValidationException({ message: 'bad', Message: 'bad', $metadata: {} }));
    expect(await dispatcher().reschedule({ postId: postId(11), scheduledFor: moved }, NOW)).toBe(false);
    expect(schedulerMock.commandCalls(CreateScheduleCommand)).toHaveLength(0);
  });
});
