/**
 * Queues through HTTP against the local stack (beyond-v2.md "Queues and time zones"): GET and PUT
 * /accounts/{id}/queue, GET .../queue/next, `queue: true` on a create (each target its own
 * account's earliest free slot; 16 racing creates to one account all get distinct slots, which
 * fails without the slot item's condition), a cancel gives the slot back, the errors, and what a
 * queued create costs in DynamoDB requests beside one with scheduledFor. Every response is checked
 * against openapi.yaml.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDbClient } from '../../lib/store/dynamo-client.js';
import { directoryKeys } from '../../lib/store/directory-table.js';
import { QUEUE_SLOT_TTL_SECONDS } from '../../lib/store/dynamodb-queue-store.js';
import { expectApiError } from '../support/api-assertions.js';
import type { ApiClient } from '../support/http.js';
import { documentedApi } from '../support/openapi.js';
import { minutesFromNow, startPostsStack } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface QueueBody {
  object: 'queue';
  accountId: string;
  timeZone: string;
  slots: { day: string; time: string }[];
}
interface NextBody {
  object: 'list';
  slots: { scheduledFor: string; local: string }[];
}
interface PostBatch {
  posts: { id: string | null; accountId: string; status: string; reason: string | null }[];
}
interface ErrorWithPosts {
  error: { code: string };
  posts: PostBatch['posts'];
}

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** Every day at hh:17 from 06:17 to 19:17 (98 slots, the most is 100). */
const HOURLY = DAYS.flatMap((day) => Array.from({ length: 14 }, (_, hour) => ({ day, time: `${String(hour + 6).padStart(2, '0')}:17` })));

let stack: TestStack;

beforeAll(async () => {
  stack = await startPostsStack();
});

afterAll(async () => {
  await stack?.stop();
});

async function next(api: ApiClient, accountId: string, count: number): Promise<NextBody['slots']> {
  const response = await api.get<NextBody>(`/accounts/${accountId}/queue/next?count=${count}`);
  expect(response.status, response.text).toBe(200);
  return response.body.slots;
}

async function setQueue(api: ApiClient, accountId: string, body: { timeZone: string; slots: { day: string; time: string }[] }): Promise<void> {
  const response = await api.request('PUT', `/accounts/${accountId}/queue`, { body });
  expect(response.status, response.text).toBe(200);
}

async function scheduledForOf(api: ApiClient, postId: string): Promise<string> {
  const response = await api.get<{ scheduledFor: string; status: string }>(`/posts/${postId}`);
  expect(response.status).toBe(200);
  return response.body.scheduledFor;
}

