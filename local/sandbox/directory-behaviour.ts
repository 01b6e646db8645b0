/**
 * How the sandbox answers for an account is set on the account itself (admin CLI `--sandbox`):
 * this reads it from the directory table, through an SDK client of the sandbox's own, so its
 * requests never mix with the handlers' (which the bench meters). Shared by the in-process
 * sandbox (local/stack.ts) and the sandbox process (main.ts).
 *
 * Lookups of one account that overlap share one read (lib/use-cases/shared-in-flight.ts; nothing
 * is cached, so a change made with the admin CLI is seen by the next request): a burst of posts due at one second reaches the sandbox
 * within milliseconds, and a read per request would load DynamoDB Local, which the service under
 * test shares on the same machine, with work the real platforms never put on it.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SandboxBehaviour } from '../../lib/domain/model.js';
import { sharedInFlight } from '../../lib/use-cases/shared-in-flight.js';
import { dynamoDbClientFor } from '../dynamodb-local.js';
import type { AccountBehaviour } from './common.js';

export function directoryBehaviour(dynamodbEndpoint: string, directoryTable: string): { accountBehaviour: AccountBehaviour; close(): void } {
  const client = dynamoDbClientFor(dynamodbEndpoint);
  const documents = DynamoDBDocumentClient.from(client);
  // The account store is imported only when first needed: after the caller set the environment.
  let directory: Promise<{ getAccount(id: string): Promise<{ sandbox?: SandboxBehaviour } | null> }> | undefined;
  const read = async (accountId: string): Promise<SandboxBehaviour> => {
    directory ??= import('../../lib/store/dynamodb-account-store.js').then(
      (store) => new store.DynamoDbAccountStore({ tableName: directoryTable, client: documents }),
    );
    const account = await (await directory).getAccount(accountId);
    return account?.sandbox ?? 'ok';
  };
  const accountBehaviour = sharedInFlight(read);
  return { accountBehaviour, close: () => client.destroy() };
}
