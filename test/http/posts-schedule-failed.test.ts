/**
 * A post written but not queued: status failed, result `failed` with reason schedule_failed, its
 * allowance unit given back, and - when that leaves nothing accepted - a 400 that is not
 * remembered by the idempotency record. The stack runs with a publish queue URL and a Scheduler
 * group that do not exist, so both ways of queueing really fail. A partial failure (one schedule
 * of several) needs the Scheduler to fail for one call only: that is done with aws-sdk-client-mock
 * on the Scheduler client, the one AWS adapter that may be mocked.
 */
import { CreateScheduleCommand, InternalServerException, SchedulerClient } from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/config.js';
import { documentedApi } from '../support/openapi.js';
import { minutesFromNow, postsBackdoor, startPostsStack, type PostsBackdoor } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostResult {
  id: string | null;
  status: string;
  reason: string | null;
}

let stack: TestStack;
let backdoor: PostsBackdoor;

beforeAll(async () => {
  stack = await startPostsStack({
    env: { [ENV.schedulerGroup]: 'no-such-group', [ENV.publishQueueUrl]: 'http://sqs.us-east-1.localhost:1/000000000000/no-such-queue' },
  });
  backdoor = postsBackdoor(stack);
});

afterAll(async () => {
  backdoor?.close();
  await stack?.stop();
});

