/**
 * The EventBridge Scheduler stand-in, driven by the real @aws-sdk/client-scheduler (as the
 * dispatcher uses it): schedules deliver Target.Input to their SQS queue at their second, deleted
 * schedules never do, errors come back as the SDK's own exception classes, and schedules survive
 * a restart (overdue ones fire at once).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  ValidationException,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/local-aws.js';
import { deleteQueues, ensureQueues, sqsClientFor, type LocalQueues } from '../../local/messaging.js';
import { parseAtExpression, startSchedulerStandIn, type SchedulerStandIn } from '../../local/scheduler-stand-in.js';

const { sqsEndpoint } = inject('localAws');
let sqs: SQSClient;
let queues: LocalQueues;
let dir: string | undefined;
/** What the stand-in logged (an undeliverable schedule is logged); kept out of the test output. */
const logged: string[] = [];
const running: SchedulerStandIn[] = [];

beforeAll(async () => {
  sqs = sqsClientFor(sqsEndpoint);
  queues = await ensureQueues(sqsEndpoint, { prefix: `sched${randomBytes(3).toString('hex')}-` });
});

afterAll(async () => {
  await deleteQueues(sqsEndpoint, queues);
  sqs.destroy();
});

afterEach(async () => {
  for (const standIn of running.splice(0)) await standIn.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function start(stateFile?: string): Promise<{ standIn: SchedulerStandIn; client: SchedulerClient; stateFile: string }> {
  dir ??= await mkdtemp(join(tmpdir(), 'scheduler-'));
  const file = stateFile ?? join(dir, 'schedules.json');
  const standIn = await startSchedulerStandIn({ stateFile: file, sqsEndpoint, log: (message) => logged.push(message) });
  running.push(standIn);
  const client = new SchedulerClient({ endpoint: standIn.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  return { standIn, client, stateFile: file };
}

/** `at(...)` for `seconds` whole seconds after the next second boundary, and that instant in ms. */
function atIn(seconds: number): { expression: string; at: number } {
  const at = (Math.floor(Date.now() / 1000) + 1 + seconds) * 1000;
  return { expression: `at(${new Date(at).toISOString().slice(0, 19)})`, at };
}

function scheduleInput(name: string, expression: string, input: string, extra: Partial<CreateScheduleCommandInput> = {}): CreateScheduleCommandInput {
  return {
    Name: name,
    GroupName: 'default',
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: {
      Arn: queues.publish.arn,
      RoleArn: 'arn:aws:iam::000000000000:role/local-scheduler',
      Input: input,
      DeadLetterConfig: { Arn: queues.schedulerDeadLetter.arn },
      RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
    },
    ...extra,
  };
}

/** Receives (and deletes nothing) until `count` messages came or `timeoutMs` passed. */
async function receive(queueUrl: string, count: number, timeoutMs = 10_000): Promise<Message[]> {
  const messages: Message[] = [];
  const deadline = Date.now() + timeoutMs;
  while (messages.length < count && Date.now() < deadline) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 300,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    messages.push(...(out.Messages ?? []));
  }
  return messages;
}

const uniqueName = (label: string): string => `${label}-${randomBytes(4).toString('hex')}`;

describe('delivery', () => {
  it('sends Target.Input to the queue at the scheduled second, then deletes the schedule', async () => {
    const { client } = await start();
    const name = uniqueName('post');
    const { expression, at } = atIn(1);
    const created = await client.send(new CreateScheduleCommand(scheduleInput(name, expression, `{"postId":"${name}"}`)));
    expect(created.ScheduleArn).toBe(`arn:aws:scheduler:us-east-1:000000000000:schedule/default/${name}`);

    const [message] = await receive(queues.publish.url, 1);
    expect(message?.Body).toBe(`{"postId":"${name}"}`);
    // Never before its time.
    expect(Number(message?.Attributes?.SentTimestamp)).toBeGreaterThanOrEqual(at);

    await expect.poll(() => client.send(new GetScheduleCommand({ Name: name, GroupName: 'default' })).catch((error: unknown) => error)).toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('never delivers a deleted schedule', async () => {
    const { client } = await start();
    const cancelled = uniqueName('cancelled');
    const kept = uniqueName('kept');
    // The kept schedule is due after the cancelled one, so once it has arrived, the cancelled one
    // would have too.
    await client.send(new CreateScheduleCommand(scheduleInput(cancelled, atIn(1).expression, cancelled)));
    await client.send(new CreateScheduleCommand(scheduleInput(kept, atIn(2).expression, kept)));
    await client.send(new DeleteScheduleCommand({ Name: cancelled, GroupName: 'default' }));

    const messages = await receive(queues.publish.url, 1);
    expect(messages.map((message) => message.Body)).toEqual([kept]);
  });

  it('keeps a schedule with ActionAfterCompletion NONE after it ran', async () => {
    const { client } = await start();
    const name = uniqueName('kept-after');
    await client.send(new CreateScheduleCommand(scheduleInput(name, atIn(0).expression, name, { ActionAfterCompletion: 'NONE' })));
    expect((await receive(queues.publish.url, 1)).map((message) => message.Body)).toEqual([name]);
    const schedule = await client.send(new GetScheduleCommand({ Name: name, GroupName: 'default' }));
    expect(schedule).toMatchObject({ Name: name, ActionAfterCompletion: 'NONE', State: 'ENABLED' });
  });

  it('dead-letters an input it cannot deliver', async () => {
    const { client } = await start();
    const name = uniqueName('undeliverable');
    const input = scheduleInput(name, atIn(0).expression, name);
    await client.send(
      new CreateScheduleCommand({ ...input, Target: { ...input.Target, Arn: 'arn:aws:sqs:us-east-1:000000000000:no-such-queue' } } as CreateScheduleCommandInput),
    );
    const [dead] = await receive(queues.schedulerDeadLetter.url, 1);
    expect(dead?.Body).toBe(name);
    expect(dead?.MessageAttributes?.['X-Amz-Scheduler-Schedule-Arn']?.StringValue).toBe(`arn:aws:scheduler:us-east-1:000000000000:schedule/default/${name}`);
    expect(logged.some((line) => line.includes(name))).toBe(true);
  });
});

describe('API answers', () => {
  it('returns what GetSchedule returns on AWS', async () => {
    const { client } = await start();
    const name = uniqueName('get');
    const { expression } = atIn(3600);
    await client.send(new CreateScheduleCommand(scheduleInput(name, expression, '{"a":1}')));
    const schedule = await client.send(new GetScheduleCommand({ Name: name, GroupName: 'default' }));
    expect(schedule).toMatchObject({
      Arn: `arn:aws:scheduler:us-east-1:000000000000:schedule/default/${name}`,
      Name: name,
      GroupName: 'default',
      ScheduleExpression: expression,
      ScheduleExpressionTimezone: 'UTC',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: queues.publish.arn, Input: '{"a":1}', DeadLetterConfig: { Arn: queues.schedulerDeadLetter.arn } },
    });
    expect(schedule.CreationDate).toBeInstanceOf(Date);
  });

  it('answers ConflictException, ResourceNotFoundException and ValidationException like AWS', async () => {
    const { client } = await start();
    const name = uniqueName('errors');
    const { expression } = atIn(3600);
    await client.send(new CreateScheduleCommand(scheduleInput(name, expression, 'x')));
    await expect(client.send(new CreateScheduleCommand(scheduleInput(name, expression, 'y')))).rejects.toBeInstanceOf(ConflictException);
    await expect(client.send(new GetScheduleCommand({ Name: uniqueName('missing'), GroupName: 'default' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    await expect(client.send(new DeleteScheduleCommand({ Name: uniqueName('missing'), GroupName: 'default' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    await expect(client.send(new CreateScheduleCommand(scheduleInput(uniqueName('group'), expression, 'x', { GroupName: 'nope' })))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    await expect(client.send(new CreateScheduleCommand(scheduleInput(uniqueName('rate'), 'rate(5 minutes)', 'x')))).rejects.toBeInstanceOf(
      ValidationException,
    );
    await expect(client.send(new CreateScheduleCommand(scheduleInput('bad name!', expression, 'x')))).rejects.toBeInstanceOf(ValidationException);
  });

  it('treats a repeated request with the same client token as the same request', async () => {
    const { client } = await start();
    const input = scheduleInput(uniqueName('token'), atIn(3600).expression, 'x', { ClientToken: 'token-1' });
    const first = await client.send(new CreateScheduleCommand(input));
    const again = await client.send(new CreateScheduleCommand(input));
    expect(again.ScheduleArn).toBe(first.ScheduleArn);
  });
});

describe('restart', () => {
  it('re-arms persisted schedules and fires overdue ones at once', async () => {
    const first = await start();
    const overdue = uniqueName('overdue');
    const later = uniqueName('later');
    const overdueAt = atIn(0);
    await first.client.send(new CreateScheduleCommand(scheduleInput(overdue, overdueAt.expression, overdue)));
    await first.client.send(new CreateScheduleCommand(scheduleInput(later, atIn(2).expression, later)));
    await first.standIn.stop();
    running.splice(running.indexOf(first.standIn), 1);
    // Down while the first one was due.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, overdueAt.at + 200 - Date.now())));

    const second = await start(first.stateFile);
    expect(second.standIn.list().map((schedule) => schedule.Name).sort()).toEqual([later, overdue].sort());
    const messages = await receive(queues.publish.url, 2);
    expect(messages.map((message) => message.Body)).toEqual([overdue, later]);
  });
});

describe('at() expressions', () => {
  it('reads the wall-clock time in the schedule time zone', () => {
    expect(parseAtExpression('at(2026-07-01T12:00:00)', undefined)).toBe(Date.parse('2026-07-01T12:00:00Z'));
    expect(parseAtExpression('at(2026-07-01T12:00:00)', 'UTC')).toBe(Date.parse('2026-07-01T12:00:00Z'));
    expect(parseAtExpression('at(2026-07-01T12:00:00)', 'Europe/Paris')).toBe(Date.parse('2026-07-01T10:00:00Z'));
    expect(parseAtExpression('at(2026-12-01T12:00:00)', 'America/New_York')).toBe(Date.parse('2026-12-01T17:00:00Z'));
  });

  it('refuses impossible dates and other expression kinds', () => {
    expect(() => parseAtExpression('at(2027-02-30T10:00:00)', 'UTC')).toThrow(/Invalid Schedule Expression/);
    expect(() => parseAtExpression('at(2027-02-01T24:00:00)', 'UTC')).toThrow(/Invalid Schedule Expression/);
    expect(() => parseAtExpression('cron(0 12 * * ? *)', 'UTC')).toThrow(/one-time at/);
    expect(() => parseAtExpression('at(2027-02-01T10:00:00)', 'Mars/Olympus')).toThrow(/Timezone/);
  });
});
