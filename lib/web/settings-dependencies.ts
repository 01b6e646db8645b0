/** Use cases of the settings pages, each built once per cold start from only the stores it uses. */
import { DynamoDbApiKeyStore } from '../store/dynamodb-api-key-store.js';
import { DynamoDbKeyUseStore } from '../store/dynamodb-key-use-store.js';
import { DynamoDbAccountStore } from '../store/dynamodb-account-store.js';
import { DynamoDbWorkspaceStore } from '../store/dynamodb-workspace-store.js';
import { ApiKeyNotFoundError, ManageApiKeys } from '../use-cases/settings/api-keys.js';
import { ManageWorkspaces, SettingsRecordNotFoundError } from '../use-cases/settings/workspaces.js';
import { directoryStore, webClock } from './web-dependencies.js';
import { notFound } from './web-errors.js';

let apiKeys: ManageApiKeys | undefined;
let workspaces: ManageWorkspaces | undefined;

export function manageWorkspaces(): ManageWorkspaces {
  workspaces ??= new ManageWorkspaces({
    workspaces: new DynamoDbWorkspaceStore(),
    accounts: directoryStore(),
    disconnect: new DynamoDbAccountStore(),
    writer: directoryStore(),
    clock: webClock,
  });
  return workspaces;
}

export function manageApiKeys(): ManageApiKeys {
  let uses: DynamoDbKeyUseStore | undefined;
  apiKeys ??= new ManageApiKeys({ keys: new DynamoDbApiKeyStore(), uses: () => (uses ??= new DynamoDbKeyUseStore()), writer: directoryStore(), clock: webClock });
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