describe('schedule_failed', () => {
  it('nothing could be queued: 400 schedule_failed with the results, the posts exist as failed, units given back, not remembered', async () => {
    const user = await provisionUser({ quota: 5, accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const [x, linkedin] = user.accounts.map((account) => account.id);
    const draft = await api.post<{ posts: PostResult[] }>('/posts', { accounts: [x], text: 'kept', draft: true });
    expect(draft.status).toBe(202);

    const later = await api.post<{ posts: PostResult[] }>(
      '/posts',
      { accounts: [x, linkedin], text: 'later', scheduledFor: minutesFromNow(60) },
      { headers: { 'Idempotency-Key': 'sched-fail-1' } },
    );
    expect(later.status).toBe(400);
    const body = later.body as unknown as { error: { code: string }; posts: PostResult[] };
    expect(body.error.code).toBe('schedule_failed');
    expect(body.posts.map((result) => [result.status, result.reason])).toEqual([
      ['failed', 'schedule_failed'],
      ['failed', 'schedule_failed'],
    ]);
    for (const result of body.posts) {
      const view = await api.get<{ status: string; error: { message: string; advice: string } | null }>(`/posts/${result.id ?? ''}`);
      expect(view.body.status).toBe('failed');
      expect(view.body.error).toEqual({ message: expect.any(String), advice: expect.any(String), retryable: true });
    }
    expect(await backdoor.allowanceUsed(user.userId)).toBe(0);

    // Not remembered: the same key and body try again (and fail again, with new posts).
    const retry = await api.post<{ posts: PostResult[] }>(
      '/posts',
      { accounts: [x, linkedin], text: 'later', scheduledFor: minutesFromNow(60) },
      { headers: { 'Idempotency-Key': 'sched-fail-1' } },
    );
    expect(retry.status).toBe(400);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const retried = (retry.body as unknown as { posts: PostResult[] }).posts;
    expect(retried[0]?.id).not.toBe(body.posts[0]?.id);

    // Due now goes through SQS, which fails too; a draft in the same request is still accepted.
    const mixed = await api.post<{ posts: PostResult[] }>('/posts', { accounts: [x], text: 'now' }, { headers: { 'Idempotency-Key': 'sched-fail-2' } });
    expect((mixed.body as unknown as { error: { code: string } }).error.code).toBe('schedule_failed');
    expect(await backdoor.allowanceUsed(user.userId)).toBe(0);
    const failed = await api.get<{ posts: unknown[] }>('/posts?status=failed');
    expect(failed.body.posts).toHaveLength(5);
  });

  it('a queued post that could not be queued keeps its slot until it is deleted, and a retry gives it back', async () => {
    const user = await provisionUser({ quota: 5, accounts: [{ platform: 'x' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const accountId = user.accounts[0]!.id;
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    const slots = days.flatMap((day) => ['08:05', '12:05', '18:05'].map((time) => ({ day, time })));
    expect((await api.request('PUT', `/accounts/${accountId}/queue`, { body: { timeZone: 'Europe/Berlin', slots } })).status).toBe(200);
    const nextFree = async (): Promise<string[]> =>
      (await api.get<{ slots: { scheduledFor: string }[] }>(`/accounts/${accountId}/queue/next?count=3`)).body.slots.map((slot) => slot.scheduledFor);
    const free = await nextFree();

    const failOne = async (): Promise<string> => {
      const created = await api.post<{ posts: PostResult[] }>('/posts', { accounts: [accountId], text: 'queued', queue: true });
      expect((created.body as unknown as { error: { code: string } }).error.code).toBe('schedule_failed');
      return created.body.posts[0]!.id!;
    };
    const first = await failOne();
    const firstView = await api.get<{ status: string; scheduledFor: string }>(`/posts/${first}`);
    expect([firstView.body.status, firstView.body.scheduledFor]).toEqual(['failed', free[0]]);
    // The failed post still holds its slot: the next queued post goes to the one after.
    expect((await nextFree()).slice(0, 2)).toEqual(free.slice(1, 3));
    const second = await failOne();
    expect((await api.get<{ scheduledFor: string }>(`/posts/${second}`)).body.scheduledFor).toBe(free[1]);

    // Deleting the first gives its slot back.
    expect((await api.delete(`/posts/${first}`)).status).toBe(200);
    expect((await nextFree())[0]).toBe(free[0]);
    // A retry sends the second at the time it asks for, not at its slot: the slot is given back
    // (the retry's own scheduling fails again in this stack, which changes nothing for the slot).
    await api.post(`/posts/${second}/retry`, { scheduledFor: minutesFromNow(600) });
    expect((await nextFree()).slice(0, 2)).toEqual(free.slice(0, 2));
  });

  it('a draft needs no queue: accepted where posts cannot be queued, and its 202 is remembered', async () => {
    const user = await provisionUser({ quota: 5, accounts: [{ platform: 'x' }, { platform: 'instagram' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const body = { accounts: user.accounts.map((account) => account.id), text: 'x' };
    // A draft and an unpostable account: the draft is accepted, so the batch is a 202.
    const draftBatch = await api.post<{ posts: PostResult[] }>('/posts', { ...body, draft: true }, { headers: { 'Idempotency-Key': 'k-draft' } });
    expect(draftBatch.status).toBe(202);
    expect(draftBatch.body.posts.map((result) => result.status)).toEqual(['accepted', 'rejected']);
    const replay = await api.post<{ posts: PostResult[] }>('/posts', { ...body, draft: true }, { headers: { 'Idempotency-Key': 'k-draft' } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(draftBatch.body);
  });

  it('one schedule of two fails: 202 with one accepted and one failed entry, one unit spent, the replay shows both', async () => {
    const scheduler = mockClient(SchedulerClient);
    try {
      scheduler
        .on(CreateScheduleCommand)
        .resolvesOnce({ ScheduleArn: 'arn:aws:scheduler:us-east-1:000000000000:schedule/posts/first' })
        .rejects(new InternalServerException({ message: 'Scheduler is unavailable', Message: 'Scheduler is unavailable', $metadata: {} }));
      const user = await provisionUser({ quota: 5, accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
      const api = documentedApi(stack.baseUrl, user.apiKey);
      const body = { accounts: user.accounts.map((account) => account.id), text: 'half', scheduledFor: minutesFromNow(60) };
      const headers = { 'Idempotency-Key': 'partly-scheduled' };
      const created = await api.post<{ posts: PostResult[] }>('/posts', body, { headers });
      expect(created.status).toBe(202);
      expect(created.body.posts.map((result) => [result.status, result.reason])).toEqual([
        ['accepted', null],
        ['failed', 'schedule_failed'],
      ]);
      expect(await backdoor.allowanceUsed(user.userId)).toBe(1);
      expect((await api.get<{ status: string }>(`/posts/${created.body.posts[1]?.id ?? ''}`)).body.status).toBe('failed');
      expect((await api.get<{ status: string }>(`/posts/${created.body.posts[0]?.id ?? ''}`)).body.status).toBe('scheduled');
      const replay = await api.post<{ posts: PostResult[] }>('/posts', body, { headers });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(created.body);
      expect(scheduler.commandCalls(CreateScheduleCommand)).toHaveLength(2);
    } finally {
      scheduler.restore();
    }
  });
});
