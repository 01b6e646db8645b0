/**
 * The publish worker's shared account reads (lib/use-cases/shared-account-reads.ts) against the
 * real account store on DynamoDB Local: reads of one account asked together cost one Query;
 * a read asked within ACCOUNT_READ_REUSE_MS of the last one finishing is that read again; a read
 * asked later reads again, so a change is seen.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, inject, it, vi } from 'vitest';
import { newId } from '../../lib/domain/ids.js';
import type { Account } from '../../lib/domain/model.js';
import { directoryStores } from '../../lib/store/directory-stores.js';
import { ACCOUNT_READ_REUSE_MS, sharingAccountReads } from '../../lib/use-cases/shared-account-reads.js';
import { accountFixture } from '../support/account-fixture.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const raw = dynamoDbClientFor(dynamodbEndpoint);
const store = directoryStores({ tableName: sharedTables.directory ?? '', client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }) });

afterAll(() => raw.destroy());
afterEach(() => vi.restoreAllMocks());

function account(): Account {
  return accountFixture({ userId: newId('usr'), workspaceId: newId('ws') });
}

describe('shared account reads', () => {
  it('reads of one account asked together send one Query; other accounts and later reads send their own', async () => {
    const [first, second] = [account(), account()];
    for (const item of [first, second]) await store.accounts.putAccount(item);
    const queries = vi.spyOn(store.accounts, 'getAccountWithCredentials');
    let clock = 1_000_000;
    const reader = sharingAccountReads(store.accounts, () => clock);

    const together = await Promise.all([...Array.from({ length: 10 }, () => reader.getAccountWithCredentials(first.id)), reader.getAccountWithCredentials(second.id)]);
    expect(queries).toHaveBeenCalledTimes(2);
    expect(together.slice(0, 10).every((read) => read.account?.id === first.id)).toBe(true);
    expect(together[10]?.account?.id).toBe(second.id);

    // Within ACCOUNT_READ_REUSE_MS of the read finishing, the same read again: no Query.
    await store.accounts.updateAccount(first.id, { active: false });
    clock += ACCOUNT_READ_REUSE_MS - 1;
    expect((await reader.getAccountWithCredentials(first.id)).account?.active).toBe(true);
    expect(queries).toHaveBeenCalledTimes(2);

    // Once that has passed, a change is seen by the next read.
    clock += 1;
    expect((await reader.getAccountWithCredentials(first.id)).account?.active).toBe(false);
    expect(queries).toHaveBeenCalledTimes(3);
  });

  it('a failed read fails every read that shared it, and is not kept: the next read asks again', async () => {
    // A store whose DynamoDB cannot be reached (nothing listens on port 9): a real failure.
    const unreachable = dynamoDbClientFor('http://127.0.0.1:9');
    const broken = directoryStores({ tableName: sharedTables.directory ?? '', client: DynamoDBDocumentClient.from(unreachable) });
    try {
      const queries = vi.spyOn(broken.accounts, 'getAccountWithCredentials');
      const reader = sharingAccountReads(broken.accounts, () => 0);
      const id = newId('acct');
      const shared = await Promise.allSettled([reader.getAccountWithCredentials(id), reader.getAccountWithCredentials(id)]);
      expect(shared.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      expect(queries).toHaveBeenCalledTimes(1);
      await expect(reader.getAccountWithCredentials(id)).rejects.toThrow();
      expect(queries).toHaveBeenCalledTimes(2);
    } finally {
      unreachable.destroy();
    }
  });
});
