/**
 * Rate limits through HTTP, with the local-only override RATE_LIMIT_PER_MINUTE=5 so a window
 * fills in a few requests (test/http/rate-limits-real.test.ts runs the real 120). Each test uses
 * its own key and its own source address; sequences that count start early enough in a minute
 * to stay inside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, randomToken } from '../../lib/domain/ids.js';
import { dynamoDbClient } from '../../lib/store/dynamo-client.js';
import { expectApiError, rateHeaders, startOfRoomyMinute } from '../support/api-assertions.js';
import { api, freshSourceAddress, type ApiResponse } from '../support/http.js';
import { assertDocumentedResponse } from '../support/openapi.js';
import { createKey, provisionUser, revokeKey, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const PER_MINUTE = 5;

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack({ env: { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), RATE_LIMIT_PER_DAY: '1000' } });
  user = await provisionUser({ accounts: [{ platform: 'x' }] });
});

afterAll(async () => {
  await stack?.stop();
});

async function getAccounts(key: string | undefined, sourceAddress = freshSourceAddress()): Promise<ApiResponse> {
  const response = await api(stack.baseUrl, key, { sourceAddress }).get('/accounts');
  assertDocumentedResponse('GET', '/accounts', response);
  return response;
}

const burst = { status: 429, type: 'rate_limit_error', code: 'rate_limit_burst' };

describe('per-key minute limit', () => {
  it('admits the limit, counting Remaining down to 0, then answers 429 rate_limit_burst with Retry-After', async () => {
    const { apiKey } = await createKey(user.userId);
    await startOfRoomyMinute(10);
    const responses: ApiResponse[] = [];
    for (let i = 0; i <= PER_MINUTE; i += 1) responses.push(await getAccounts(apiKey));

    const admitted = responses.slice(0, PER_MINUTE);
    expect(admitted.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(admitted.map((r) => rateHeaders(r).remaining)).toEqual([4, 3, 2, 1, 0]);
    for (const response of admitted) expect(rateHeaders(response)).toMatchObject({ limit: PER_MINUTE, retryAfter: null });

    const refused = responses[PER_MINUTE] as ApiResponse;
    expectApiError(refused, burst);
    const headers = rateHeaders(refused);
    expect(headers).toMatchObject({ limit: PER_MINUTE, remaining: 0 });
    // Every response of the sequence describes the same window, which resets at the next UTC minute.
    expect(new Set(responses.map((r) => rateHeaders(r).reset)).size).toBe(1);
    expect(headers.reset % 60).toBe(0);
    expect(headers.retryAfter).toBeGreaterThanOrEqual(1);
    expect(headers.retryAfter).toBeLessThanOrEqual(60);
    expect(headers.reset - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(60);
  });

  it('admits exactly the limit out of many concurrent requests', async () => {
    const { apiKey } = await createKey(user.userId);
    await startOfRoomyMinute(15);
    const responses = await Promise.all(Array.from({ length: 30 }, () => getAccounts(apiKey)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(PER_MINUTE);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(30 - PER_MINUTE);
    expect(responses.filter((r) => r.status === 200).map((r) => rateHeaders(r).remaining).sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps keys apart: a full key does not slow down another key of the same user', async () => {
    const first = await createKey(user.userId);
    const second = await createKey(user.userId);
    await startOfRoomyMinute(10);
    for (let i = 0; i <= PER_MINUTE; i += 1) await getAccounts(first.apiKey);
    expectApiError(await getAccounts(first.apiKey), burst);
    const other = await getAccounts(second.apiKey);
    expect(other.status).toBe(200);
    expect(rateHeaders(other).remaining).toBe(PER_MINUTE - 1);
  });
});

describe('a GET, counted while its route runs', () => {
  it('answers 429 instead of what the route answered (a 404 here), with the headers', async () => {
    const { apiKey } = await createKey(user.userId);
    const missing = `/posts/${newId('post')}`;
    await startOfRoomyMinute(10);
    expectApiError(await api(stack.baseUrl, apiKey).get(missing), { status: 404, type: 'invalid_request_error', code: 'post_not_found', param: 'id' });
    for (let i = 1; i < PER_MINUTE; i += 1) await getAccounts(apiKey);

    const refused = await api(stack.baseUrl, apiKey).get(missing);
    expectApiError(refused, burst);
    expect(rateHeaders(refused)).toMatchObject({ limit: PER_MINUTE, remaining: 0 });
    expect(rateHeaders(refused).retryAfter).toBeGreaterThanOrEqual(1);
  });

  it('answers 429 instead of a later step refusing the request (403 subscription_inactive)', async () => {
    const inactive = await provisionUser({ active: false });
    await startOfRoomyMinute(10);
    const answers: ApiResponse[] = [];
    for (let i = 0; i <= PER_MINUTE; i += 1) answers.push(await getAccounts(inactive.apiKey));
    expect(answers.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 429]);
    expect(answers.map((r) => rateHeaders(r).remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expectApiError(answers[PER_MINUTE] as ApiResponse, burst);
  });

  it('costs one counter update and the route\'s reads; once refused, only the counter update', async () => {
    const { apiKey } = await createKey(user.userId);
    const commands: string[] = [];
    const name = 'rate-limit-test-count-dynamodb-requests';
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await getAccounts(apiKey); // loads the key (then cached)
      await startOfRoomyMinute(10);
      commands.length = 0;
      const admitted = await getAccounts(apiKey);
      expect(admitted.status).toBe(200);
      expect(commands.filter((command) => command === 'UpdateItemCommand')).toHaveLength(1);
      expect(commands.length).toBeGreaterThan(1);

      for (let left = rateHeaders(admitted).remaining; left > 0; left -= 1) expect((await getAccounts(apiKey)).status).toBe(200);
      expectApiError(await getAccounts(apiKey), burst);
      // This process has seen the key refused in this minute: the count comes first, and alone.
      commands.length = 0;
      const again = await getAccounts(apiKey);
      expectApiError(again, burst);
      expect(rateHeaders(again)).toMatchObject({ limit: PER_MINUTE, remaining: 0 });
      expect(commands).toEqual(['UpdateItemCommand']);
    } finally {
      dynamoDbClient.middlewareStack.remove(name);
    }
  });
});

describe('client-address bucket for failed authentication', () => {
  it('answers 429 instead of 401 once an address has failed the limit, while valid keys from it still work', async () => {
    const address = freshSourceAddress();
    const revoked = await createKey(user.userId);
    await revokeKey(revoked.keyId);
    const [, id] = user.apiKey.split('_');
    const attempts = [undefined, 'garbage', `ak_${randomToken(16)}_${randomToken(32)}`, `ak_${id}_${randomToken(32)}`, revoked.apiKey];
    await startOfRoomyMinute(10);

    const failures: ApiResponse[] = [];
    for (const key of attempts) failures.push(await getAccounts(key, address));
    expect(failures.map((r) => (r.body as { error: { code: string } }).error.code)).toEqual([
      'api_key_missing',
      'api_key_malformed',
      'api_key_unknown',
      'api_key_unknown',
      'api_key_revoked',
    ]);
    expect(failures.map((r) => rateHeaders(r).remaining)).toEqual([4, 3, 2, 1, 0]);

    // The sixth failure of the minute: the guesser learns nothing more about the key, just to wait.
    const sixth = await getAccounts(`ak_${id}_${randomToken(32)}`, address);
    expectApiError(sixth, burst);
    expect(rateHeaders(sixth).retryAfter).toBeGreaterThanOrEqual(1);
    // Even the right key with no header at all: the address is over its limit.
    expectApiError(await getAccounts(undefined, address), burst);

    // A valid key is counted against its own bucket, not the address.
    const valid = await getAccounts(user.apiKey, address);
    expect(valid.status).toBe(200);

    // Unknown routes share the address bucket.
    const unknownRoute = await api(stack.baseUrl, undefined, { sourceAddress: address }).get('/nowhere');
    expectApiError(unknownRoute, burst);

    // Another address is unaffected.
    expectApiError(await getAccounts(undefined), { status: 401, type: 'authentication_error', code: 'api_key_missing' });
  });

  it('admits exactly the limit of concurrent failed attempts from one address', async () => {
    const address = freshSourceAddress();
    await startOfRoomyMinute(15);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => getAccounts(`ak_${randomToken(16)}_${randomToken(32)}`, address)),
    );
    expect(responses.filter((r) => r.status === 401)).toHaveLength(PER_MINUTE);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(20 - PER_MINUTE);
  });
});
