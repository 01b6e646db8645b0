/**
 * The daily limit through HTTP, with the local-only override RATE_LIMIT_PER_DAY=4 (the minute
 * limit stays far above it): once the day's budget is spent the headers describe the UTC day, and
 * the next request is 429 rate_limit_daily with Retry-After until midnight UTC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, nextUtcMidnight, rateHeaders, startOfRoomyMinute } from '../support/api-assertions.js';
import { api, freshSourceAddress, type ApiResponse } from '../support/http.js';
import { assertDocumentedResponse } from '../support/openapi.js';
import { createKey, provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const PER_MINUTE = 100;
const PER_DAY = 4;

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack({ env: { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), RATE_LIMIT_PER_DAY: String(PER_DAY) } });
  user = await provisionUser({ accounts: [{ platform: 'linkedin' }] });
});

afterAll(async () => {
  await stack?.stop();
});

async function getAccounts(key: string): Promise<ApiResponse> {
  const response = await api(stack.baseUrl, key, { sourceAddress: freshSourceAddress() }).get('/accounts');
  assertDocumentedResponse('GET', '/accounts', response);
  return response;
}

describe('per-key daily limit', () => {
  it('describes the minute until the day is spent, then the day, then refuses with rate_limit_daily', async () => {
    const { apiKey } = await createKey(user.userId);
    await startOfRoomyMinute(10);
    const responses: ApiResponse[] = [];
    for (let i = 0; i < PER_DAY + 2; i += 1) responses.push(await getAccounts(apiKey));
    const midnight = nextUtcMidnight();

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);
    // Minute window while the day has budget left...
    expect(responses.slice(0, 3).map((r) => [rateHeaders(r).limit, rateHeaders(r).remaining])).toEqual([
      [PER_MINUTE, 99],
      [PER_MINUTE, 98],
      [PER_MINUTE, 97],
    ]);
    // ...the day's window from the request that spent its last unit.
    expect(rateHeaders(responses[3] as ApiResponse)).toMatchObject({ limit: PER_DAY, remaining: 0, reset: midnight, retryAfter: null });

    for (const refused of responses.slice(PER_DAY)) {
      expectApiError(refused, { status: 429, type: 'rate_limit_error', code: 'rate_limit_daily' });
      const headers = rateHeaders(refused);
      expect(headers).toMatchObject({ limit: PER_DAY, remaining: 0, reset: midnight });
      const untilMidnight = midnight - Date.now() / 1000;
      expect(headers.retryAfter).toBeGreaterThanOrEqual(Math.floor(untilMidnight) - 5);
      expect(headers.retryAfter).toBeLessThanOrEqual(Math.ceil(untilMidnight) + 1);
    }
  });

  it('counts the day per key', async () => {
    const spent = await createKey(user.userId);
    const fresh = await createKey(user.userId);
    await startOfRoomyMinute(10);
    for (let i = 0; i <= PER_DAY; i += 1) await getAccounts(spent.apiKey);
    expectApiError(await getAccounts(spent.apiKey), { status: 429, type: 'rate_limit_error', code: 'rate_limit_daily' });
    const other = await getAccounts(fresh.apiKey);
    expect(other.status).toBe(200);
    expect(rateHeaders(other)).toMatchObject({ limit: PER_MINUTE, remaining: PER_MINUTE - 1 });
  });

  it('admits exactly the daily limit out of concurrent requests', async () => {
    const { apiKey } = await createKey(user.userId);
    await startOfRoomyMinute(10);
    const responses = await Promise.all(Array.from({ length: 20 }, () => getAccounts(apiKey)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(PER_DAY);
    for (const refused of responses.filter((r) => r.status !== 200)) {
      expectApiError(refused, { status: 429, type: 'rate_limit_error', code: 'rate_limit_daily' });
    }
  });
});
