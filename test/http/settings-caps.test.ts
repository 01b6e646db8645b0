/**
 * Issue 19 item 6: the caps of settings hold under concurrency, because each is the condition of
 * the write that would pass it (a count on the user's profile item, changed in the same
 * transaction), not a read before it. Many creations fired at once through the settings routes
 * of the local stack (real DynamoDB Local) end at exactly the cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbApiKeyStore } from '../../lib/store/dynamodb-api-key-store.js';
import { DynamoDbUserStore } from '../../lib/store/dynamodb-user-store.js';
import { MAX_ACTIVE_API_KEYS } from '../../lib/use-cases/settings/api-keys.js';
import { MAX_WORKSPACES } from '../../lib/use-cases/settings/workspaces.js';
import { provisionUser } from '../support/provision.js';
import { settingsSession } from '../support/settings-session.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

const users = () => new DynamoDbUserStore({ tableName: stack.tables.directory });
const keys = () => new DynamoDbApiKeyStore({ tableName: stack.tables.directory });

describe('workspaces', () => {
  it(`70 creations at once make exactly ${MAX_WORKSPACES} workspaces; the others are refused with the reason`, async () => {
    const user = await provisionUser({ workspaces: 1 });
    const browser = await settingsSession(stack, user);
    const answers = await Promise.all(Array.from({ length: 70 }, (_, index) => browser.post('/settings/workspaces', { name: `Brand ${index}` })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 303)).toHaveLength(MAX_WORKSPACES - 1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(70 - (MAX_WORKSPACES - 1));
    const refused = answers.find((answer) => answer.status === 400);
    expect(await refused?.text()).toContain(`You can have at most ${MAX_WORKSPACES} workspaces.`);
    expect((await users().getUser(user.userId))?.workspaceIds).toHaveLength(MAX_WORKSPACES);
  }, 60_000);
});

describe('API keys', () => {
  async function activeKeys(userId: string): Promise<number> {
    return (await keys().listApiKeys(userId)).filter((key) => key.revokedAt === null).length;
  }

  it(`40 creations at once make exactly ${MAX_ACTIVE_API_KEYS} active keys; revoking one frees one place, once`, async () => {
    const user = await provisionUser({ workspaces: 1 });
    // The provisioned key was made by the admin CLI: not counted against the cap.
    const before = await activeKeys(user.userId);
    const browser = await settingsSession(stack, user);
    const answers = await Promise.all(Array.from({ length: 40 }, () => browser.post('/settings/keys')));
    const created = answers.filter((answer) => answer.status === 201);
    expect(created).toHaveLength(MAX_ACTIVE_API_KEYS);
    const refused = answers.filter((answer) => answer.status === 303);
    expect(refused).toHaveLength(40 - MAX_ACTIVE_API_KEYS);
    expect(refused[0]?.headers.get('location')).toBe('/settings/keys?error=limit');
    expect(await activeKeys(user.userId)).toBe(before + MAX_ACTIVE_API_KEYS);
    const page = await (await browser.get('/settings/keys?error=limit')).text();
    expect(page).toContain(`You can have at most ${MAX_ACTIVE_API_KEYS} active API keys.`);
    expect(page).toContain(`You can have up to ${MAX_ACTIVE_API_KEYS} active keys; revoking a key frees its place.`);

    // Revoking one key (twice, and twice at once) frees exactly one place.
    const keyId = /ak_([0-9A-Za-z]{16})_/.exec(await created[0]!.text())?.[1] ?? '';
    expect(keyId).not.toBe('');
    const revokes = await Promise.all([browser.post(`/settings/keys/${keyId}/revoke`), browser.post(`/settings/keys/${keyId}/revoke`)]);
    expect(revokes.map((answer) => answer.status)).toEqual([303, 303]);
    expect((await browser.post(`/settings/keys/${keyId}/revoke`)).status).toBe(303);
    const again = await Promise.all([browser.post('/settings/keys'), browser.post('/settings/keys')]);
    expect(again.map((answer) => answer.status).sort()).toEqual([201, 303]);
    expect(await activeKeys(user.userId)).toBe(before + MAX_ACTIVE_API_KEYS);
  }, 60_000);

  it('the admin CLI\'s revoke of a counted key frees its place too, once', async () => {
    const user = await provisionUser({ workspaces: 1 });
    const record = (index: number) => ({
      id: `capkey${String(index).padStart(10, '0')}`,
      userId: user.userId,
      secretHash: 'x'.repeat(64),
      scopes: [],
      createdAt: new Date().toISOString(),
      revokedAt: null,
    });
    for (let index = 0; index < MAX_ACTIVE_API_KEYS; index++) expect(await keys().putApiKeyWithinCap(record(index), MAX_ACTIVE_API_KEYS)).toBe(true);
    expect(await keys().putApiKeyWithinCap(record(100), MAX_ACTIVE_API_KEYS)).toBe(false);
    await keys().revokeApiKey(record(0).id, new Date().toISOString());
    await keys().revokeApiKey(record(0).id, new Date().toISOString());
    expect(await keys().putApiKeyWithinCap(record(101), MAX_ACTIVE_API_KEYS)).toBe(true);
    expect(await keys().putApiKeyWithinCap(record(102), MAX_ACTIVE_API_KEYS)).toBe(false);
  });
});
