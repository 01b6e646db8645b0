/**
 * "Make this post due at time T" (PostDispatcher): the publish queue with a delay when T is at
 * most 15 minutes away (SQS's longest delay), else a one-time EventBridge Scheduler schedule that
 * puts the same message on the publish queue.
 *
 * The schedule fires EARLY_FIRE_SECONDS before T: Scheduler starts a one-time schedule within its
 * minute, not at the second, and the target delivery adds its own latency, so firing on time would
 * make posts late. The worker sees scheduledFor still ahead and delays the message again for the
 * last stretch (at most 15 minutes), which SQS does to the second.
 *
 * Failures are reported per post, never thrown: a post written but not queued becomes `failed`
 * with reason schedule_failed (the create use case does that), the others go ahead.
 */
import { ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, type SchedulerClient } from '@aws-sdk/client-scheduler';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ENV, requireEnv } from '../config.js';
import { logger } from '../observability.js';
import type { DueRequest, PostDispatcher } from '../use-cases/ports/dispatch.js';
import { MAX_GROUP_POSTS, MAX_PREPARE_WINDOW_MS, MAX_QUEUE_DELAY_SECONDS, timingFor } from '../domain/publishing.js';
import { publishGroupMessage, publishMessage, scheduleName } from './messages.js';

export const EARLY_FIRE_SECONDS = 180;
const SEND_BATCH_SIZE = 10;
/** One message on the publish queue: its body and the posts it names. */
interface QueueEntry {
  postIds: readonly string[];
  body: object;
  delaySeconds: number;
}
/** Schedules are created in parallel, a few at a time (Scheduler has no batch create). */
const SCHEDULE_CONCURRENCY = 10;

export interface PublishDispatcherConfig {
  publishQueueUrl: string;
  publishQueueArn: string;
  schedulerGroup: string;
  /** Role Scheduler assumes to send to the publish queue. */
  schedulerRoleArn: string;
  /** Where Scheduler puts a message it could not deliver. */
  schedulerDlqArn: string;
}

/** The dispatcher's settings from the function's environment (set with its grants by the CDK app). */
export function publishDispatcherConfigFromEnv(): PublishDispatcherConfig {
  return {
    publishQueueUrl: requireEnv(ENV.publishQueueUrl),
    publishQueueArn: requireEnv(ENV.publishQueueArn),
    schedulerGroup: requireEnv(ENV.schedulerGroup),
    schedulerRoleArn: requireEnv(ENV.schedulerRoleArn),
    schedulerDlqArn: requireEnv(ENV.schedulerDlqArn),
  };
}

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, the form one-time schedules take. */
function atExpression(at: Date): string {
  return `at(${at.toISOString().slice(0, 19)})`;
}

/**
 * Deletes a post's pending schedule: all that DELETE /posts/{id} needs of the dispatcher. Apart,
 * so that function is built with the schedule group alone and has neither the publish queue nor
 * the scheduler role in its configuration (it may not send there, nor pass the role).
 */
export class ScheduleCanceller implements Pick<PostDispatcher, 'cancel'> {
  constructor(
    private readonly scheduler: SchedulerClient,
    private readonly schedulerGroup: string,
  ) {}

  async cancel(postId: string): Promise<void> {
    try {
      await this.scheduler.send(new DeleteScheduleCommand({ Name: scheduleName(postId), GroupName: this.schedulerGroup }));
    } catch (error) {
      // Posts due within 15 minutes never had a schedule, and a fired one deletes itself.
      if (error instanceof ResourceNotFoundException) return;
      throw error;
    }
  }
}

export class PublishDispatcher implements PostDispatcher {
  private readonly canceller: ScheduleCanceller;

  constructor(
    private readonly sqs: SQSClient,
    private readonly scheduler: SchedulerClient,
    private readonly config: PublishDispatcherConfig,
  ) {
    this.canceller = new ScheduleCanceller(scheduler, config.schedulerGroup);
  }

  async dispatch(requests: readonly DueRequest[], now: Date): Promise<{ failed: string[] }> {
    const queued: { request: DueRequest; delaySeconds: number }[] = [];
    const scheduled: DueRequest[] = [];
    for (const request of requests) {
      // The same timing rule as the worker's, with the longest lead: a delayed message arrives up
      // to MAX_PREPARE_WINDOW_MS early, so the worker can count the posts due at its second and
      // put it back for the lead that count needs (lib/use-cases/publish-batch.ts). Never late:
      // SQS delays are whole seconds and a poll adds latency.
      const timing = timingFor(new Date(request.scheduledFor), now, MAX_PREPARE_WINDOW_MS);
      if (timing.action !== 'requeue') queued.push({ request, delaySeconds: 0 });
      else if (Date.parse(request.scheduledFor) - now.getTime() <= MAX_QUEUE_DELAY_SECONDS * 1000) queued.push({ request, delaySeconds: timing.delaySeconds });
      else scheduled.push(request);
    }
    const failed = [
      ...(await this.sendToQueue(queued)),
      ...(await this.createSchedules(scheduled)),
    ];
    return { failed };
  }

  cancel(postId: string): Promise<void> {
    return this.canceller.cancel(postId);
  }

