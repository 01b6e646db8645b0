/**
 * /api/v1/webhook_endpoints through HTTP against the local stack, every answer checked against
 * openapi.yaml: each operation, its scopes, the URL rules (https, length, public addresses), event
 * types, the cap of 16 (also under concurrent creates), pagination, tenant isolation, and the
 * Idempotency-Key of the three POSTs.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { MAX_WEBHOOK_ENDPOINTS } from '../../lib/domain/webhooks.js';
import { idempotencyRecordKey } from '../../lib/store/idempotency-record-writes.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { documentedApi } from '../support/openapi.js';
import { startPostsStack } from '../support/posts.js';
import { createKey, provisionUser } from '../support/provision.js';
import type { TestStack } from '../support/stack.js';

interface ErrorBody {
  error: { type: string; code: string; message: string; param: string | null };
}
interface Endpoint {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  enabledEvents: string[];
  description: string | null;
  status: string;
  disabledReason: string | null;
  secret?: string;
}
interface EndpointList {
  webhookEndpoints: Endpoint[];
  nextCursor: string | null;
}

let stack: TestStack;
let documents: DynamoDBDocumentClient;
let store: DynamoDbWebhookStore;
const RECEIVER = 'http://127.0.0.1:9/hooks';

beforeAll(async () => {
  stack = await startPostsStack();
  documents = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }), { marshallOptions: { removeUndefinedValues: true } });
  store = new DynamoDbWebhookStore({ tableName: stack.tables.webhooks, client: documents });
});

afterAll(async () => {
  await stack?.stop();
});

async function newCustomer() {
  const user = await provisionUser();
  return { ...user, api: documentedApi(stack.baseUrl, user.apiKey) };
}

describe('POST /webhook_endpoints', () => {
  it('creates an endpoint and shows its whsec_ secret only in that answer', async () => {
    const { api } = await newCustomer();
    const created = await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['post.published'], description: 'CRM' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'webhook_endpoint', url: RECEIVER, enabledEvents: ['post.published'], description: 'CRM', status: 'enabled', disabledReason: null });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.body.secret!.slice(6), 'base64')).toHaveLength(32);
    const read = await api.get<Endpoint>(`/webhook_endpoints/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.text).not.toContain(created.body.secret!.slice(6, 20));
  });

  it('refuses URLs that are not https, too long, or not public, saying why', async () => {
    const { api } = await newCustomer();
    const cases: Array<[unknown, RegExp]> = [
      ['http://example.com/hook', /https/],
      ['ftp://example.com/hook', /https/],
      [`https://example.com/${'a'.repeat(2048)}`, /2048/],
      ['https://10.1.2.3/hook', /not public/],
      ['https://169.254.169.254/latest/meta-data', /not public/],
      ['https://[::1]/hook', /not public/],
      ['https://internal.localhost/hook', /not public/],
      ['https://user:pass@example.com/hook', /user name/],
      ['not a url', /valid/],
      [42, /string/],
    ];
    for (const [url, why] of cases) {
      const response = await api.post<ErrorBody>('/webhook_endpoints', { url, enabledEvents: ['*'] });
      expect(response.status, String(url)).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_webhook_url', param: 'url' });
      expect(response.body.error.message).toMatch(why);
    }
  });

  it('refuses unknown event types, unknown fields and bodies that are not objects', async () => {
    const { api } = await newCustomer();
    for (const enabledEvents of [['post.exploded'], [], '*', ['*', 'post.failed'], [1]]) {
      const response = await api.post<ErrorBody>('/webhook_endpoints', { url: RECEIVER, enabledEvents });
      expect(response.status, JSON.stringify(enabledEvents)).toBe(400);
      expect(response.body.error.code).toBe('invalid_event_type');
    }
    const unknown = await api.post<ErrorBody>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'], secret: 'mine' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_body', param: 'secret' });
    const array = await api.request<ErrorBody>('POST', '/webhook_endpoints', { rawBody: '[]', headers: { 'content-type': 'application/json' } });
    expect(array.status).toBe(400);
    expect(array.body.error.code).toBe('invalid_body');
  });

  it('allows 16 endpoints per customer, also when 20 are created at once', async () => {
    const { api } = await newCustomer();
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.post<ErrorBody>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => answer.body.error.code)).toEqual(Array(4).fill('too_many_webhook_endpoints'));
    // Deleting one frees its place.
    const list = await api.get<EndpointList>('/webhook_endpoints?limit=100');
    expect(list.body.webhookEndpoints).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    expect((await api.delete(`/webhook_endpoints/${list.body.webhookEndpoints[0]!.id}`)).status).toBe(200);
    expect((await api.post('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).status).toBe(201);
  });

  it('needs the write scope', async () => {
    const user = await newCustomer();
    const reader = await createKey(user.userId, ['read']);
    const api = documentedApi(stack.baseUrl, reader.apiKey);
    const response = await api.post<ErrorBody>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('insufficient_scope');
    expect((await api.get('/webhook_endpoints')).status).toBe(200);
  });
});

describe('GET, PATCH, DELETE, rotate_secret, test', () => {
  it('lists in pages with a cursor bound to the customer', async () => {
    const owner = await newCustomer();
    const stranger = await newCustomer();
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push((await owner.api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body.id);
    const first = await owner.api.get<EndpointList>('/webhook_endpoints?limit=2');
    expect(first.body.webhookEndpoints).toHaveLength(2);
    const seen = [...first.body.webhookEndpoints.map((endpoint) => endpoint.id)];
    let cursor = first.body.nextCursor;
    while (cursor !== null) {
      const page: { body: EndpointList } = await owner.api.get<EndpointList>(`/webhook_endpoints?limit=2&cursor=${encodeURIComponent(cursor)}`);
      seen.push(...page.body.webhookEndpoints.map((endpoint) => endpoint.id));
      cursor = page.body.nextCursor;
    }
    expect(seen.sort()).toEqual(ids.sort());
    const foreign = await stranger.api.get<ErrorBody>(`/webhook_endpoints?cursor=${encodeURIComponent(first.body.nextCursor!)}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('invalid_cursor');
    expect((await owner.api.get<ErrorBody>('/webhook_endpoints?limit=0')).body.error.code).toBe('invalid_limit');
    expect((await owner.api.get<ErrorBody>('/webhook_endpoints?status=enabled')).body.error.code).toBe('invalid_query');
    expect((await stranger.api.get<EndpointList>('/webhook_endpoints')).body.webhookEndpoints).toEqual([]);
  });

  it('answers 404 webhook_endpoint_not_found for another customer\'s endpoint on every operation, and changes nothing', async () => {
    const owner = await newCustomer();
    const stranger = await newCustomer();
    const endpoint = (await owner.api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body;
    const attempts = [
      stranger.api.get<ErrorBody>(`/webhook_endpoints/${endpoint.id}`),
      stranger.api.request<ErrorBody>('PATCH', `/webhook_endpoints/${endpoint.id}`, { body: { status: 'disabled' } }),
      stranger.api.delete<ErrorBody>(`/webhook_endpoints/${endpoint.id}`),
      stranger.api.post<ErrorBody>(`/webhook_endpoints/${endpoint.id}/rotate_secret`),
      stranger.api.post<ErrorBody>(`/webhook_endpoints/${endpoint.id}/test`),
      owner.api.get<ErrorBody>('/webhook_endpoints/we_doesnotexist'),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('webhook_endpoint_not_found');
    }
    expect((await owner.api.get<Endpoint>(`/webhook_endpoints/${endpoint.id}`)).body.status).toBe('enabled');
  });

  it('updates url, events, description and status; enabling again clears the reason', async () => {
    const { api } = await newCustomer();
    const endpoint = (await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body;
    const patch = (body: unknown) => api.request<Endpoint & ErrorBody>('PATCH', `/webhook_endpoints/${endpoint.id}`, { body });
    const changed = await patch({ url: 'http://127.0.0.1:10/other', enabledEvents: ['post.failed', 'account.disconnected'], description: null, status: 'disabled' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ url: 'http://127.0.0.1:10/other', enabledEvents: ['post.failed', 'account.disconnected'], description: null, status: 'disabled' });
    expect((await api.post<ErrorBody>(`/webhook_endpoints/${endpoint.id}/test`)).body.error.code).toBe('webhook_endpoint_disabled');
    expect((await patch({ status: 'enabled' })).body).toMatchObject({ status: 'enabled', disabledReason: null });
    expect((await patch({ status: 'paused' })).body.error).toMatchObject({ code: 'invalid_body', param: 'status' });
    expect((await patch({ url: 'https://192.168.1.1/x' })).body.error.code).toBe('invalid_webhook_url');
    expect((await patch({ enabledEvents: ['nope'] })).body.error.code).toBe('invalid_event_type');
  });

  it('rotates the secret (a new one, shown once), queues a test event, and deletes', async () => {
    const { api } = await newCustomer();
    const endpoint = (await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body;
    const rotated = await api.post<Endpoint>(`/webhook_endpoints/${endpoint.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    const test = await api.post<{ object: string; type: string; id: string; data: { object: unknown } }>(`/webhook_endpoints/${endpoint.id}/test`);
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ object: 'event', type: 'webhook.test', data: { object: {} } });
    const deleted = await api.delete(`/webhook_endpoints/${endpoint.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'webhook_endpoint_deleted', id: endpoint.id, deleted: true });
    expect((await api.delete(`/webhook_endpoints/${endpoint.id}`)).status).toBe(404);
  });
});

describe('Idempotency-Key on the three POSTs', () => {
  const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key } });

  it('a create sent again with its key gets the first answer, its secret too, and registers nothing more; the record keeps no secret in plain text', async () => {
    const { api, userId } = await newCustomer();
    const body = { url: RECEIVER, enabledEvents: ['post.published'], description: 'CRM' };
    const first = await api.post<Endpoint>('/webhook_endpoints', body, keyed('crm-hook-1'));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Key order and spacing of the body do not matter: the same JSON value.
    const again = await api.post<Endpoint>('/webhook_endpoints', { description: 'CRM', enabledEvents: ['post.published'], url: RECEIVER }, keyed('crm-hook-1'));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api.get<EndpointList>('/webhook_endpoints')).body.webhookEndpoints.map((endpoint) => endpoint.id)).toEqual([first.body.id]);
    const record = await documents.send(new GetCommand({ TableName: stack.tables.idempotency, Key: idempotencyRecordKey(userId, 'crm-hook-1') }));
    expect(record.Item?.status).toBe('completed');
    expect(JSON.stringify(record.Item)).not.toContain(first.body.secret!.slice('whsec_'.length, 30));
  });

  it('the same key with another body is 422; a refused create is not remembered; a bad key is 400; another customer\'s key of the same name is theirs', async () => {
    const { api } = await newCustomer();
    expect((await api.post('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] }, keyed('hook-a'))).status).toBe(201);
    const reused = await api.post<ErrorBody>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['post.failed'] }, keyed('hook-a'));
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });

    const refused = await api.post<ErrorBody>('/webhook_endpoints', { url: 'https://10.0.0.1/hook', enabledEvents: ['*'] }, keyed('hook-b'));
    expect(refused.body.error.code).toBe('invalid_webhook_url');
    const fixed = await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] }, keyed('hook-b'));
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();

    const badKey = await api.post<ErrorBody>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] }, keyed('two words'));
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toMatchObject({ code: 'invalid_idempotency_key', param: 'Idempotency-Key' });

    const other = await newCustomer();
    const theirs = await other.api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] }, keyed('hook-a'));
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect((await api.get<EndpointList>('/webhook_endpoints')).body.webhookEndpoints).toHaveLength(2);
  });

  it('a rotation sent again with its key rotates once and answers the same new secret; the key on another endpoint is 422', async () => {
    const { api, userId } = await newCustomer();
    const endpoint = (await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body;
    const first = await api.post<Endpoint>(`/webhook_endpoints/${endpoint.id}/rotate_secret`, undefined, keyed('rotate-1'));
    expect(first.status).toBe(200);
    const again = await api.post<Endpoint>(`/webhook_endpoints/${endpoint.id}/rotate_secret`, undefined, keyed('rotate-1'));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.secret).not.toBe(endpoint.secret);
    // One rotation: the new secret and the first one in its 24 hours, not a third.
    expect((await store.getEndpoint(userId, endpoint.id))?.secrets).toHaveLength(2);
    const second = (await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body;
    const elsewhere = await api.post<ErrorBody>(`/webhook_endpoints/${second.id}/rotate_secret`, undefined, keyed('rotate-1'));
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error.code).toBe('idempotency_key_reused');
  });

  it('two rotations at once both answer a secret that signs: neither is written over the other', async () => {
    const { api, userId } = await newCustomer();
    const endpoint = (await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body;
    const rotations = await Promise.all(Array.from({ length: 4 }, () => api.post<Endpoint>(`/webhook_endpoints/${endpoint.id}/rotate_secret`)));
    expect(rotations.map((rotation) => rotation.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(rotations.map((rotation) => rotation.body.secret)).size).toBe(4);
    // The first secret and each of the four rotations' secrets, all signing (none lost to a race).
    expect((await store.getEndpoint(userId, endpoint.id))?.secrets).toHaveLength(5);
  });

  it('a test sent again with its key answers the same event and queues no second one; a disabled endpoint\'s refusal is not remembered', async () => {
    const { api } = await newCustomer();
    const endpoint = (await api.post<Endpoint>('/webhook_endpoints', { url: RECEIVER, enabledEvents: ['*'] })).body;
    const first = await api.post<{ id: string; type: string }>(`/webhook_endpoints/${endpoint.id}/test`, undefined, keyed('test-1'));
    expect(first.status).toBe(202);
    const again = await api.post<{ id: string; type: string }>(`/webhook_endpoints/${endpoint.id}/test`, undefined, keyed('test-1'));
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await store.listDeliveries(endpoint.id, 10)).map((delivery) => delivery.eventId)).toEqual([first.body.id]);

    expect((await api.request('PATCH', `/webhook_endpoints/${endpoint.id}`, { body: { status: 'disabled' } })).status).toBe(200);
    const disabled = await api.post<ErrorBody>(`/webhook_endpoints/${endpoint.id}/test`, undefined, keyed('test-2'));
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('webhook_endpoint_disabled');
    expect((await api.request('PATCH', `/webhook_endpoints/${endpoint.id}`, { body: { status: 'enabled' } })).status).toBe(200);
    const enabled = await api.post<{ id: string }>(`/webhook_endpoints/${endpoint.id}/test`, undefined, keyed('test-2'));
    expect(enabled.status).toBe(202);
    expect(enabled.headers['idempotent-replayed']).toBeUndefined();
    expect(enabled.body.id).not.toBe(first.body.id);
  });
});
