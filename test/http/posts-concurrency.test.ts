/**
 * Concurrency through HTTP: parallel creates with one Idempotency-Key make exactly one set of posts,
 * and parallel creates against a nearly spent allowance never exceed it. And what a create costs:
 * the DynamoDB requests of one create are counted (the handlers run in this process, so a
 * middleware on the shared DynamoDB client sees every request they make) for 1 and for 25 targets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClient } from '../../lib/store/dynamo-client.js';
import { documentedApi } from '../support/openapi.js';
import { postsBackdoor, startPostsStack, type PostsBackdoor } from '../support/posts.js';
import { provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface PostBatch {
  campaignId: string;
  posts: { id: string | null; status: string; reason: string | null }[];
}

let stack: TestStack;
let backdoor: PostsBackdoor;

beforeAll(async () => {
  stack = await startPostsStack();
  backdoor = postsBackdoor(stack);
});

afterAll(async () => {
  backdoor?.close();
  await stack?.stop();
});

describe('concurrent creates', () => {
  it('10 parallel creates with one Idempotency-Key make exactly one set of posts', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const body = { accounts: user.accounts.map((account) => account.id), text: 'exactly once' };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => api.post<PostBatch>('/posts', body, { headers: { 'Idempotency-Key': 'parallel-1' } })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 202 || status === 409)).toBe(true);
    const created = responses.filter((response) => response.status === 202);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.filter((response) => response.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const response of created) expect(response.body).toEqual(created[0]?.body);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect((response.body as unknown as { error: { code: string } }).error.code).toBe('idempotency_in_flight');
    }
    const listed = await api.get<{ posts: { id: string }[] }>('/posts');
    expect(listed.body.posts.map((post) => post.id).sort()).toEqual(created[0]?.body.posts.map((result) => result.id).sort());
    expect(await backdoor.allowanceUsed(user.userId)).toBe(2);
    // Once finished, the same key replays.
    const after = await api.post<PostBatch>('/posts', body, { headers: { 'Idempotency-Key': 'parallel-1' } });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toEqual(created[0]?.body);
  });

  it('parallel creates against a nearly spent allowance never exceed it', async () => {
    const user = await provisionUser({ quota: 10, accounts: [{ platform: 'x' }, { platform: 'linkedin' }, { platform: 'x' }] });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const accounts = user.accounts.map((account) => account.id);
    expect((await api.post('/posts', { accounts: accounts.slice(0, 2), text: 'warm up' })).status).toBe(202);
    // 8 used of 10 after this: 3 + 3 + 2 would fit 8 exactly; 12 parallel creates of 3 targets want 36.
    expect((await api.post('/posts', { accounts, text: 'more' })).status).toBe(202);
    expect((await api.post('/posts', { accounts, text: 'more' })).status).toBe(202);
    expect(await backdoor.allowanceUsed(user.userId)).toBe(8);
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => api.post<PostBatch>('/posts', { accounts, text: `race ${i}` })));
    const accepted = responses.flatMap((response) => (response.status === 202 ? response.body.posts : [])).filter((result) => result.status === 'accepted');
    expect(accepted).toHaveLength(2);
    for (const response of responses) {
      expect([202, 400]).toContain(response.status);
      const results = response.status === 202 ? response.body.posts : ((response.body as unknown as { posts: PostBatch['posts'] }).posts ?? []);
      for (const result of results) if (result.status === 'rejected') expect(result.reason).toBe('quota_exceeded');
    }
    expect(await backdoor.allowanceUsed(user.userId)).toBe(10);
    const listed = await api.get<{ posts: unknown[] }>('/posts?limit=100');
    expect(listed.body.posts).toHaveLength(10);
  });
});

describe('what one create costs', () => {
  it('the same number of DynamoDB requests for 1 and for 25 targets', async () => {
    const accountsOf25 = Array.from({ length: 25 }, (_, i) => ({ platform: i % 2 === 0 ? 'x' : 'linkedin' }));
    const user = await provisionUser({ accounts: accountsOf25 });
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const counted: string[] = [];
    const name = 'count-dynamodb-requests';
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        counted.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const measure = async (accounts: string[], key: string): Promise<string[]> => {
        counted.length = 0;
        const response = await api.post<PostBatch>('/posts', { accounts, text: 'count me' }, { headers: { 'Idempotency-Key': key } });
        expect(response.status).toBe(202);
        expect(response.body.posts.every((result) => result.status === 'accepted')).toBe(true);
        return [...counted];
      };
      const ids = user.accounts.map((account) => account.id);
      // The first request of a key also loads the key and the user (then cached up to 60 s per process).
      const cold = await measure(ids.slice(0, 1), 'cost-cold');
      const one = await measure(ids.slice(0, 1), 'cost-1');
      const twentyFive = await measure(ids, 'cost-25');
      console.info(`DynamoDB requests per create: cold key ${cold.length} (${cold.join(', ')}); 1 target ${one.length} (${one.join(', ')}); 25 targets ${twentyFive.length} (${twentyFive.join(', ')})`);
      expect(one.length).toBe(twentyFive.length);
      expect(twentyFive.length).toBeLessThanOrEqual(8);
      expect(cold.length).toBeLessThanOrEqual(8);
      expect(twentyFive.filter((command) => command === 'TransactWriteItemsCommand')).toHaveLength(1);
    } finally {
      dynamoDbClient.middlewareStack.remove(name);
    }
  });
});
