/**
 * Authentication through HTTP against the local stack (GET /accounts as the probe): every 401
 * code, 403 subscription_inactive, revocation once the key cache expires, and failed
 * authentication counted against the client address rather than the key. Each test sends from its
 * own loopback address, so address buckets never mix. The key cache is set to 1 s in this stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/domain/ids.js';
import { expectApiError, rateHeaders, startOfRoomyMinute } from '../support/api-assertions.js';
import { api, freshSourceAddress } from '../support/http.js';
import { assertDocumentedResponse } from '../support/openapi.js';
import { createKey, provisionUser, revokeKey, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const KEY_CACHE_SECONDS = 1;

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack({ env: { API_KEY_CACHE_SECONDS: String(KEY_CACHE_SECONDS) } });
  user = await provisionUser({ accounts: [{ platform: 'x' }] });
});

afterAll(async () => {
  await stack?.stop();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function authError(code: string) {
  return { status: 401, type: 'authentication_error', code };
}

async function getAccounts(headers: Record<string, string>, sourceAddress = freshSourceAddress()) {
  const response = await api(stack.baseUrl, undefined, { sourceAddress }).get('/accounts', { headers });
  assertDocumentedResponse('GET', '/accounts', response);
  return response;
}

describe('401 authentication_error', () => {
  it('api_key_missing without an Authorization header, or with another scheme', async () => {
    expectApiError(await getAccounts({}), authError('api_key_missing'));
    expectApiError(await getAccounts({ authorization: 'Basic dXNlcjpwYXNz' }), authError('api_key_missing'));
    expectApiError(await getAccounts({ authorization: user.apiKey }), authError('api_key_missing'));
    expectApiError(await getAccounts({ authorization: 'Bearer ' }), authError('api_key_missing'));
  });

  it('api_key_malformed for a bearer value not shaped ak_<id>_<secret>', async () => {
    const [, id, secret] = user.apiKey.split('_');
    for (const value of ['nope', 'ak_', `ak_${id}`, `sk_${id}_${secret}`, `ak_${id}_${secret}x`, `ak_${id}_${secret} extra`, `ak-${id}-${secret}`]) {
      expectApiError(await getAccounts({ authorization: `Bearer ${value}` }), authError('api_key_malformed'));
    }
  });

  it('api_key_unknown for an unknown id, and for a known id with a wrong secret, with the same message', async () => {
    const [, id] = user.apiKey.split('_');
    const unknownId = await getAccounts({ authorization: `Bearer ak_${randomToken(16)}_${randomToken(32)}` });
    const wrongSecret = await getAccounts({ authorization: `Bearer ak_${id}_${randomToken(32)}` });
    expectApiError(unknownId, authError('api_key_unknown'));
    expectApiError(wrongSecret, authError('api_key_unknown'));
    // Nothing tells a guesser that the id exists.
    expect(wrongSecret.body).toEqual(unknownId.body);
  });

  it('accepts the scheme in any case', async () => {
    const response = await getAccounts({ authorization: `bearer ${user.apiKey}` });
    expect(response.status).toBe(200);
  });

  it('api_key_revoked for a revoked key, and api_key_unknown for a revoked key with a wrong secret', async () => {
    const key = await createKey(user.userId);
    await revokeKey(key.keyId);
    expectApiError(await getAccounts({ authorization: `Bearer ${key.apiKey}` }), authError('api_key_revoked'));
    const [, id] = key.apiKey.split('_');
    expectApiError(await getAccounts({ authorization: `Bearer ak_${id}_${randomToken(32)}` }), authError('api_key_unknown'));
  });

  it('stops a key in use once the key cache has expired after its revocation', async () => {
    const key = await createKey(user.userId);
    expect((await getAccounts({ authorization: `Bearer ${key.apiKey}` })).status).toBe(200);
    await revokeKey(key.keyId);
    await sleep(KEY_CACHE_SECONDS * 1000 + 100);
    expectApiError(await getAccounts({ authorization: `Bearer ${key.apiKey}` }), authError('api_key_revoked'));
  });
});

describe('failed authentication and rate limits', () => {
  it('counts failures against the client address and leaves the key bucket alone', async () => {
    const address = freshSourceAddress();
    const key = await createKey(user.userId);
    const [, id] = key.apiKey.split('_');
    await startOfRoomyMinute(5);
    const remaining: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await getAccounts({ authorization: `Bearer ak_${id}_${randomToken(32)}` }, address);
      expectApiError(response, authError('api_key_unknown'));
      remaining.push(rateHeaders(response).remaining);
    }
    const missing = await getAccounts({}, address);
    remaining.push(rateHeaders(missing).remaining);
    // The address bucket (120 a minute) counts down across every kind of failure...
    expect(remaining).toEqual([119, 118, 117, 116]);
    // ...while the key whose id was guessed at is untouched: its first real request is its first count.
    const real = await getAccounts({ authorization: `Bearer ${key.apiKey}` }, address);
    expect(real.status).toBe(200);
    expect(rateHeaders(real)).toMatchObject({ limit: 120, remaining: 119, retryAfter: null });
  });

  it('gives no Retry-After on a 401', async () => {
    const response = await getAccounts({});
    expect(response.headers['retry-after']).toBeUndefined();
  });
});

describe('403 subscription_inactive', () => {
  it('refuses a user without an active subscription, after counting the request against the key', async () => {
    const inactive = await provisionUser({ active: false, accounts: [{ platform: 'linkedin' }] });
    await startOfRoomyMinute(5);
    const first = await getAccounts({ authorization: `Bearer ${inactive.apiKey}` });
    expectApiError(first, { status: 403, type: 'permission_error', code: 'subscription_inactive' });
    expect(rateHeaders(first)).toMatchObject({ limit: 120, remaining: 119 });
    const second = await getAccounts({ authorization: `Bearer ${inactive.apiKey}` });
    expect(rateHeaders(second).remaining).toBe(118);
  });
});

describe('scopes on a read endpoint', () => {
  it('lets a key with any one scope read, since write, publish and media imply read', async () => {
    for (const scope of ['read', 'write', 'publish', 'media'] as const) {
      const key = await createKey(user.userId, [scope]);
      const response = await getAccounts({ authorization: `Bearer ${key.apiKey}` });
      expect(response.status, scope).toBe(200);
    }
  });
});
