import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { API_BASE_PATH, API_ROUTES } from '../../../functions/catalogue.js';
import { ApiError } from '../../../lib/domain/errors.js';
import { toApiRequest } from '../../../lib/http/api-request.js';
import { bearerToken } from '../../../lib/http/authenticate.js';
import { MAX_BODY_BYTES, parseJsonObject } from '../../../lib/http/json-body.js';
import { matchUnroutedRequest } from '../../../lib/http/route-match.js';
import { parseListAccountsQuery } from '../../../lib/use-cases/list-accounts.js';

async function rejected(run: () => Promise<unknown>): Promise<ApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

function caught(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('bearerToken', () => {
  it('reads the token of a Bearer header, scheme in any case', () => {
    expect(bearerToken('Bearer ak_abc_def')).toBe('ak_abc_def');
    expect(bearerToken('bearer   ak_abc_def  ')).toBe('ak_abc_def');
    expect(bearerToken('BEARER\tak_abc_def')).toBe('ak_abc_def');
  });

  it('gives null for no header, another scheme, a bare key or an empty token', () => {
    for (const value of [undefined, '', 'Basic dXNlcjpwYXNz', 'ak_abc_def', 'Bearer', 'Bearer    ', 'Bearerak_abc']) {
      expect(bearerToken(value)).toBeNull();
    }
  });

  it('gives null for a token with spaces in it', () => {
    expect(bearerToken('Bearer ak_abc def')).toBeNull();
  });
});

describe('parseJsonObject', () => {
  it('returns the object of a JSON body with or without a JSON content type', async () => {
    expect(await parseJsonObject('{"a":1}', 'application/json')).toEqual({ a: 1 });
    expect(await parseJsonObject(' {"a":1} ', 'Application/JSON; charset=utf-8')).toEqual({ a: 1 });
    expect(await parseJsonObject('{}', 'application/merge-patch+json')).toEqual({});
    expect(await parseJsonObject('{"a":[1]}', undefined)).toEqual({ a: [1] });
  });

  it('refuses everything that is not a JSON object with 400 invalid_body, param null', async () => {
    const bad: Array<[string | null, string | undefined]> = [
      [null, 'application/json'],
      ['', 'application/json'],
      ['   ', undefined],
      ['{"a":', 'application/json'],
      ['[1,2]', 'application/json'],
      ['"text"', 'application/json'],
      ['null', 'application/json'],
      ['42', 'application/json'],
      ['{"a":1}', 'text/plain'],
      ['{"a":1}', 'application/x-www-form-urlencoded'],
    ];
    for (const [body, contentType] of bad) {
      const error = await rejected(() => parseJsonObject(body, contentType));
      expect(error.status).toBe(400);
      expect(error.toBody().error).toMatchObject({ code: 'invalid_body', type: 'invalid_request_error', param: null });
    }
  });

  it('accepts exactly 256 KiB and refuses one byte more', async () => {
    const fill = (bytes: number): string => `{"t":"${'a'.repeat(bytes - 8)}"}`;
    expect(Buffer.byteLength(fill(MAX_BODY_BYTES))).toBe(MAX_BODY_BYTES);
    expect(await parseJsonObject(fill(MAX_BODY_BYTES), 'application/json')).toHaveProperty('t');
    expect((await rejected(() => parseJsonObject(fill(MAX_BODY_BYTES + 1), 'application/json'))).code).toBe('invalid_body');
  });

  it('measures the size in bytes, not characters', async () => {
    // 100,000 three-byte characters: under 256 Ki characters, over 256 KiB.
    expect((await rejected(() => parseJsonObject(`{"t":"${'€'.repeat(100_000)}"}`, 'application/json'))).code).toBe('invalid_body');
  });
});

describe('matchUnroutedRequest', () => {
  const match = (path: string): ReturnType<typeof matchUnroutedRequest> => matchUnroutedRequest(API_ROUTES, API_BASE_PATH, path);

  it('lists the methods of a known path asked with another method', () => {
    expect(match('/api/v1/posts')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'POST'] });
    expect(match('/api/v1/posts/post_123')).toEqual({ kind: 'method_not_allowed', allow: ['DELETE', 'GET', 'PATCH'] });
    expect(match('/api/v1/accounts')).toEqual({ kind: 'method_not_allowed', allow: ['GET'] });
  });

  it('says not found for unknown paths, extra or empty segments and other versions', () => {
    for (const path of ['/', '/api/v1', '/api/v1/', '/api/v2/posts', '/posts', '/api/v1/posts/', '/api/v1/posts/a/b', '/api/v1/accountsx']) {
      expect(match(path)).toEqual({ kind: 'not_found' });
    }
  });
});

describe('parseListAccountsQuery', () => {
  it('accepts no filter, either filter and both', () => {
    expect(parseListAccountsQuery({})).toEqual({});
    expect(parseListAccountsQuery({ workspaceId: 'ws_1', platform: 'x' })).toEqual({ workspaceId: 'ws_1', platform: 'x' });
    expect(parseListAccountsQuery({ platform: 'instagram' })).toEqual({ platform: 'instagram' });
  });

  it('names an unknown parameter with invalid_query', () => {
    const error = caught(() => parseListAccountsQuery({ workspace: 'ws_1' }));
    expect(error.toBody().error).toMatchObject({ code: 'invalid_query', param: 'workspace' });
    expect(error.status).toBe(400);
  });

  it('refuses empty filters and platform values that are not one lower-case name', () => {
    expect(caught(() => parseListAccountsQuery({ workspaceId: '' })).toBody().error).toMatchObject({ code: 'invalid_query', param: 'workspaceId' });
    for (const platform of ['', 'LinkedIn', 'x,linkedin', 'x linkedin', '1x']) {
      expect(caught(() => parseListAccountsQuery({ platform })).toBody().error).toMatchObject({ code: 'invalid_query', param: 'platform' });
    }
  });
});

describe('toApiRequest', () => {
  const event = (overrides: Partial<APIGatewayProxyEventV2>): APIGatewayProxyEventV2 => ({
    version: '2.0',
    routeKey: 'GET /api/v1/accounts',
    rawPath: '/api/v1/accounts',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method: 'get', path: '/api/v1/accounts', protocol: 'HTTP/1.1', sourceIp: '10.0.0.1', userAgent: 'test' },
      requestId: 'req-1',
      routeKey: 'GET /api/v1/accounts',
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
    ...overrides,
  });

  it('lower-cases header names, decodes a base64 body and keeps a parameter named __proto__ as data', () => {
    const request = toApiRequest(
      event({
        headers: { 'Content-Type': 'application/json', 'X-Thing': 'a' },
        queryStringParameters: { ['__proto__']: 'p', platform: 'x' },
        body: Buffer.from('{"a":"é"}').toString('base64'),
        isBase64Encoded: true,
      }),
    );
    expect(request.headers).toEqual({ 'content-type': 'application/json', 'x-thing': 'a' });
    expect(Object.keys(request.query).sort()).toEqual(['__proto__', 'platform']);
    expect(request.rawBody).toBe('{"a":"é"}');
    expect(request).toMatchObject({ method: 'GET', path: '/api/v1/accounts', sourceIp: '10.0.0.1', requestId: 'req-1', body: undefined });
  });
});
