/**
 * API keys from settings (api-v1.md, Authentication): created with all four scopes (they cannot
 * be narrowed), the full key returned once and never stored (only the SHA-256 of its secret),
 * listed by public id with when each was created, last used and revoked, and revoked by their
 * owner only. A key id that is not the caller's answers exactly like one that does not exist.
 */
import { API_KEY_ID_LENGTH, generateApiKey } from '../../domain/api-key.js';
import { SCOPES, type ApiKeyRecord } from '../../domain/model.js';
import type { Caller } from '../../domain/caller.js';
import type { Clock } from '../ports/clock.js';
import type { ApiKeyStore, ApiKeySummary, ApiKeyUseReader } from './ports.js';

export interface ApiKeyRow extends ApiKeySummary {
  lastUsedAt: string | null;
}

export class ApiKeyNotFoundError extends Error {
  readonly code = 'api_key_not_found';
  constructor() {
    super('No such API key in this account');
    this.name = 'ApiKeyNotFoundError';
  }
}

/**
 * Active keys a user may have at once (settings): enough for a key per server and environment, few
 * enough that a script gone wrong cannot fill the directory. Revoking a key frees its place.
 */
export const MAX_ACTIVE_API_KEYS = 25;

/** The cap of active keys is reached: the page says so, nothing was created. */
export class ApiKeyLimitError extends Error {
  readonly code = 'api_key_limit_reached';
  constructor() {
    super(`You can have at most ${MAX_ACTIVE_API_KEYS} active API keys. Revoke one you no longer use to make another.`);
    this.name = 'ApiKeyLimitError';
  }
}

const KEY_ID = new RegExp(`^[0-9A-Za-z]{${API_KEY_ID_LENGTH}}$`);

export class ManageApiKeys {
  constructor(
    /** `uses` is built on first use: creating and revoking need no access to the counters table. */
    private readonly deps: { keys: ApiKeyStore; uses: () => ApiKeyUseReader; clock: Clock },
  ) {}

  async list(caller: Caller): Promise<ApiKeyRow[]> {
    const keys = await this.deps.keys.listApiKeys(caller.userId);
    const used = keys.length === 0 ? new Map<string, string>() : await this.deps.uses().lastUsed(keys.map((key) => key.id));
    return keys.map((key) => ({ ...key, lastUsedAt: used.get(key.id) ?? null }));
  }

  /** The full key is in the result only: shown once by the caller, then gone. */
  async create(caller: Caller): Promise<{ id: string; key: string; createdAt: string }> {
    const generated = generateApiKey();
    const record: ApiKeyRecord = {
      id: generated.id,
      userId: caller.userId,
      secretHash: generated.secretHash,
      scopes: [...SCOPES],
      createdAt: this.deps.clock.now().toISOString(),
      revokedAt: null,
    };
    // The cap is the write's own condition: concurrent creations can never pass it together.
    if (!(await this.deps.keys.putApiKeyWithinCap(record, MAX_ACTIVE_API_KEYS))) throw new ApiKeyLimitError();
    return { id: record.id, key: generated.key, createdAt: record.createdAt };
  }

  /** The caller's own key, not yet revoked: what the confirmation page shows. */
  async get(caller: Caller, keyId: string): Promise<ApiKeyRow> {
    const key = KEY_ID.test(keyId) ? (await this.list(caller)).find((candidate) => candidate.id === keyId) : undefined;
    if (!key) throw new ApiKeyNotFoundError();
    return key;
  }

  async revoke(caller: Caller, keyId: string): Promise<void> {
    if (!KEY_ID.test(keyId) || !(await this.deps.keys.revokeOwnedApiKey(caller.userId, keyId, this.deps.clock.now().toISOString()))) {
      throw new ApiKeyNotFoundError();
    }
  }
}
