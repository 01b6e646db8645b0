/**
 * An account as the directory store holds it, for store tests that need one without connecting it
 * through the settings pages: a healthy personal X account. Fields given replace the defaults.
 */
import { newId } from '../../lib/domain/ids.js';
import type { Account } from '../../lib/domain/model.js';

export function accountFixture(owner: { userId: string; workspaceId: string }, overrides: Partial<Account> = {}): Account {
  return {
    id: newId('acct'),
    userId: owner.userId,
    workspaceId: owner.workspaceId,
    platform: 'x',
    name: 'Acme',
    handle: '@acme',
    accountType: 'personal',
    active: true,
    tokenHealth: 'healthy',
    connectedAt: '2026-11-21T09:00:00.000Z',
    platformUserId: '1234567890',
    ...overrides,
  };
}
