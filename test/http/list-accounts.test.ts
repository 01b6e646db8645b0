/**
 * GET /accounts through HTTP against the local stack: what is listed (every platform, every
 * workspace, only the caller's), the workspaceId and platform filters, strict query parameters,
 * the generic 500 with nothing internal in it, and a property test that no query string or
 * header value makes the endpoint fail. Every response is checked against openapi.yaml. Limits
 * are raised in this stack: the property test sends hundreds of requests with one key.
 */
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { newId } from '../../lib/domain/ids.js';
import { expectApiError, rateHeaders } from '../support/api-assertions.js';
import { api, freshSourceAddress, sendFrom, type ApiResponse } from '../support/http.js';
import { assertDocumentedResponse } from '../support/openapi.js';
import { connectAccount, createKey, provisioning, provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

interface AccountList {
  object: 'list';
  accounts: Array<Record<string, unknown> & { id: string; workspaceId: string; platform: string }>;
}

let stack: TestStack;
let alice: ProvisionedUser;
let bob: ProvisionedUser;

beforeAll(async () => {
  stack = await startTestStack({ env: { RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_DAY: '1000000' } });
  alice = await provisionUser({
    workspaces: 2,
    accounts: [
      { platform: 'x', workspaceIndex: 0 },
      { platform: 'linkedin', workspaceIndex: 0, accountType: 'organization', tokenHealth: 'expiring' },
      { platform: 'instagram', workspaceIndex: 0 },
      { platform: 'x', workspaceIndex: 1, tokenHealth: 'needs_reauth' },
      { platform: 'tiktok', workspaceIndex: 1 },
    ],
  });
  bob = await provisionUser({ accounts: [{ platform: 'x' }, { platform: 'linkedin' }] });
});

afterAll(async () => {
  await stack?.stop();
});

async function list(user: { apiKey: string }, query = ''): Promise<ApiResponse<AccountList>> {
  const path = `/accounts${query}`;
  const response = await api(stack.baseUrl, user.apiKey).get<AccountList>(path);
  assertDocumentedResponse('GET', path, response);
  return response;
}

const ids = (response: ApiResponse<AccountList>): string[] => response.body.accounts.map((account) => account.id);

describe('GET /accounts', () => {
  it('lists every account of the caller, on every platform and in every workspace, in connection order', async () => {
    const response = await list(alice);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.body.object).toBe('list');
    expect(ids(response)).toEqual(alice.accounts.map((account) => account.id));
    rateHeaders(response);
  });

  it('shows the account object of api-v1.md and nothing internal', async () => {
    const response = await list(alice);
    const source = alice.accounts[1];
    const shown = response.body.accounts[1];
    expect(shown).toEqual({
      object: 'account',
      id: source?.id,
      workspaceId: alice.workspaceIds[0],
      platform: 'linkedin',
      name: source?.name,
      handle: source?.handle,
      accountType: 'organization',
      active: true,
      tokenHealth: 'expiring',
      connectedAt: source?.connectedAt,
      tokenExpiresAt: null,
      limits: { textLength: 3000 },
    });
    expect(response.text).not.toContain(alice.userId);
    expect(response.text).not.toContain('platformUserId');
  });

  it("never shows another user's accounts", async () => {
    const response = await list(bob);
    expect(ids(response)).toEqual(bob.accounts.map((account) => account.id));
    for (const account of alice.accounts) expect(response.text).not.toContain(account.id);
  });

  it('filters by workspace', async () => {
    expect(ids(await list(alice, `?workspaceId=${alice.workspaceIds[1]}`))).toEqual([alice.accounts[3]?.id, alice.accounts[4]?.id]);
    expect(ids(await list(alice, `?workspaceId=${alice.workspaceIds[0]}`))).toEqual(alice.accounts.slice(0, 3).map((a) => a.id));
  });

  it('filters by platform, also a platform that cannot be posted to, and by both', async () => {
    expect(ids(await list(alice, '?platform=x'))).toEqual([alice.accounts[0]?.id, alice.accounts[3]?.id]);
    expect(ids(await list(alice, '?platform=tiktok'))).toEqual([alice.accounts[4]?.id]);
    expect(ids(await list(alice, `?platform=x&workspaceId=${alice.workspaceIds[1]}`))).toEqual([alice.accounts[3]?.id]);
    expect(ids(await list(alice, '?platform=bluesky'))).toEqual([]);
  });

  it('sees a workspace created after the key was cached', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    expect((await list(user)).status).toBe(200);
    const workspace = await provisioning().createWorkspace({ userId: user.userId, name: 'Later' });
    const account = await connectAccount(workspace.id, { platform: 'linkedin' });
    expect(ids(await list(user, `?workspaceId=${workspace.id}`))).toEqual([account.id]);
  });

  it('lists nothing for a user without accounts', async () => {
    const empty = await provisionUser();
    expect((await list(empty)).body).toEqual({ object: 'list', accounts: [] });
  });

  it("gives 400 workspace_not_found for an unknown workspace and for another user's workspace", async () => {
    for (const workspaceId of [newId('ws'), bob.workspaceIds[0] ?? '', 'x'.repeat(300)]) {
      expectApiError(await list(alice, `?workspaceId=${encodeURIComponent(workspaceId)}`), {
        status: 400,
        type: 'invalid_request_error',
        code: 'workspace_not_found',
        param: 'workspaceId',
      });
    }
  });

  it('gives 400 invalid_query naming an unknown or empty parameter, or a malformed platform', async () => {
    const cases: Array<[string, string]> = [
      ['?workspace=ws_1', 'workspace'],
      ['?limit=10', 'limit'],
      ['?platform=x&status=draft', 'status'],
      ['?workspaceId=', 'workspaceId'],
      ['?platform=', 'platform'],
      ['?platform=X', 'platform'],
      ['?platform=x&platform=linkedin', 'platform'],
    ];
    for (const [query, param] of cases) {
      expectApiError(await list(alice, query), { status: 400, type: 'invalid_request_error', code: 'invalid_query', param });
    }
  });

  it('answers a failure it did not expect with the generic 500, rate-limit headers, and nothing internal', async () => {
    const user = await provisionUser({ accounts: [{ platform: 'x' }] });
    // An account item missing its fields (a hand edit or a bug): the store refuses to map it.
    const raw = dynamoDbClientFor(inject('localAws').dynamodbEndpoint, { retries: 'standard' });
    const brokenId = newId('acct');
    try {
      await DynamoDBDocumentClient.from(raw).send(
        new PutCommand({
          TableName: stack.tables.directory,
          Item: { pk: `ACCOUNT#${brokenId}`, sk: 'ACCOUNT', gsi1pk: `USER#${user.userId}`, gsi1sk: `${user.workspaceIds[0]}#${brokenId}` },
        }),
      );
    } finally {
      raw.destroy();
    }

    const written: string[] = [];
    const capture = (chunk: unknown): boolean => {
      written.push(String(chunk));
      return true;
    };
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    let response: ApiResponse<AccountList>;
    try {
      response = await list(user);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }

    expectApiError(response, { status: 500, type: 'api_error', code: 'internal_error' });
    expect((response.body as unknown as { error: { message: string } }).error.message).toBe(
      'An internal error occurred. It is safe to retry with the same Idempotency-Key.',
    );
    expect(rateHeaders(response).limit).toBe(100000);
    for (const internal of ['ACCOUNT#', brokenId, 'Directory', 'stack', 'at ']) expect(response.text).not.toContain(internal);

    // The real error is logged, with the public key id but never the key itself.
    const log = written.join('');
    expect(log).toContain('Request failed');
    expect(log).toContain(brokenId);
    expect(log).toContain(user.keyId);
    expect(log).not.toContain(user.apiKey);
    expect(log).not.toContain(user.apiKey.split('_')[2]);
  });
});

