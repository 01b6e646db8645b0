import type { ApiKeyRecord } from '../../domain/model.js';

export interface ApiKeyReader {
  getApiKey(keyId: string): Promise<ApiKeyRecord | null>;
}

/** Writes of the account-settings stand-in (admin CLI, demo seed, tests' provisioning). */
export interface ApiKeyAdmin {
  putApiKey(key: ApiKeyRecord): Promise<void>;
  /** Returns the key's effective revokedAt: revoking twice keeps the first time. */
  revokeApiKey(keyId: string, revokedAt: string): Promise<string>;
}