describe('GET and PUT /accounts/{id}/queue', () => {
  it('a new account has an empty queue in UTC; PUT replaces it (sorted, duplicates once) and GET reads it back', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const accountId = user.accounts[0]!.id;
    const empty = await api.get<QueueBody>(`/accounts/${accountId}/queue`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ object: 'queue', accountId, timeZone: 'UTC', slots: [] });

    const put = await api.request<QueueBody>('PUT', `/accounts/${accountId}/queue`, {
      body: { timeZone: 'America/St_Johns', slots: [{ day: 'friday', time: '17:30' }, { day: 'monday', time: '09:00' }, { day: 'friday', time: '17:30' }] },
    });
    expect(put.status, put.text).toBe(200);
    const expected = { object: 'queue', accountId, timeZone: 'America/St_Johns', slots: [{ day: 'monday', time: '09:00' }, { day: 'friday', time: '17:30' }] };
    expect(put.body).toEqual(expected);
    expect((await api.get<QueueBody>(`/accounts/${accountId}/queue`)).body).toEqual(expected);

    const slots = await next(api, accountId, 4);
    expect(slots).toHaveLength(4);
    for (const slot of slots) {
      expect(slot.local.endsWith('T09:00') || slot.local.endsWith('T17:30')).toBe(true);
      // St John's is 3:30 or 2:30 behind UTC: the minutes of the UTC instant are :30 for 09:00 and :00 for 17:30.
      expect(new Date(slot.scheduledFor).getUTCMinutes()).toBe(slot.local.endsWith('T09:00') ? 30 : 0);
    }
  });

  it('refuses a bad zone, a bad slot, a bad count, and another customer’s account', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    const other = await provisionUser({ accounts: [{ platform: 'linkedin' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const accountId = user.accounts[0]!.id;
    const put = (body: unknown) => api.request('PUT', `/accounts/${accountId}/queue`, { body });
    expectApiError(await put({ timeZone: 'Mars/Olympus_Mons', slots: [] }), { status: 400, type: 'invalid_request_error', code: 'invalid_time_zone', param: 'timeZone' });
    expectApiError(await put({ timeZone: '+05:30', slots: [] }), { status: 400, type: 'invalid_request_error', code: 'invalid_time_zone', param: 'timeZone' });
    expectApiError(await put({ timeZone: 'UTC', slots: [{ day: 'funday', time: '09:00' }] }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_slot',
      param: 'slots[0].day',
    });
    expectApiError(await put({ timeZone: 'UTC', slots: [{ day: 'monday', time: '25:00' }] }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_slot',
      param: 'slots[0].time',
    });
    expectApiError(await put({ timeZone: 'UTC', slots: Array.from({ length: 101 }, () => ({ day: 'monday', time: '09:00' })) }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_slot',
      param: 'slots',
    });
    expectApiError(await api.get(`/accounts/${accountId}/queue/next?count=51`), { status: 400, type: 'invalid_request_error', code: 'invalid_query', param: 'count' });
    expectApiError(await api.get(`/accounts/${accountId}/queue/next?count=0`), { status: 400, type: 'invalid_request_error', code: 'invalid_query', param: 'count' });
    const foreign = other.accounts[0]!.id;
    expectApiError(await api.get(`/accounts/${foreign}/queue`), { status: 404, type: 'invalid_request_error', code: 'account_not_found', param: 'id' });
    expectApiError(await api.request('PUT', `/accounts/${foreign}/queue`, { body: { timeZone: 'UTC', slots: [] } }), {
      status: 404,
      type: 'invalid_request_error',
      code: 'account_not_found',
      param: 'id',
    });
    // The other customer's queue is untouched.
    expect((await documentedApi(stack.baseUrl, other.apiKey).get<QueueBody>(`/accounts/${foreign}/queue`)).body.slots).toEqual([]);
  });
});

describe('queue: true on a create', () => {
  it('each target takes the earliest free slot of its own account; a cancel gives the slot back', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const [x, linkedin] = user.accounts.map((account) => account.id) as [string, string];
    await setQueue(api, x, { timeZone: 'Pacific/Chatham', slots: HOURLY });
    await setQueue(api, linkedin, { timeZone: 'Asia/Kolkata', slots: HOURLY });
    const xSlots = await next(api, x, 3);
    const linkedinSlots = await next(api, linkedin, 3);

    const created = await api.post<PostBatch>('/posts', { accounts: [x, linkedin], text: 'queued', queue: true });
    expect(created.status, created.text).toBe(202);
    const [xPost, linkedinPost] = created.body.posts.map((result) => result.id!) as [string, string];
    expect(await scheduledForOf(api, xPost)).toBe(xSlots[0]!.scheduledFor);
    expect(await scheduledForOf(api, linkedinPost)).toBe(linkedinSlots[0]!.scheduledFor);
    expect((await next(api, x, 2)).map((slot) => slot.scheduledFor)).toEqual(xSlots.slice(1, 3).map((slot) => slot.scheduledFor));
    // The slot item expires through the directory table's TTL a day after its instant: never cleaned otherwise.
    const slotItem = await DynamoDBDocumentClient.from(dynamoDbClient).send(
      new GetCommand({ TableName: stack.info.tables.directory, Key: directoryKeys.queueSlot(x, xSlots[0]!.scheduledFor) }),
    );
    expect(slotItem.Item).toMatchObject({ postId: xPost, expiresAt: Date.parse(xSlots[0]!.scheduledFor) / 1000 + QUEUE_SLOT_TTL_SECONDS });
    const ttl = await dynamoDbClient.send(new DescribeTimeToLiveCommand({ TableName: stack.info.tables.directory }));
    expect(ttl.TimeToLiveDescription).toMatchObject({ AttributeName: 'expiresAt', TimeToLiveStatus: 'ENABLED' });

    const second = await api.post<PostBatch>('/posts', { accounts: [x], text: 'queued again', queue: true });
    const secondPost = second.body.posts[0]!.id!;
    expect(await scheduledForOf(api, secondPost)).toBe(xSlots[1]!.scheduledFor);

    // Cancelling the second post frees its slot: it is the next free one again, and the next create takes it.
    expect((await api.delete(`/posts/${secondPost}`)).status).toBe(200);
    expect((await next(api, x, 1))[0]?.scheduledFor).toBe(xSlots[1]!.scheduledFor);
    const third = await api.post<PostBatch>('/posts', { accounts: [x], text: 'takes the freed slot', queue: true });
    expect(await scheduledForOf(api, third.body.posts[0]!.id!)).toBe(xSlots[1]!.scheduledFor);
  });

  it('a post scheduled exactly at a slot takes it; a second post at that time is accepted at it, never refused; a cancel of the holder frees it', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const accountId = user.accounts[0]!.id;
    await setQueue(api, accountId, { timeZone: 'America/St_Johns', slots: HOURLY });
    const free = (await next(api, accountId, 3)).map((slot) => slot.scheduledFor);

    const explicit = await api.post<PostBatch>('/posts', { accounts: [accountId], text: 'at the slot', scheduledFor: free[0] });
    expect(explicit.status, explicit.text).toBe(202);
    expect((await next(api, accountId, 2)).map((slot) => slot.scheduledFor)).toEqual(free.slice(1, 3));
    const queued = await api.post<PostBatch>('/posts', { accounts: [accountId], text: 'queued', queue: true });
    expect(await scheduledForOf(api, queued.body.posts[0]!.id!)).toBe(free[1]);

    // The same explicit time again, and the queued post's time: both accepted at the time asked.
    for (const at of [free[0]!, free[1]!]) {
      const again = await api.post<PostBatch>('/posts', { accounts: [accountId], text: `also at ${at}`, scheduledFor: at });
      expect(again.status, again.text).toBe(202);
      expect(await scheduledForOf(api, again.body.posts[0]!.id!)).toBe(at);
    }
    // A time that is no slot takes nothing: the free slots are as they were.
    const between = new Date(Date.parse(free[2]!) + 60_000).toISOString();
    expect((await api.post<PostBatch>('/posts', { accounts: [accountId], text: 'between slots', scheduledFor: between })).status).toBe(202);
    expect((await next(api, accountId, 1))[0]!.scheduledFor).toBe(free[2]);
    // The holder's cancel gives its slot back (the post sharing its time holds no item: docs/queues.md).
    expect((await api.delete(`/posts/${explicit.body.posts[0]!.id!}`)).status).toBe(200);
    expect((await next(api, accountId, 1))[0]!.scheduledFor).toBe(free[0]);
  });

  it('16 concurrent queued creates to one account all get distinct slots: the first 16 free ones', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const accountId = user.accounts[0]!.id;
    await setQueue(api, accountId, { timeZone: 'Europe/Berlin', slots: HOURLY });
    const free = await next(api, accountId, 16);

    const started = performance.now();
    const timed = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const begin = performance.now();
        const response = await api.post<PostBatch>('/posts', { accounts: [accountId], text: `race ${i}`, queue: true });
        return { response, ms: performance.now() - begin };
      }),
    );
    const wall = performance.now() - started;
    for (const { response } of timed) expect(response.status, response.text).toBe(202);
    const times = await Promise.all(timed.map(({ response }) => scheduledForOf(api, response.body.posts[0]!.id!)));
    expect(new Set(times).size).toBe(16);
    expect([...times].sort()).toEqual(free.map((slot) => slot.scheduledFor));

    const plain = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const begin = performance.now();
        const response = await api.post<PostBatch>('/posts', { accounts: [accountId], text: `plain ${i}`, scheduledFor: minutesFromNow(120) });
        expect(response.status).toBe(202);
        return performance.now() - begin;
      }),
    );
    const p99 = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1]!;
    console.info(
      `16 concurrent creates to one account: queue: true p99 ${p99(timed.map((t) => t.ms)).toFixed(0)} ms (wall ${wall.toFixed(0)} ms); ` +
        `scheduledFor p99 ${p99(plain).toFixed(0)} ms`,
    );
  });

  it('queue_empty without slots, queue_full when every slot within 30 days is taken, invalid_queue with scheduledFor or a draft', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const [x, linkedin] = user.accounts.map((account) => account.id) as [string, string];

    const empty = await api.post<ErrorWithPosts>('/posts', { accounts: [x], text: 'nowhere to go', queue: true });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('queue_empty');
    expect(empty.body.posts[0]).toMatchObject({ status: 'rejected', reason: 'queue_empty', id: null });

    // One slot a week: four or five within 30 days.
    await setQueue(api, x, { timeZone: 'Australia/Lord_Howe', slots: [{ day: 'wednesday', time: '12:00' }] });
    await setQueue(api, linkedin, { timeZone: 'UTC', slots: HOURLY });
    const weekly = await next(api, x, 50);
    expect(weekly.length).toBeGreaterThanOrEqual(4);
    expect(weekly.length).toBeLessThanOrEqual(5);
    for (const _ of weekly) expect((await api.post('/posts', { accounts: [x], text: 'fill', queue: true })).status).toBe(202);
    expect(await next(api, x, 10)).toEqual([]);
    // Per target: the full account is rejected, the other still takes its slot.
    const mixed = await api.post<PostBatch>('/posts', { accounts: [x, linkedin], text: 'one full', queue: true });
    expect(mixed.status).toBe(202);
    expect(mixed.body.posts.map((result) => [result.status, result.reason])).toEqual([
      ['rejected', 'queue_full'],
      ['accepted', null],
    ]);

    expectApiError(await api.post('/posts', { accounts: [linkedin], text: 'both', queue: true, scheduledFor: minutesFromNow(60) }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_queue',
      param: 'queue',
    });
    expectApiError(await api.post('/posts', { accounts: [linkedin], text: 'draft', queue: true, draft: true }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_queue',
      param: 'queue',
    });
    expectApiError(await api.post('/posts', { accounts: [linkedin], text: 'string', queue: 'yes' }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_queue',
      param: 'queue',
    });
  });
});