describe('GET /accounts under arbitrary input (property)', () => {
  const SKIPPED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'expect', 'upgrade', 'te', 'trailer', 'keep-alive']);
  const headerName = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/).filter((name) => !SKIPPED_HEADERS.has(name.toLowerCase()));
  const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 60 });
  const queryPiece = fc.oneof(
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
    fc.constantFrom('workspaceId', 'platform', 'x', 'linkedin', '%', '%zz', '%00', '=', '&', '+', '__proto__', 'constructor', '[]', '%E2%82'),
  );
  const query = fc
    .array(fc.tuple(queryPiece, fc.option(queryPiece, { nil: undefined })), { maxLength: 4 })
    .map((pairs) => pairs.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join('&'));
  const authorization = fc.oneof(
    fc.constant('valid'),
    fc.constant('none'),
    headerValue,
    fc.string({ maxLength: 40 }).map((s) => `Bearer ${encodeURIComponent(s)}`),
  );

  it('never answers 500: always a 200 list or the error shape, with rate-limit headers', async () => {
    await fc.assert(
      fc.asyncProperty(query, fc.dictionary(headerName, headerValue, { maxKeys: 4 }), authorization, async (q, headers, auth) => {
        const sent: Record<string, string> = Object.fromEntries(
          Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'),
        );
        if (auth === 'valid') sent['authorization'] = `Bearer ${alice.apiKey}`;
        else if (auth !== 'none') sent['authorization'] = auth;
        const response = await sendFrom({
          method: 'GET',
          url: `${stack.baseUrl}/accounts${q === '' ? '' : `?${q}`}`,
          headers: sent,
          sourceAddress: freshSourceAddress(),
        });
        expect(response.status).not.toBe(500);
        expect([200, 400, 401]).toContain(response.status);
        expect(response.headers['content-type']).toBe('application/json');
        rateHeaders(response);
        if (response.status === 200) {
          const body = response.body as AccountList;
          expect(body.object).toBe('list');
          for (const account of body.accounts) expect(alice.accounts.map((a) => a.id)).toContain(account.id);
        } else {
          const body = response.body as { error: Record<string, unknown> };
          expect(Object.keys(body)).toEqual(['error']);
          expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('keys created with a narrower scope', () => {
  it('list the same accounts with only the media scope (every scope implies read)', async () => {
    const key = await createKey(alice.userId, ['media']);
    expect(ids(await list({ apiKey: key.apiKey }))).toEqual(alice.accounts.map((account) => account.id));
  });
});
