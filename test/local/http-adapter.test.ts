/**
 * The local API Gateway through real routes: requests reach the route's handler with the path,
 * query and headers it needs, unrouted requests reach the $default route, oversized bodies are
 * refused before any handler runs, and /media serves the media bucket.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { s3ClientFor } from '../../local/messaging.js';
import { api } from '../support/http.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let user: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack();
  user = await provisionUser({
    workspaces: 2,
    accounts: [{ platform: 'x' }, { platform: 'linkedin', workspaceIndex: 1 }],
  });
});

afterAll(async () => {
  await stack?.stop();
});

describe('routes', () => {
  it('passes the Authorization header and query string to the route', async () => {
    const client = api(stack.baseUrl, user.apiKey);
    const all = await client.get<{ accounts: Array<{ id: string }> }>('/accounts');
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toContain('application/json');
    expect(all.body.accounts.map((account) => account.id)).toEqual(user.accounts.map((account) => account.id));

    const second = await client.get<{ accounts: Array<{ id: string }> }>(`/accounts?workspaceId=${encodeURIComponent(user.workspaceIds[1] ?? '')}`);
    expect(second.status).toBe(200);
    expect(second.body.accounts.map((account) => account.id)).toEqual([user.accounts[1]?.id]);
  });

  it('answers with the route handler, not the gateway, when the key is missing', async () => {
    const response = await api(stack.baseUrl).get<{ error: { code: string } }>('/accounts');
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('api_key_missing');
    expect(response.headers['apigw-requestid']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends requests no route takes to the $default route', async () => {
    const unknown = await api(stack.baseUrl, user.apiKey).get<{ error: { code: string } }>('/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('route_not_found');

    const outside = await api(stack.origin, user.apiKey).get<{ error: { code: string } }>('/');
    expect(outside.status).toBe(404);
    expect(outside.body.error.code).toBe('route_not_found');

    const wrongMethod = await api(stack.baseUrl, user.apiKey).post<{ error: { code: string } }>('/accounts', {});
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toContain('GET');
  });

  it('refuses a body over 10 MB with 413 like API Gateway, before any handler', async () => {
    const response = await api(stack.baseUrl, user.apiKey).post('/accounts', undefined, {
      rawBody: new Uint8Array(10 * 1024 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: 'Request Entity Too Large' });
  });
});

describe('media', () => {
  it('serves objects of the media bucket with their content type', async () => {
    const s3 = s3ClientFor(inject('localAws').s3Endpoint);
    const bytes = Uint8Array.from([137, 80, 78, 71, 13, 10, 26, 10]);
    await s3.send(new PutObjectCommand({ Bucket: stack.mediaBucket, Key: 'usr_1/med_1/photo one.png', Body: bytes, ContentType: 'image/png' }));
    s3.destroy();

    const url = `${stack.mediaBaseUrl}/usr_1/med_1/${encodeURIComponent('photo one.png')}`;
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));

    expect((await fetch(`${stack.mediaBaseUrl}/usr_1/missing.png`)).status).toBe(404);
  });
});
