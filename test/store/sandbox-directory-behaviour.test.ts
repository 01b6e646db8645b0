/**
 * How the sandbox platforms read an account's behaviour (local/sandbox/directory-behaviour.ts), on
 * DynamoDB Local: by default every request reads again, so a change (admin CLI, a test's
 * updateAccount) is seen by the next one; with `reuseMs` (the bench's stack only) a read is kept
 * that long, so a burst's creates do not each wait for a read queued behind the burst's writes.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newId } from '../../lib/domain/ids.js';
import { directoryStores } from '../../lib/store/directory-stores.js';
import { dynamoDbClientFor } from '../../local/dynamodb-local.js';
import { directoryBehaviour } from '../../local/sandbox/directory-behaviour.js';
import { accountFixture } from '../support/account-fixture.js';

const { dynamodbEndpoint, sharedTables } = inject('localAws');
const table = sharedTables.directory ?? '';
const raw = dynamoDbClientFor(dynamodbEndpoint);
const store = directoryStores({ tableName: table, client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }) });

afterAll(() => raw.destroy());

async function refusingAccount(): Promise<string> {
  const account = { ...accountFixture({ userId: newId('usr'), workspaceId: newId('ws') }), sandbox: 'refuse' as const };
  await store.accounts.putAccount(account);
  return account.id;
}

describe('sandbox account behaviour', () => {
  it('by default reads again on every request: a change is seen by the next one', async () => {
    const id = await refusingAccount();
    const directory = directoryBehaviour(dynamodbEndpoint, table);
    try {
      expect(await directory.accountBehaviour(id)).toBe('refuse');
      await store.accounts.updateAccount(id, { sandbox: 'ok' });
      expect(await directory.accountBehaviour(id)).toBe('ok');
    } finally {
      directory.close();
    }
  });

  it('with reuseMs keeps a read that long, per account', async () => {
    const [id, other] = [await refusingAccount(), await refusingAccount()];
    const directory = directoryBehaviour(dynamodbEndpoint, table, { reuseMs: 60_000 });
    try {
      expect(await directory.accountBehaviour(id)).toBe('refuse');
      await store.accounts.updateAccount(id, { sandbox: 'ok' });
      await store.accounts.updateAccount(other, { sandbox: 'ok' });
      // The read kept for `id`; `other` was never read, so its first read sees the change.
      expect(await directory.accountBehaviour(id)).toBe('refuse');
      expect(await directory.accountBehaviour(other)).toBe('ok');
    } finally {
      directory.close();
    }
  });
});
