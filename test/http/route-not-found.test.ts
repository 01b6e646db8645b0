/**
 * Requests no route serves (API Gateway's $default route): 404 route_not_found or 405
 * method_not_allowed with Allow, in the contract's error shape, counted against the client
 * address bucket whatever key they carry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiError, rateHeaders, startOfRoomyMinute } from '../support/api-assertions.js';
import { api, freshSourceAddress, sendFrom } from '../support/http.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack();
  user = await provisionUser();
});

afterAll(async () => {
  await stack?.stop();
});

const notFound = { status: 404, type: 'invalid_request_error', code: 'route_not_found' };
const notAllowed = { status: 405, type: 'invalid_request_error', code: 'method_not_allowed' };

describe('unknown routes', () => {
  it('answers 404 route_not_found for paths no route has', async () => {
    const send = api(stack.baseUrl, user.apiKey, { sourceAddress: freshSourceAddress() }).request;
    for (const path of ['/nowhere', '/posts/abc/comments', '/accounts/acct_1', '/posts/', '/']) {
      expectApiError(await send('GET', path), notFound);
    }
    // Outside the versioned base path as well.
    const outside = await sendFrom({ method: 'GET', url: `${stack.origin}/api/v2/posts`, sourceAddress: freshSourceAddress() });
    expectApiError(outside, notFound);
  });

  it('answers 405 method_not_allowed with Allow for a known path asked with another method', async () => {
    const send = api(stack.baseUrl, user.apiKey, { sourceAddress: freshSourceAddress() }).request;
    const cases: Array<[string, string, string]> = [
      ['PUT', '/posts', 'GET, POST'],
      ['PUT', '/posts/post_123', 'DELETE, GET, PATCH'],
      ['POST', '/accounts', 'GET'],
      ['DELETE', '/accounts', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await send(method, path);
      expectApiError(response, notAllowed);
      expect(response.headers['allow']).toBe(allow);
    }
  });

  it('counts unknown routes against the client address, with or without a key, and never against the key', async () => {
    const address = freshSourceAddress();
    await startOfRoomyMinute(5);
    const withKey = await api(stack.baseUrl, user.apiKey, { sourceAddress: address }).get('/nowhere');
    const withoutKey = await api(stack.baseUrl, undefined, { sourceAddress: address }).get('/nowhere');
    expect([rateHeaders(withKey).remaining, rateHeaders(withoutKey).remaining]).toEqual([119, 118]);
    expect(rateHeaders(withKey).limit).toBe(120);
    const real = await api(stack.baseUrl, user.apiKey, { sourceAddress: address }).get('/accounts');
    expect(real.status).toBe(200);
    expect(rateHeaders(real).remaining).toBe(119);
  });
});
