/** Use cases of the settings pages, each built once per cold start from only the stores it uses. */
import { DynamoDbApiKeyStore } from '../store/dynamodb-api-key-store.js';
import { DynamoDbKeyUseStore } from '../store/dynamodb-key-use-store.js';
import { DynamoDbAccountStore } from '../store/dynamodb-account-store.js';
import { DynamoDbWorkspaceStore } from '../store/dynamodb-workspace-store.js';
import { ApiKeyNotFoundError, ManageApiKeys } from '../use-cases/settings/api-keys.js';
import { ManageWorkspaces, SettingsRecordNotFoundError } from '../use-cases/settings/workspaces.js';
import { directoryTable, webClock } from './web-dependencies.js';
import { notFound } from './web-errors.js';

let apiKeys: ManageApiKeys | undefined;
let workspaces: ManageWorkspaces | undefined;

export function manageWorkspaces(): ManageWorkspaces {
  const workspaceStore = new DynamoDbWorkspaceStore(directoryTable());
  const accountStore = new DynamoDbAccountStore(directoryTable());
  workspaces ??= new ManageWorkspaces({ workspaces: workspaceStore, accounts: accountStore, disconnect: accountStore, writer: workspaceStore, clock: webClock });
  return workspaces;
}

export function manageApiKeys(): ManageApiKeys {
  let uses: DynamoDbKeyUseStore | undefined;
  const keys = new DynamoDbApiKeyStore(directoryTable());
  apiKeys ??= new ManageApiKeys({ keys, uses: () => (uses ??= new DynamoDbKeyUseStore()), clock: webClock });
  return apiKeys;
}

/** A use case's "not yours or not there" as the 404 page. */
export async function orNotFound<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiKeyNotFoundError || error instanceof SettingsRecordNotFoundError) throw notFound(what);
    throw error;
  }
}
