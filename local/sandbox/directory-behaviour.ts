/**
 * How the sandbox answers for an account is set on the account itself (admin CLI `--sandbox`):
 * this reads it from the directory table, through an SDK client of the sandbox's own, so its
 * requests never mix with the handlers' (which the bench meters). Shared by the in-process
 * sandbox (local/stack.ts) and the sandbox process (main.ts).
 *
 * Lookups of one account that overlap share one read (lib/use-cases/shared-in-flight.ts; by default
 * nothing is kept, so a change made with the admin CLI is seen by the next request; the bench keeps
 * a read a while, `reuseMs`): a burst of posts due at one second reaches the sandbox within milliseconds, and a read per request would load DynamoDB Local, which the service under
 * test shares on the same machine, with work the real platforms never put on it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SandboxBehaviour, XSubscription } from '../../lib/domain/model.js';
import { sharedRecentReads } from '../../lib/use-cases/shared-in-flight.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../local-aws.js';
import type { AccountBehaviour } from './common.js';

export interface DirectoryBehaviourOptions {
  /**
   * How long a behaviour read is reused for the same account (default 0: never; every request asks
   * again, so an admin CLI change is seen by the next request). Only the bench sets it: it never
   * changes a behaviour, and in a burst every create waited for its read behind the burst's own
   * writes on the one DynamoDB Local, a wait X and LinkedIn never put on the service, so the
   * publish lag measured the stand-in's read instead of the service.
   */
  reuseMs?: number;
}

export function directoryBehaviour(
  dynamodbEndpoint: string,
  directoryTable: string,
  options: DirectoryBehaviourOptions = {},
): { accountBehaviour: AccountBehaviour; xSubscription: (accountId: string) => Promise<XSubscription>; close(): void } {
  // With the SDK's retries (the local tools' client makes one attempt): under a burst DynamoDB Local
  // drops a connection now and then ("socket hang up"), and a read of the stand-in's own settings
  // that failed on it answered the create 500, which the service retried seconds later (213 of the
  // 2,000-post burst's creates in one run of npm run bench).
  const client = new DynamoDBClient({ endpoint: dynamodbEndpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 3 });
  const documents = DynamoDBDocumentClient.from(client);
  // The account store is imported only when first needed: after the caller set the environment.
  let directory: Promise<{ getAccount(id: string): Promise<{ sandbox?: SandboxBehaviour; sandboxXSubscription?: XSubscription } | null> }> | undefined;
  const account = async (accountId: string) => {
    directory ??= import('../../lib/store/dynamodb-account-store.js').then(
      (store) => new store.DynamoDbAccountStore({ tableName: directoryTable, client: documents }),
    );
    return (await directory).getAccount(accountId);
  };
  const read = async (accountId: string): Promise<SandboxBehaviour> => (await account(accountId))?.sandbox ?? 'ok';
  // Read each time (rare: X's users/me): an admin CLI `--x-subscription` is seen at once.
  const xSubscription = async (accountId: string): Promise<XSubscription> => (await account(accountId))?.sandboxXSubscription ?? 'None';
  return { accountBehaviour: sharedRecentReads(read, options.reuseMs ?? 0), xSubscription, close: () => client.destroy() };
}
