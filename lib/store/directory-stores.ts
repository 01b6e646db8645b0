/**
 * Every record store of the directory table over one table handle, for the code that touches all
 * of them (admin CLI, demo seed, tests' provisioning). A function builds only the stores it uses.
 */
import { DynamoDbAccountStore } from './dynamodb-account-store.js';
import { DynamoDbApiKeyStore } from './dynamodb-api-key-store.js';
import { DynamoDbMediaStore } from './dynamodb-media-store.js';
import { DynamoDbUserStore } from './dynamodb-user-store.js';
import { DynamoDbWorkspaceStore } from './dynamodb-workspace-store.js';
import { DirectoryTable, type DirectoryTableOptions } from './directory-table.js';

export interface DirectoryStores {
  users: DynamoDbUserStore;
  workspaces: DynamoDbWorkspaceStore;
  accounts: DynamoDbAccountStore;
  apiKeys: DynamoDbApiKeyStore;
  media: DynamoDbMediaStore;
}

export function directoryStores(options: DirectoryTableOptions = {}): DirectoryStores {
  const table = new DirectoryTable(options);
  return {
    users: new DynamoDbUserStore(table),
    workspaces: new DynamoDbWorkspaceStore(table),
    accounts: new DynamoDbAccountStore(table),
    apiKeys: new DynamoDbApiKeyStore(table),
    media: new DynamoDbMediaStore(table),
  };
}
