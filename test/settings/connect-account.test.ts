/**
 * Connecting accounts from settings, end to end below the web layer: the ConnectAccount use case
 * with its real adapters (X and LinkedIn connectors over HTTP, DynamoDB Local stores, the local
 * token cipher) against the sandbox platforms' consent pages and token endpoints. The consent page
 * is driven here with plain HTTP (GET the page, POST its form); test/browser does it in Chromium.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { PublishablePlatform } from '../../lib/domain/model.js';
import { LinkedinConnector } from '../../lib/platforms/linkedin-connect.js';
import { XClient } from '../../lib/platforms/x-client.js';
import { XConnector } from '../../lib/platforms/x-connect.js';
import { DynamoDbAccountConnectionStore } from '../../lib/store/dynamodb-account-connections.js';
import { DynamoDbConnectAttemptStore } from '../../lib/store/dynamodb-connect-attempts.js';
import { directoryStores } from '../../lib/store/directory-stores.js';
import { LocalTokenCipher } from '../../lib/store/token-cipher.js';
import { Provisioning } from '../../lib/use-cases/admin/provisioning.js';
import { ConnectAccount, type SettingsPrincipal } from '../../lib/use-cases/settings/connect-account.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { SANDBOX_CLIENT_CREDENTIALS, startSandboxPlatforms, type SandboxPlatforms } from '../../local/sandbox/index.js';
import { LINKEDIN_API_VERSION } from '../../lib/platforms/linkedin-version.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint, { retries: 'standard' });
const client = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
const tableName = sharedTables.directory ?? '';
const sessionsTable = sharedTables.sessions ?? '';
const directory = directoryStores({ tableName, client });
const cipher = new LocalTokenCipher(randomBytes(32));
const provisioning = new Provisioning({ directory, cipher });
const redirectUri = (platform: PublishablePlatform) => `http://127.0.0.1:9/settings/connect/${platform}/callback`;

let sandbox: SandboxPlatforms;
let clock = { now: () => new Date() };
let connect: ConnectAccount;

beforeAll(async () => {
  sandbox = await startSandboxPlatforms({ port: 0, accountBehaviour: async () => 'ok' });
  const credentials = (platform: PublishablePlatform) => async () => SANDBOX_CLIENT_CREDENTIALS[platform];
  connect = new ConnectAccount({
    connectors: {
      x: new XConnector({ apiBaseUrl: sandbox.xBaseUrl, authorizeUrl: `${sandbox.xBaseUrl}/i/oauth2/authorize`, clientCredentials: credentials('x') }),
      linkedin: new LinkedinConnector({ apiBaseUrl: sandbox.linkedinBaseUrl, oauthBaseUrl: sandbox.linkedinBaseUrl, apiVersion: LINKEDIN_API_VERSION, clientCredentials: credentials('linkedin') }),
    },
    attempts: new DynamoDbConnectAttemptStore({ tableName: sessionsTable, client }),
    connections: new DynamoDbAccountConnectionStore({ tableName, client }),
    accounts: directory.accounts,
    workspaces: directory.workspaces,
    cipher,
    redirectUri,
    clock: { now: () => clock.now() },
  });
});

afterAll(async () => {
  await sandbox?.stop();
  raw.destroy();
});

async function signedInUser(): Promise<{ principal: SettingsPrincipal; workspaceId: string }> {
  const user = await provisioning.createUser({ email: 'connect@example.test' });
  const workspace = await provisioning.createWorkspace({ userId: user.id, name: 'Main' });
  return { principal: { userId: user.id, sessionId: randomBytes(16).toString('hex') }, workspaceId: workspace.id };
}

/** Opens the consent page, picks an identity and Allow (or Cancel); returns the callback's query. */
async function consent(authorizeUrl: string, identity: string, decision: 'allow' | 'deny' = 'allow'): Promise<Record<string, string>> {
  const page = await fetch(authorizeUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(`value="${identity}"`);
  const url = new URL(authorizeUrl);
  const form = new URLSearchParams(url.searchParams);
  form.set('identity', identity);
  form.set('decision', decision);
  const answer = await fetch(`${url.origin}${url.pathname}`, {
    method: 'POST',
    body: form.toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    redirect: 'manual',
  });
  expect(answer.status).toBe(302);
  const location = new URL(answer.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(redirectUri(url.pathname.startsWith('/x/') ? 'x' : 'linkedin'));
  return Object.fromEntries(location.searchParams);
}

async function tokensOf(accountId: string) {
  const credentials = await directory.accounts.getCredentials(accountId);
  if (!credentials) throw new Error('no credentials');
  return {
    accessToken: await cipher.decrypt(credentials.accessTokenEncrypted, { accountId }),
    refreshToken: credentials.refreshTokenEncrypted === null ? null : await cipher.decrypt(credentials.refreshTokenEncrypted, { accountId }),
    expiresAt: credentials.accessTokenExpiresAt,
  };
}

describe('connecting X', () => {
  it('sends the person to X with state, S256 challenge and the posting scopes, and connects the identity they pick', async () => {
    const { principal, workspaceId } = await signedInUser();
    const { authorizeUrl } = await connect.start(principal, { kind: 'x', workspaceId });
    const asked = new URL(authorizeUrl).searchParams;
    expect(asked.get('scope')).toBe('tweet.read tweet.write users.read media.write offline.access');
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(asked.get('client_id')).toBe(SANDBOX_CLIENT_CREDENTIALS.x.clientId);

    const back = await consent(authorizeUrl, '1850000000000000001');
    const result = await connect.finish(principal, 'x', back);
    expect(result).toMatchObject({ workspaceId, platform: 'x', reconnected: false });
    const [account] = result.accounts;
    expect(account).toMatchObject({ platform: 'x', handle: '@sandbox_ana', name: 'Ana Sandbox', platformUserId: '1850000000000000001', accountType: 'personal', tokenHealth: 'healthy', active: true });
    expect(await directory.accounts.listAccounts(principal.userId, {})).toEqual([account]);

    // The stored tokens are encrypted for this account and work with the sandbox's post and refresh endpoints.
    const stored = await directory.accounts.getCredentials(account!.id);
    expect(stored?.accessTokenEncrypted).not.toContain('sandbox');
    const tokens = await tokensOf(account!.id);
    expect(tokens.refreshToken).not.toBeNull();
    expect(Date.parse(tokens.expiresAt ?? '')).toBeGreaterThan(Date.now() + 7000_000);
    const x = new XClient({ baseUrl: sandbox.xBaseUrl, clientCredentials: async () => SANDBOX_CLIENT_CREDENTIALS.x });
    const published = await x.publish({ account: account!, accessToken: tokens.accessToken, text: 'Hello from a connected account', media: [], options: {} });
    expect(published.publishedUrl).toBe(`https://x.com/sandbox_ana/status/${published.platformPostId}`);
    const refreshed = await x.refreshAccessToken({ refreshToken: tokens.refreshToken! });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
  });

  it('connecting the same X user again updates the account instead of adding one', async () => {
    const { principal, workspaceId } = await signedInUser();
    const first = await connect.finish(principal, 'x', await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000002'));
    await directory.accounts.setTokenHealth(first.accounts[0]!.id, 'refresh_failed');
    const second = await connect.finish(principal, 'x', await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000002'));
    expect(second.reconnected).toBe(true);
    expect(second.accounts[0]!.id).toBe(first.accounts[0]!.id);
    const listed = await directory.accounts.listAccounts(principal.userId, {});
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ tokenHealth: 'healthy', connectedAt: first.accounts[0]!.connectedAt });
  });

  it('a refusal is a clear error, and the state cannot be used again', async () => {
    const { principal, workspaceId } = await signedInUser();
    const { authorizeUrl } = await connect.start(principal, { kind: 'x', workspaceId });
    const back = await consent(authorizeUrl, '1850000000000000001', 'deny');
    expect(back.error).toBe('access_denied');
    await expect(connect.finish(principal, 'x', back)).rejects.toMatchObject({ code: 'connect_refused', message: 'You cancelled on X, so nothing was connected.' });
    await expect(connect.finish(principal, 'x', back)).rejects.toMatchObject({ code: 'connect_state_invalid' });
    expect(await directory.accounts.listAccounts(principal.userId, {})).toEqual([]);
  });

  it('refuses a state started by another session or another user, a replayed code and an expired attempt', async () => {
    const { principal, workspaceId } = await signedInUser();
    const other = await signedInUser();
    const started = await connect.start(principal, { kind: 'x', workspaceId });
    const back = await consent(started.authorizeUrl, '1850000000000000001');
    await expect(connect.finish({ ...principal, sessionId: 'another-session' }, 'x', back)).rejects.toMatchObject({ code: 'connect_state_invalid' });
    // The foreign attempt consumed the state: even the right session cannot use it now.
    await expect(connect.finish(principal, 'x', back)).rejects.toMatchObject({ code: 'connect_state_invalid' });

    const second = await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000001');
    await expect(connect.finish(other.principal, 'x', second)).rejects.toMatchObject({ code: 'connect_state_invalid' });
    await expect(connect.finish(principal, 'x', { state: 'made-up' })).rejects.toMatchObject({ code: 'connect_state_invalid' });
    await expect(connect.finish(principal, 'x', {})).rejects.toMatchObject({ code: 'connect_state_invalid' });

    const late = await connect.start(principal, { kind: 'x', workspaceId });
    const lateBack = await consent(late.authorizeUrl, '1850000000000000001');
    clock = { now: () => new Date(Date.now() + 11 * 60_000) };
    try {
      await expect(connect.finish(principal, 'x', lateBack)).rejects.toMatchObject({ code: 'connect_expired' });
    } finally {
      clock = { now: () => new Date() };
    }
    expect(await directory.accounts.listAccounts(principal.userId, {})).toEqual([]);
    await expect(connect.start(principal, { kind: 'x', workspaceId: other.workspaceId })).rejects.toMatchObject({ code: 'workspace_not_found' });
  });

  it('the token endpoint checks the PKCE verifier, the client and single use', async () => {
    const { principal, workspaceId } = await signedInUser();
    const { authorizeUrl } = await connect.start(principal, { kind: 'x', workspaceId });
    const back = await consent(authorizeUrl, '1850000000000000001');
    const exchange = (verifier: string, secret: string = SANDBOX_CLIENT_CREDENTIALS.x.clientSecret) =>
      fetch(`${sandbox.xBaseUrl}/2/oauth2/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${Buffer.from(`${SANDBOX_CLIENT_CREDENTIALS.x.clientId}:${secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: back.code ?? '', redirect_uri: redirectUri('x'), code_verifier: verifier }).toString(),
      });
    expect((await exchange('a'.repeat(43), 'wrong-secret')).status).toBe(401);
    expect((await exchange('a'.repeat(43))).status).toBe(400);
    // The wrong verifier used the code up: the real flow now fails too, with a clear message.
    await expect(connect.finish(principal, 'x', back)).rejects.toMatchObject({ code: 'connect_failed' });
  });

  it('reconnects an account marked needs_reauth, and refuses a different identity', async () => {
    const { principal, workspaceId } = await signedInUser();
    const [account] = (await connect.finish(principal, 'x', await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000001'))).accounts;
    await directory.accounts.setTokenHealth(account!.id, 'needs_reauth');
    const wrong = await connect.start(principal, { kind: 'x', reconnectAccountId: account!.id });
    await expect(connect.finish(principal, 'x', await consent(wrong.authorizeUrl, '1850000000000000002'))).rejects.toMatchObject({ code: 'connect_wrong_identity' });
    expect((await directory.accounts.getAccount(account!.id))?.tokenHealth).toBe('needs_reauth');
    const right = await connect.start(principal, { kind: 'x', reconnectAccountId: account!.id });
    const result = await connect.finish(principal, 'x', await consent(right.authorizeUrl, '1850000000000000001'));
    expect(result).toMatchObject({ reconnected: true, accounts: [{ id: account!.id, tokenHealth: 'healthy' }] });
    expect((await directory.accounts.getAccount(account!.id))?.tokenHealth).toBe('healthy');
    const other = await signedInUser();
    await expect(connect.start(other.principal, { kind: 'x', reconnectAccountId: account!.id })).rejects.toMatchObject({ code: 'account_not_found' });
  });

  it('disconnecting removes the account and its tokens, and only the owner can', async () => {
    const { principal, workspaceId } = await signedInUser();
    const [account] = (await connect.finish(principal, 'x', await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000001'))).accounts;
    const other = await signedInUser();
    await expect(connect.disconnect(other.principal, account!.id)).rejects.toMatchObject({ code: 'account_not_found' });
    await connect.disconnect(principal, account!.id);
    expect(await directory.accounts.listAccounts(principal.userId, {})).toEqual([]);
    expect(await directory.accounts.getCredentials(account!.id)).toBeNull();
    // Connecting the same identity again makes a new account.
    const again = await connect.finish(principal, 'x', await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000001'));
    expect(again).toMatchObject({ reconnected: false });
    expect(again.accounts[0]!.id).not.toBe(account!.id);
  });

  it("the workspaces page's disconnect (AccountStore.disconnectAccount) also frees the identity's connection guard", async () => {
    const { principal, workspaceId } = await signedInUser();
    const [account] = (await connect.finish(principal, 'x', await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000001'))).accounts;
    const other = await signedInUser();
    expect(await directory.accounts.disconnectAccount(other.principal.userId, account!.id)).toBe(false);
    expect(await directory.accounts.getAccount(account!.id)).not.toBeNull();
    expect(await directory.accounts.disconnectAccount(principal.userId, account!.id)).toBe(true);
    expect(await directory.accounts.getAccount(account!.id)).toBeNull();
    expect(await directory.accounts.getCredentials(account!.id)).toBeNull();
    const again = await connect.finish(principal, 'x', await consent((await connect.start(principal, { kind: 'x', workspaceId })).authorizeUrl, '1850000000000000001'));
    expect(again).toMatchObject({ reconnected: false });
    expect(again.accounts[0]!.id).not.toBe(account!.id);
  });
});

describe('connecting LinkedIn', () => {
  it('connects a member with openid profile w_member_social', async () => {
    const { principal, workspaceId } = await signedInUser();
    const { authorizeUrl } = await connect.start(principal, { kind: 'linkedin_member', workspaceId });
    expect(new URL(authorizeUrl).searchParams.get('scope')).toBe('openid profile w_member_social');
    const result = await connect.finish(principal, 'linkedin', await consent(authorizeUrl, 'sbxAnaExample1'));
    expect(result.accounts).toEqual([expect.objectContaining({ platform: 'linkedin', accountType: 'personal', name: 'Ana Example', platformUserId: 'sbxAnaExample1', tokenHealth: 'healthy' })]);
  });

  it('connects every page the member administers, and says so when there is none', async () => {
    const { principal, workspaceId } = await signedInUser();
    const { authorizeUrl } = await connect.start(principal, { kind: 'linkedin_pages', workspaceId });
    expect(new URL(authorizeUrl).searchParams.get('scope')).toBe('openid profile w_member_social w_organization_social r_organization_admin');
    const result = await connect.finish(principal, 'linkedin', await consent(authorizeUrl, 'sbxAnaExample1'));
    expect(result.accounts.map((account) => [account.name, account.handle, account.platformUserId, account.accountType])).toEqual([
      ['Example Org', 'example-org', '90000001', 'organization'],
      ['Example Labs', 'example-labs', '90000002', 'organization'],
    ]);
    const none = await connect.start(principal, { kind: 'linkedin_pages', workspaceId });
    await expect(connect.finish(principal, 'linkedin', await consent(none.authorizeUrl, 'sbxBoExample22'))).rejects.toMatchObject({ code: 'connect_no_pages' });
    expect(await directory.accounts.listAccounts(principal.userId, {})).toHaveLength(2);
  });

  it('an identity whose access was revoked cannot finish a connect: the error is clear, not a crash', async () => {
    const { principal, workspaceId } = await signedInUser();
    const { authorizeUrl } = await connect.start(principal, { kind: 'linkedin_member', workspaceId });
    const back = await consent(authorizeUrl, 'sbxBoExample22');
    sandbox.linkedinOAuth.identities.setBehaviour('sbxBoExample22', 'expired');
    try {
      await expect(connect.finish(principal, 'linkedin', back)).rejects.toMatchObject({ code: 'connect_failed' });
    } finally {
      sandbox.linkedinOAuth.identities.setBehaviour('sbxBoExample22', 'ok');
    }
  });
});

describe('the sandbox authorize pages', () => {
  it('never redirect to an unregistered address, and send request errors back to the registered one', async () => {
    const base = new URLSearchParams({
      response_type: 'code',
      client_id: SANDBOX_CLIENT_CREDENTIALS.x.clientId,
      redirect_uri: redirectUri('x'),
      scope: 'tweet.read users.read',
      state: 'abc',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    });
    const open = (changes: Record<string, string>) => {
      const query = new URLSearchParams(base);
      for (const [name, value] of Object.entries(changes)) query.set(name, value);
      return fetch(`${sandbox.xBaseUrl}/i/oauth2/authorize?${query.toString()}`, { redirect: 'manual' });
    };
    const evil = await open({ redirect_uri: 'https://evil.example/callback' });
    expect(evil.status).toBe(400);
    expect(evil.headers.get('location')).toBeNull();
    expect((await open({ client_id: 'someone-else' })).status).toBe(400);
    const noPkce = await open({ code_challenge_method: 'plain' });
    expect(noPkce.status).toBe(302);
    expect(new URL(noPkce.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_request');
    const page = await open({});
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Values from the request are escaped into the page, never markup.
    const hostile = await open({ state: '"><script>alert(1)</script>' });
    expect(await hostile.text()).not.toContain('<script>alert(1)</script>');
  });
});