describe('queue: true on PATCH, a draft\'s publish and the preview', () => {
  it('PATCH moves a post to the earliest free slot and a new time gives it back; publish takes a slot; the preview says queue_empty', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const [x, linkedin] = user.accounts.map((account) => account.id) as [string, string];
    await setQueue(api, x, { timeZone: 'America/New_York', slots: HOURLY });
    const free = await next(api, x, 3);

    // A post at a time of its own moves into the queue: the earliest free slot.
    const plain = await api.post<PostBatch>('/posts', { accounts: [x], text: 'at its own time', scheduledFor: minutesFromNow(600) });
    const plainId = plain.body.posts[0]!.id!;
    const moved = await api.request<{ scheduledFor: string }>('PATCH', `/posts/${plainId}`, { body: { queue: true } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.scheduledFor).toBe(free[0]!.scheduledFor);
    // Asked again, it keeps its own slot (its own counts as free).
    const again = await api.request<{ scheduledFor: string }>('PATCH', `/posts/${plainId}`, { body: { queue: true } });
    expect(again.body.scheduledFor).toBe(free[0]!.scheduledFor);
    expect((await next(api, x, 1))[0]?.scheduledFor).toBe(free[1]!.scheduledFor);
    // A time of its own gives the slot back.
    const away = await api.request('PATCH', `/posts/${plainId}`, { body: { scheduledFor: minutesFromNow(700) } });
    expect(away.status, away.text).toBe(200);
    expect((await next(api, x, 1))[0]?.scheduledFor).toBe(free[0]!.scheduledFor);

    // A draft goes out at the earliest free slot when published with queue: true.
    const draft = await api.post<PostBatch>('/posts', { accounts: [x], text: 'draft', draft: true });
    const draftId = draft.body.posts[0]!.id!;
    expectApiError(await api.request('PATCH', `/posts/${draftId}`, { body: { queue: true } }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_queue',
      param: 'queue',
    });
    const published = await api.post<{ status: string; scheduledFor: string }>(`/posts/${draftId}/publish`, { queue: true });
    expect(published.status, published.text).toBe(200);
    expect(published.body).toMatchObject({ status: 'scheduled', scheduledFor: free[0]!.scheduledFor });
    expectApiError(await api.post(`/posts/${draftId}/publish`, { queue: true, scheduledFor: minutesFromNow(60) }), {
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_queue',
      param: 'queue',
    });

    // The preview shows the slot a target would take, and rejects one whose queue is empty, as the create would.
    const nextFree = (await next(api, x, 1))[0]!.scheduledFor;
    const preview = await api.post<{ posts: { accountId: string; status: string; reason: string | null; scheduledFor?: string }[] }>('/posts/preview', {
      accounts: [x, linkedin],
      text: 'where would it go',
      queue: true,
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.posts.map((line) => [line.status, line.reason, line.scheduledFor])).toEqual([
      ['accepted', null, nextFree],
      ['rejected', 'queue_empty', undefined],
    ]);
    // Nothing is taken by a preview.
    expect((await next(api, x, 1))[0]!.scheduledFor).toBe(nextFree);
  });
});

describe('what a queued create costs', () => {
  it('at most 2 DynamoDB requests more per target than a create with scheduledFor', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }, { platform: 'x' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const ids = user.accounts.map((account) => account.id);
    for (const id of ids) await setQueue(api, id, { timeZone: 'Europe/Berlin', slots: HOURLY });
    const counted: string[] = [];
    const name = 'count-queue-dynamodb-requests';
    dynamoDbClient.middlewareStack.add(
      (nextStep, context) => async (args) => {
        counted.push(String(context.commandName));
        return nextStep(args);
      },
      { step: 'initialize', name },
    );
    try {
      const measure = async (body: Record<string, unknown>): Promise<string[]> => {
        counted.length = 0;
        const response = await api.post<PostBatch>('/posts', body);
        expect(response.status, response.text).toBe(202);
        return [...counted];
      };
      await measure({ accounts: ids.slice(0, 1), text: 'warm the key cache', scheduledFor: minutesFromNow(90) });
      const scheduled1 = await measure({ accounts: ids.slice(0, 1), text: 'at a time', scheduledFor: minutesFromNow(90) });
      const queued1 = await measure({ accounts: ids.slice(0, 1), text: 'queued', queue: true });
      const scheduled3 = await measure({ accounts: ids, text: 'at a time', scheduledFor: minutesFromNow(90) });
      const queued3 = await measure({ accounts: ids, text: 'queued', queue: true });
      console.info(
        `DynamoDB requests: scheduledFor 1 target ${scheduled1.length}, queue 1 target ${queued1.length}; scheduledFor 3 targets ${scheduled3.length}, queue 3 targets ${queued3.length} (${queued3.join(', ')})`,
      );
      expect(queued1.length - scheduled1.length).toBeLessThanOrEqual(2);
      expect(queued3.length - scheduled3.length).toBeLessThanOrEqual(2 * 3);
      expect(queued3.filter((command) => command === 'TransactWriteItemsCommand')).toHaveLength(1);
      // An explicit time exactly at a slot reads the queues (one BatchGetItem for every target) and
      // takes the slot in the same one transaction; one already held costs a transaction more.
      const atSlot = (await next(api, ids[0]!, 1))[0]!.scheduledFor;
      const explicitAtSlot = await measure({ accounts: ids.slice(0, 1), text: 'at a slot', scheduledFor: atSlot });
      const explicitHeld = await measure({ accounts: ids.slice(0, 1), text: 'at a held slot', scheduledFor: atSlot });
      console.info(`DynamoDB requests: scheduledFor at a free slot ${explicitAtSlot.length}, at a held slot ${explicitHeld.length} (${explicitHeld.join(', ')})`);
      expect(explicitAtSlot.length).toBe(scheduled1.length + 1);
      expect(explicitHeld.length).toBe(scheduled1.length + 2);
      expect((await next(api, ids[0]!, 1))[0]!.scheduledFor).not.toBe(atSlot);
    } finally {
      dynamoDbClient.middlewareStack.remove(name);
    }
  });
});
