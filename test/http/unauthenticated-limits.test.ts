/**
 * The unauthenticated writes are counted per client address like /oauth/register and /oauth/token:
 * GET /settings/sign-in and GET /oauth/authorize each store a record, so past the per-minute limit
 * (the local-only override RATE_LIMIT_PER_MINUTE, here 12) they answer 429 and store nothing; and
 * the metadata-document fetches an address causes are capped on their own
 * (METADATA_FETCHES_PER_MINUTE). Each sequence uses a fresh source address and starts early
 * enough in a minute to stay inside it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METADATA_FETCHES_PER_MINUTE } from '../../lib/domain/rate-windows.js';
import { listenOnLoopback } from '../../local/free-port.js';
import { startOfRoomyMinute } from '../support/api-assertions.js';
import { freshSourceAddress, sendFrom, type ApiResponse } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const PER_MINUTE = 12;
const REDIRECT = 'http://127.0.0.1:9/callback';

let stack: TestStack;
let documents: Server;
let documentsOrigin: string;
let documentFetches = 0;

function authorizeUrl(clientId: string): string {
  const url = new URL(`${stack.origin}/oauth/authorize`);
  const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
  const params = { response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', resource: `${stack.origin}/mcp`, state: 's' };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

async function repeat(times: number, request: () => Promise<ApiResponse>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i += 1) statuses.push((await request()).status);
  return statuses;
}

beforeAll(async () => {
  stack = await startTestStack({ env: { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), RATE_LIMIT_PER_DAY: '1000' } });
  documents = createServer((request, response) => {
    documentFetches += 1;
    const clientId = `${documentsOrigin}${request.url ?? ''}`;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: clientId, client_name: 'Doc', redirect_uris: [REDIRECT] }));
  });
  documentsOrigin = `http://127.0.0.1:${await listenOnLoopback(documents)}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => documents?.close(resolve));
  await stack?.stop();
});

describe('per-address limits on unauthenticated writes', () => {
  it('GET /settings/sign-in: the limit, then 429 with nothing stored and no redirect; another address is unaffected', async () => {
    await startOfRoomyMinute(20);
    const from = freshSourceAddress();
    const signIn = (sourceAddress: string) => sendFrom({ method: 'GET', url: `${stack.origin}/settings/sign-in`, sourceAddress });
    expect(await repeat(PER_MINUTE, () => signIn(from))).toEqual(Array.from({ length: PER_MINUTE }, () => 303));
    const refused = await signIn(from);
    expect(refused.status).toBe(429);
    expect(refused.headers.location).toBeUndefined();
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(refused.text).toContain('Too many sign-ins');
    expect((await signIn(freshSourceAddress())).status).toBe(303);
  }, 60_000);

  it('GET /oauth/authorize: the limit, then a 429 page with Retry-After', async () => {
    const registered = await sendFrom<{ client_id: string }>({
      method: 'POST',
      url: `${stack.origin}/oauth/register`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Limits', redirect_uris: [REDIRECT] }),
      sourceAddress: freshSourceAddress(),
    });
    await startOfRoomyMinute(20);
    const from = freshSourceAddress();
    const authorize = () => sendFrom({ method: 'GET', url: authorizeUrl(registered.body.client_id), sourceAddress: from });
    expect(await repeat(PER_MINUTE, authorize)).toEqual(Array.from({ length: PER_MINUTE }, () => 302));
    const refused = await authorize();
    expect(refused.status).toBe(429);
    expect(refused.headers.location).toBeUndefined();
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  }, 60_000);

  it('caps the metadata-document fetches an address causes, below its request limit', async () => {
    expect(METADATA_FETCHES_PER_MINUTE).toBeLessThan(PER_MINUTE);
    await startOfRoomyMinute(20);
    const from = freshSourceAddress();
    const before = documentFetches;
    const authorize = (index: number) => sendFrom({ method: 'GET', url: authorizeUrl(`${documentsOrigin}/clients/${index}.json`), sourceAddress: from });
    const statuses: number[] = [];
    for (let i = 0; i <= METADATA_FETCHES_PER_MINUTE; i += 1) statuses.push((await authorize(i)).status);
    expect(statuses).toEqual([...Array.from({ length: METADATA_FETCHES_PER_MINUTE }, () => 302), 429]);
    expect(documentFetches - before).toBe(METADATA_FETCHES_PER_MINUTE);
  }, 60_000);
});
