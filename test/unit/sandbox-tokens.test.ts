import { describe, expect, it } from 'vitest';
import { issueSandboxTokens, parseSandboxToken } from '../../lib/domain/sandbox-tokens.js';
import { accountView } from '../../lib/domain/views/account-view.js';
import type { Account } from '../../lib/domain/model.js';

describe('sandbox tokens', () => {
  const now = new Date('2026-11-21T09:30:00.000Z');

  it('name their account, so a sandbox platform can tell who is calling', () => {
    const tokens = issueSandboxTokens('acct_abc', 'x', now);
    expect(tokens.accessToken).toMatch(/^sandbox\.acct_abc\.\d+\.[0-9A-Za-z]{24}$/);
    expect(tokens.refreshToken).toMatch(/^sandbox-refresh\.acct_abc\.[0-9A-Za-z]{24}$/);
    expect(parseSandboxToken(tokens.accessToken)).toEqual({ kind: 'access', accountId: 'acct_abc', endsAt: new Date('2026-11-21T11:30:00.000Z') });
    expect(parseSandboxToken(tokens.refreshToken)).toEqual({ kind: 'refresh', accountId: 'acct_abc' });
    expect(issueSandboxTokens('acct_abc', 'x', now).accessToken).not.toBe(tokens.accessToken);
  });

  it('expire like the real platforms: X after 2 hours, LinkedIn after 60 days', () => {
    expect(issueSandboxTokens('acct_a', 'x', now).accessTokenExpiresAt).toBe('2026-11-21T11:30:00.000Z');
    expect(issueSandboxTokens('acct_a', 'linkedin', now).accessTokenExpiresAt).toBe('2027-01-20T09:30:00.000Z');
  });

  it('carry their end, so a sandbox can refuse them once ended; one issued before the end was carried never ends', () => {
    const tokens = issueSandboxTokens('acct_a', 'linkedin', now, 3 * 24 * 3600_000);
    expect(tokens.accessTokenExpiresAt).toBe('2026-11-24T09:30:00.000Z');
    expect(parseSandboxToken(tokens.accessToken)?.endsAt).toEqual(new Date('2026-11-24T09:30:00.000Z'));
    expect(parseSandboxToken('sandbox.acct_a.8fK2mQ9xLp3RvT7wZ1yB4nC6')).toEqual({ kind: 'access', accountId: 'acct_a' });
    expect(parseSandboxToken('sandbox-refresh.acct_a.17.x')).toBeNull();
  });

  it.each(['', 'sandbox', 'sandbox.acct_a', 'sandbox..x', 'other.acct_a.x', 'sandbox.acct_a.x.y', 'sandbox.acct_a.1.', 'sandbox.acct_a.1.x.y', 'Bearer sandbox.a.b'])(
    'parses %j as no sandbox token',
    (raw) => {
      expect(parseSandboxToken(raw)).toBeNull();
    },
  );
});

describe('accountView', () => {
  const account: Account = {
    id: 'acct_1',
    userId: 'usr_secret_owner',
    workspaceId: 'ws_1',
    platform: 'linkedin',
    name: 'Acme',
    handle: 'acme',
    accountType: 'organization',
    active: true,
    tokenHealth: 'expiring',
    connectedAt: '2026-11-21T09:30:00.000Z',
    platformUserId: '123456',
    sandbox: 'flaky',
  };

  it('shows exactly the fields of the contract, in UTC with milliseconds', () => {
    const withExtras = { ...account, accessToken: 'sandbox.acct_1.x', connectedAt: '2026-11-21T10:30:00+01:00' } as Account;
    expect(accountView(withExtras)).toEqual({
      object: 'account',
      id: 'acct_1',
      workspaceId: 'ws_1',
      platform: 'linkedin',
      name: 'Acme',
      handle: 'acme',
      accountType: 'organization',
      active: true,
      tokenHealth: 'expiring',
      connectedAt: '2026-11-21T09:30:00.000Z',
      tokenExpiresAt: null,
      limits: { textLength: 3000 },
    });
  });
});
