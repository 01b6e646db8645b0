/**
 * The real limit of api-v1.md, without overrides: 120 requests of a key in one UTC minute are
 * admitted, the 121st is 429 rate_limit_burst - sequentially and under concurrency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, rateHeaders, startOfRoomyMinute } from '../support/api-assertions.js';
import { api, type ApiResponse } from '../support/http.js';
import { createKey, provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack();
  user = await provisionUser({ accounts: [{ platform: 'x' }] });
});

afterAll(async () => {
  await stack?.stop();
});

describe('120 requests per key per minute', () => {
  it('admits 120 sequential requests and refuses the 121st', async () => {
    const { apiKey } = await createKey(user.userId);
    const get = api(stack.baseUrl, apiKey).request;
    await startOfRoomyMinute(25);
    const responses: ApiResponse[] = [];
    for (let i = 0; i < 121; i += 1) responses.push(await get('GET', '/accounts'));

    expect(responses.slice(0, 120).every((r) => r.status === 200)).toBe(true);
    expect(responses.slice(0, 120).map((r) => rateHeaders(r).remaining)).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
    expect(new Set(responses.map((r) => rateHeaders(r).reset)).size).toBe(1);
    const refused = responses[120] as ApiResponse;
    expectApiError(refused, { status: 429, type: 'rate_limit_error', code: 'rate_limit_burst' });
    expect(rateHeaders(refused)).toMatchObject({ limit: 120, remaining: 0 });
    expect(rateHeaders(refused).retryAfter).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('admits exactly 120 of 150 concurrent requests', async () => {
    const { apiKey } = await createKey(user.userId);
    const get = api(stack.baseUrl, apiKey).request;
    await startOfRoomyMinute(25);
    const responses = await Promise.all(Array.from({ length: 150 }, () => get('GET', '/accounts')));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(120);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(30);
  });
});
