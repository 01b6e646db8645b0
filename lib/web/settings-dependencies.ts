/** Use cases of the settings pages, each built once per cold start from only the stores it uses. */
import { DynamoDbApiKeyStore } from '../store/dynamodb-api-key-store.js';
import { DynamoDbKeyUseStore } from '../store/dynamodb-key-use-store.js';
import { ApiKeyNotFoundError, ManageApiKeys } from '../use-cases/settings/api-keys.js';
import { directoryStore, webClock } from './web-dependencies.js';
import { notFound } from './web-errors.js';

let apiKeys: ManageApiKeys | undefined;

export function manageApiKeys(): ManageApiKeys {
  apiKeys ??= new ManageApiKeys({ keys: new DynamoDbApiKeyStore(), uses: new DynamoDbKeyUseStore(), writer: directoryStore(), clock: webClock });
  return apiKeys;
}

/** A use case's "not yours or not there" as the 404 page. */
export async function orNotFound<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiKeyNotFoundError || (error as { code?: string }).code?.endsWith('_not_found')) throw notFound(what);
    throw error;
  }
}
