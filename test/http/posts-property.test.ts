/**
 * Property: whatever JSON body or query string arrives, the post endpoints answer with a documented
 * response (a valid 202/200 or the error shape with a documented code) and never a 500.
 * documentedApi checks each response against openapi.yaml.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startPostsStack();
  user = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }, { platform: 'bluesky' }] });
});

afterAll(async () => {
  await stack?.stop();
});

const FIELDS = ['accounts', 'text', 'texts', 'media', 'scheduledFor', 'draft', 'options', 'workspaceId', 'campaignId'];

function bodies(): fc.Arbitrary<unknown> {
  const accountIds = fc.constantFrom(...user.accounts.map((account) => account.id), 'acct_unknown', '', '__proto__');
  const interesting = fc.oneof(
    fc.jsonValue(),
    fc.array(accountIds, { maxLength: 30 }),
    fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
    fc.constantFrom('2027-02-30T10:00:00Z', '2026-12-01', 'hello', true, null),
    fc.dictionary(fc.constantFrom('x', 'linkedin', 'tiktok', ...user.accounts.map((a) => a.id)), fc.jsonValue(), { maxKeys: 3 }),
  );
  const shaped = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })), interesting, { maxKeys: 6 });
  const plausible = fc.record(
    { accounts: fc.array(accountIds, { maxLength: 4 }), text: fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue()), draft: fc.boolean() },
    { requiredKeys: ['accounts'] },
  );
  return fc.oneof(fc.jsonValue(), shaped, plausible);
}

const queries = fc.dictionary(
  fc.oneof(fc.constantFrom('status', 'limit', 'cursor', 'deleteFromPlatform'), fc.string({ maxLength: 6 })),
  fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('draft', 'published', '0', '100', '101', 'v1.e30.AAAA', 'true')),
  { maxKeys: 3 },
);

/**
 * Deep and wide JSON within the 256 KiB body limit: nesting as deep as the limit allows (JSON.parse
 * takes it; a recursive walk over it does not), and objects or arrays with tens of thousands of
 * members, placed where a create reads fields and where it does not.
 */
function deepOrWide(): fc.Arbitrary<string> {
  const nested = fc
    .tuple(fc.integer({ min: 1_000, max: 120_000 }), fc.constantFrom('array', 'object', 'mixed'))
    .map(([depth, kind]) => {
      if (kind === 'array') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const levels = Math.min(depth, 40_000);
      if (kind === 'object') return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
      return `${'[{"a":'.repeat(levels / 2)}null${'}]'.repeat(levels / 2)}`;
    });
  const wide = fc.integer({ min: 1_000, max: 15_000 }).chain((size) =>
    fc.constantFrom(
      `{${Array.from({ length: size }, (_, index) => `"k${index}":${index}`).join(',')}}`,
      `[${Array.from({ length: size }, (_, index) => index).join(',')}]`,
    ),
  );
  const value = fc.oneof(nested, wide);
  const accountId = fc.constantFrom(...user.accounts.map((account) => account.id));
  return fc.oneof(
    value,
    fc.tuple(fc.constantFrom(...FIELDS, 'unknownField'), value, accountId).map(
      ([field, inner, id]) => `{"accounts":["${id}"],"text":"hi","${field}":${inner}}`,
    ),
    fc.tuple(value, accountId).map(([inner, id]) => `{"accounts":["${id}"],"options":{"x":{"communityId":${inner}}}}`),
    fc.tuple(value, accountId).map(([inner, id]) => `{"accounts":["${id}"],"texts":{"${id}":${inner}}}`),
  );
}

describe('no request makes a post endpoint fail', () => {
  it('bodies nested as deep, or as wide, as 256 KiB allows: a 4xx in the contract shape on every route', async () => {
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const routes: [string, string][] = [
      ['POST', '/posts'],
      ['GET', '/posts'],
      ['GET', '/posts/post_00000000000000000000'],
      ['DELETE', '/posts/post_00000000000000000000'],
      ['GET', '/accounts'],
    ];
    // The case that was a 500: a create with an Idempotency-Key and a deeply nested body.
    const depth = 100_000;
    const deep = await api.request('POST', '/posts', {
      rawBody: `{"accounts":["${user.accounts[0]?.id ?? ''}"],"text":${'['.repeat(depth)}${']'.repeat(depth)}}`,
      headers: { 'content-type': 'application/json', 'Idempotency-Key': 'deep-body' },
    });
    expect(deep.status).toBe(400);
    expect(deep.body).toMatchObject({ error: { code: 'invalid_text', param: 'text' } });
    await fc.assert(
      fc.asyncProperty(deepOrWide(), fc.constantFrom(...routes), fc.boolean(), async (rawBody, [method, path], withKey) => {
        expect(Buffer.byteLength(rawBody)).toBeLessThanOrEqual(256 * 1024);
        const response = await api.request(method, path, {
          rawBody,
          headers: { 'content-type': 'application/json', ...(withKey ? { 'Idempotency-Key': `deep-${Math.random()}` } : {}) },
        });
        expect(response.status).toBeLessThan(500);
        expect(response.headers['x-ratelimit-limit']).toBeDefined();
        // Only `draft` may hold anything (any value but `true` is a post that goes out): 202.
        if (method === 'POST' && !(response.status === 202 && rawBody.includes('"draft":'))) {
          expect(response.status).toBe(400);
          expect(response.body).toMatchObject({ error: { type: 'invalid_request_error' } });
        }
      }),
      { numRuns: 40 },
    );
  });


  it('POST /posts with random JSON bodies', async () => {
    const api = documentedApi(stack.baseUrl, user.apiKey);
    await fc.assert(
      fc.asyncProperty(bodies(), fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }), async (body, key) => {
        const response = await api.request('POST', '/posts', {
          rawBody: JSON.stringify(body),
          headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
        });
        expect(response.status).not.toBeGreaterThanOrEqual(500);
      }),
      { numRuns: 150 },
    );
  });

  it('POST /posts with random raw bodies', async () => {
    const api = documentedApi(stack.baseUrl, user.apiKey);
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), async (rawBody) => {
        const response = await api.request('POST', '/posts', { rawBody, headers: { 'content-type': 'application/json' } });
        expect(response.status).not.toBeGreaterThanOrEqual(500);
      }),
      { numRuns: 40 },
    );
  });

  it('GET /posts, GET and DELETE /posts/{id} with random query strings and ids', async () => {
    const api = documentedApi(stack.baseUrl, user.apiKey);
    const ids = fc.oneof(fc.constant('post_00000000000000000000'), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/));
    await fc.assert(
      fc.asyncProperty(queries, ids, async (query, id) => {
        const search = new URLSearchParams(query).toString();
        const suffix = search === '' ? '' : `?${search}`;
        for (const response of [
          await api.get(`/posts${suffix}`),
          await api.get(`/posts/${id}${suffix}`),
          await api.delete(`/posts/${id}${suffix}`),
        ]) {
          expect(response.status).not.toBeGreaterThanOrEqual(500);
        }
      }),
      { numRuns: 60 },
    );
  });
});
