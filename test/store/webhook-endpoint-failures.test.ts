/**
 * An endpoint's run of failures (failingSince) as the delivery worker keeps it, from an endpoint
 * made by the real create (lib/use-cases/webhooks/endpoints.ts): the first failure starts the run,
 * later ones keep its start, and 3 days of it disable the endpoint (shouldDisableForFailures).
 * Against DynamoDB Local (the shared webhooks table).
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import type { Caller } from '../../lib/domain/caller.js';
import { newEndpointId, shouldDisableForFailures } from '../../lib/domain/webhooks.js';
import { DynamoDbWebhookStore } from '../../lib/store/dynamodb-webhook-store.js';
import { webhookKeys } from '../../lib/store/webhooks-table.js';
import { LocalTokenCipher } from '../../lib/store/token-cipher.js';
import { WITHOUT_IDEMPOTENCY_KEYS } from '../../lib/use-cases/idempotent-request.js';
import { WebhookEndpoints } from '../../lib/use-cases/webhooks/endpoints.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const tableName = sharedTables.webhooks ?? '';
const store = new DynamoDbWebhookStore({ tableName, client });

afterAll(() => raw.destroy());

const unused = <T extends object>(): T =>
  new Proxy({} as T, {
    get: () => {
      throw new Error('not used by these operations');
    },
  });

const endpoints = new WebhookEndpoints({
  store,
  idempotency: WITHOUT_IDEMPOTENCY_KEYS,
  cipher: new LocalTokenCipher(randomBytes(32)),
  queue: unused(),
  resolver: unused(),
  clock: { now: () => new Date() },
  urlRules: { allowLoopbackHttp: true },
  cursorSigningKey: () => Promise.resolve('unused'),
});

function caller(): Caller {
  const userId = `user_${randomBytes(6).toString('hex')}`;
  return { userId, keyId: 'key_test', scopes: ['read', 'write', 'publish'], user: { id: userId } as Caller['user'] };
}

const DAY_MS = 24 * 3600_000;

describe('an endpoint failing for days', () => {
  it('starts its run at the first failure after a real create, keeps it, and is disabled after 3 days', async () => {
    const who = caller();
    const created = await endpoints.create(who, { url: 'http://127.0.0.1:9/in', enabledEvents: ['post.published'] });
    const id = (created.body as { id: string }).id;
    expect((await store.getEndpoint(who.userId, id))?.failingSince).toBeNull();

    const first = new Date(Date.now() - 3 * DAY_MS - 60_000);
    expect(await store.markFailing(who.userId, id, first)).toBe(first.toISOString());
    const later = new Date();
    // Later failures keep the run's start, so 3 days of them disable the endpoint.
    const since = await store.markFailing(who.userId, id, later);
    expect(since).toBe(first.toISOString());
    expect(shouldDisableForFailures(since, later)).toBe(true);
  });

  it('starts a new run after the endpoint is enabled again', async () => {
    const who = caller();
    const created = await endpoints.create(who, { url: 'http://127.0.0.1:9/in', enabledEvents: ['*'] });
    const id = (created.body as { id: string }).id;
    await store.markFailing(who.userId, id, new Date(Date.now() - 4 * DAY_MS));
    await endpoints.update(who, id, { status: 'disabled' });
    await endpoints.update(who, id, { status: 'enabled' });
    expect((await store.getEndpoint(who.userId, id))?.failingSince).toBeNull();
    const now = new Date();
    expect(await store.markFailing(who.userId, id, now)).toBe(now.toISOString());
  });

  it('starts a run on an endpoint stored with a NULL failingSince (written before this was fixed)', async () => {
    const userId = `user_${randomBytes(6).toString('hex')}`;
    const id = newEndpointId();
    const at = new Date().toISOString();
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...webhookKeys.endpoint(userId, id),
          id,
          userId,
          url: 'https://hooks.example.com/in',
          enabledEvents: ['*'],
          description: null,
          status: 'enabled',
          disabledReason: null,
          createdAt: at,
          updatedAt: at,
          secrets: [],
          failingSince: null,
        },
      }),
    );
    const now = new Date();
    expect(await store.markFailing(userId, id, now)).toBe(now.toISOString());
    expect(await store.markFailing(userId, id, new Date(now.getTime() + 1000))).toBe(now.toISOString());
  });

  it('answers null for an endpoint that is gone', async () => {
    expect(await store.markFailing('user_gone', newEndpointId(), new Date())).toBeNull();
  });
});
