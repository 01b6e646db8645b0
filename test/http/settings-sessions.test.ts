/**
 * Settings sessions over HTTP against the local stack: the idle end (30 minutes, sliding) beside
 * the absolute one, and "Sign out of other browsers". Sessions are written through the store as
 * the sign-in writes them, with times set in the past or near future instead of waiting.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { IDLE_TOUCH_SECONDS, SESSION_IDLE_SECONDS } from '../../lib/domain/session-rules.js';
import { hashCookieSecret, newCookieSecret, newCsrfToken } from '../../lib/domain/session-secret.js';
import { DynamoDbSessionStore } from '../../lib/store/dynamodb-session-store.js';
import { provisionUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let sessions: DynamoDbSessionStore;
let documents: DynamoDBDocumentClient;

interface TestSession {
  cookie: string;
  csrf: string;
}

async function session(userId: string, idleSecondsLeft: number): Promise<TestSession> {
  const cookie = newCookieSecret();
  const csrf = newCsrfToken();
  const now = Date.now();
  await sessions.putSession(hashCookieSecret(cookie), {
    userId,
    csrfToken: csrf,
    createdAt: new Date(now - 60_000).toISOString(),
    expiresAt: new Date(now + 4 * 3600_000),
    idleExpiresAt: new Date(now + idleSecondsLeft * 1000),
  });
  return { cookie, csrf };
}

function page(path: string, who: TestSession): Promise<Response> {
  return fetch(`${stack.origin}${path}`, { headers: { cookie: `sp_session=${who.cookie}` }, redirect: 'manual' });
}

async function idleEndOf(who: TestSession): Promise<number> {
  const out = await documents.send(new GetCommand({ TableName: stack.tables.sessions, Key: { pk: `SESSION#${hashCookieSecret(who.cookie)}` }, ConsistentRead: true }));
  return Number(out.Item?.idleExpiresAt);
}

beforeAll(async () => {
  stack = await startTestStack();
  sessions = new DynamoDbSessionStore({ tableName: stack.tables.sessions });
  documents = DynamoDBDocumentClient.from(dynamoDbClientFor(stack.info.dynamodbEndpoint, { retries: 'standard' }));
}, 60_000);

afterAll(async () => {
  documents?.destroy();
  await stack?.stop();
});

describe('the idle end', () => {
  it('ends a session idle past its idle end, though its absolute end is hours away', async () => {
    const user = await provisionUser();
    const idle = await session(user.userId, -1);
    const response = await page('/settings', idle);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^\/settings\/sign-in\?returnTo=/);
  });

  it('pushes the idle end back when a page is opened, at most once every few minutes', async () => {
    const user = await provisionUser();
    const nearlyIdle = await session(user.userId, 60);
    expect((await page('/settings', nearlyIdle)).status).toBe(200);
    const pushed = await idleEndOf(nearlyIdle);
    expect(pushed).toBeGreaterThan(Date.now() / 1000 + SESSION_IDLE_SECONDS - IDLE_TOUCH_SECONDS);

    const fresh = await session(user.userId, SESSION_IDLE_SECONDS - 60);
    const before = await idleEndOf(fresh);
    expect((await page('/settings', fresh)).status).toBe(200);
    expect(await idleEndOf(fresh)).toBe(before);
  });
});

describe('sign out of other browsers', () => {
  it('ends every other session of the user, keeps this one and other users\u2019 sessions', async () => {
    const user = await provisionUser();
    const someoneElse = await provisionUser();
    const here = await session(user.userId, SESSION_IDLE_SECONDS);
    const elsewhere = [await session(user.userId, SESSION_IDLE_SECONDS), await session(user.userId, SESSION_IDLE_SECONDS)];
    const theirs = await session(someoneElse.userId, SESSION_IDLE_SECONDS);

    const overview = await (await page('/settings', here)).text();
    expect(overview).toContain('Sign out of other browsers');
    const answer = await fetch(`${stack.origin}/settings/sign-out`, {
      method: 'POST',
      headers: { cookie: `sp_session=${here.cookie}`, 'content-type': 'application/x-www-form-urlencoded', origin: stack.origin },
      body: new URLSearchParams({ _csrf: here.csrf, others: 'on' }).toString(),
      redirect: 'manual',
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/settings?otherSessionsEnded=2');

    for (const ended of elsewhere) expect((await page('/settings', ended)).status).toBe(303);
    const kept = await page('/settings?otherSessionsEnded=2', here);
    expect(kept.status).toBe(200);
    expect(await kept.text()).toContain('Signed out of 2 other browsers.');
    expect((await page('/settings', theirs)).status).toBe(200);
  });

  it('needs the CSRF token like every settings form', async () => {
    const user = await provisionUser();
    const here = await session(user.userId, SESSION_IDLE_SECONDS);
    const other = await session(user.userId, SESSION_IDLE_SECONDS);
    const forged = await fetch(`${stack.origin}/settings/sign-out`, {
      method: 'POST',
      headers: { cookie: `sp_session=${here.cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ others: 'on' }).toString(),
      redirect: 'manual',
    });
    expect(forged.status).toBe(403);
    expect((await page('/settings', other)).status).toBe(200);
  });
});