  /**
   * Delete, then create: the stand-in has no UpdateSchedule, and a schedule of the old time must
   * not be left behind (it would make CreateSchedule's ConflictException look like a retried
   * create of this very schedule). A failed delete leaves the old schedule and reports false;
   * so does a failed dispatch. Either way nothing goes out early or twice: a message of the old
   * time is put back by the worker until the post's own time, and a post whose message is lost is
   * put back by the sweeper once it is late.
   */
  async reschedule(request: DueRequest, now: Date): Promise<boolean> {
    try {
      await this.canceller.cancel(request.postId);
    } catch (error) {
      logger.warn('Could not delete the schedule of a post whose time moved', { postId: request.postId, error: error as Error });
      return false;
    }
    const { failed } = await this.dispatch([request], now);
    return failed.length === 0;
  }

  /**
   * The posts of one due time (a create's fan-out) go as group messages of up to MAX_GROUP_POSTS,
   * not a message each: the worker counts and puts them back in groups anyway
   * (lib/use-cases/publish-batch.ts), and a group it receives comes back as one group. Sent one
   * by one, each invocation got the few messages one receive returns (with many pollers, one or
   * two), put back a group of those few posts, and a burst of 2,000 came back as a hundred or more
   * small groups, each holding an invocation until its second: the pollers (the mapping's maximum
   * concurrency) ran out, and the last groups were received seconds late (npm run bench, `burst`).
   * A lone post keeps the single message.
   */
  private async sendToQueue(entries: { request: DueRequest; delaySeconds: number }[]): Promise<string[]> {
    const byTime = new Map<string, { scheduledFor: string; delaySeconds: number; postIds: string[] }>();
    for (const { request, delaySeconds } of entries) {
      const key = `${request.scheduledFor}|${delaySeconds}`;
      const group = byTime.get(key) ?? { scheduledFor: request.scheduledFor, delaySeconds, postIds: [] };
      group.postIds.push(request.postId);
      byTime.set(key, group);
    }
    const messages: QueueEntry[] = [];
    for (const { scheduledFor, delaySeconds, postIds } of byTime.values()) {
      for (let start = 0; start < postIds.length; start += MAX_GROUP_POSTS) {
        const ids = postIds.slice(start, start + MAX_GROUP_POSTS);
        const body = ids.length === 1 ? publishMessage(ids[0] as string, scheduledFor) : publishGroupMessage(ids, scheduledFor);
        messages.push({ postIds: ids, body, delaySeconds });
      }
    }
    const chunks: QueueEntry[][] = [];
    for (let start = 0; start < messages.length; start += SEND_BATCH_SIZE) chunks.push(messages.slice(start, start + SEND_BATCH_SIZE));
    const failed = await Promise.all(chunks.map((chunk) => this.sendChunk(chunk)));
    return failed.flat();
  }

  private async sendChunk(chunk: QueueEntry[]): Promise<string[]> {
    let pending = chunk.map((entry, index) => ({ ...entry, id: String(index) }));
    // The SDK retries a failed call; entries refused inside a successful call get one more try here.
    for (let attempt = 1; attempt <= 2 && pending.length > 0; attempt++) {
      try {
        const out = await this.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: this.config.publishQueueUrl,
            Entries: pending.map((entry) => ({
              Id: entry.id,
              MessageBody: JSON.stringify(entry.body),
              DelaySeconds: entry.delaySeconds,
            })),
          }),
        );
        const refused = new Set((out.Failed ?? []).map((entry) => entry.Id));
        if (refused.size > 0) logger.warn('Publish queue refused messages', { failed: out.Failed });
        pending = pending.filter((entry) => refused.has(entry.id));
      } catch (error) {
        logger.error('Could not send to the publish queue', { error: error as Error, posts: pending.flatMap((entry) => entry.postIds) });
        break;
      }
    }
    return pending.flatMap((entry) => entry.postIds);
  }

  private async createSchedules(requests: DueRequest[]): Promise<string[]> {
    const failed: string[] = [];
    for (let start = 0; start < requests.length; start += SCHEDULE_CONCURRENCY) {
      const slice = requests.slice(start, start + SCHEDULE_CONCURRENCY);
      const outcomes = await Promise.allSettled(slice.map((request) => this.createSchedule(request)));
      outcomes.forEach((outcome, index) => {
        const request = slice[index];
        if (outcome.status === 'rejected' && request) {
          logger.error('Could not create the schedule of a post', { error: outcome.reason as Error, postId: request.postId });
          failed.push(request.postId);
        }
      });
    }
    return failed;
  }

  private async createSchedule(request: DueRequest): Promise<void> {
    const fireAt = new Date(Date.parse(request.scheduledFor) - EARLY_FIRE_SECONDS * 1000);
    try {
      await this.scheduler.send(
        new CreateScheduleCommand({
          Name: scheduleName(request.postId),
          GroupName: this.config.schedulerGroup,
          ScheduleExpression: atExpression(fireAt),
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          // Same token on a retry of the same post and time: Scheduler treats the retry as the same
          // request. A post whose time moved (PATCH) or that is retried gets a schedule of its own.
          ClientToken: `${request.postId}-${Math.floor(Date.parse(request.scheduledFor) / 1000)}`,
          Target: {
            Arn: this.config.publishQueueArn,
            RoleArn: this.config.schedulerRoleArn,
            Input: JSON.stringify(publishMessage(request.postId, request.scheduledFor)),
            DeadLetterConfig: { Arn: this.config.schedulerDlqArn },
            // A delivery that keeps failing goes to the DLQ within the hour rather than days later.
            RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 20 },
          },
        }),
      );
    } catch (error) {
      // The schedule of this post exists already (a retried create): it is the one we want.
      if (error instanceof ConflictException) return;
      throw error;
    }
  }
}
