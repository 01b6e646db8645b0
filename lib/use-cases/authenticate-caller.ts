/**
 * Turns a presented API key into the verified caller, or the 401 of api-v1.md (Authentication):
 * not shaped `ak_<id>_<secret>` gives api_key_malformed; no key with that id, or a secret whose
 * hash does not match (compared in constant time), gives api_key_unknown; a revoked key gives
 * api_key_revoked - said only to someone holding the right secret, so the answer reveals nothing
 * to a guesser.
 *
 * The key record and its user are kept in memory for at most 60 seconds (api-v1.md allows a
 * revoked key to keep working "briefly" on a server that used it within the last minute), which
 * saves two reads per request on a warm Lambda. Only keys that exist are kept, by key id; the
 * secret is checked against the stored hash on every request, so a wrong secret never rides on
 * a cached success.
 */
import { parseApiKey, secretMatches } from '../domain/api-key.js';
import { ApiError } from '../domain/errors.js';
import type { ApiKeyRecord, User } from '../domain/model.js';
import type { Caller } from '../domain/caller.js';
import type { ApiKeyReader } from './ports/api-keys.js';
import type { Clock } from './ports/clock.js';
import type { UserReader } from './ports/users.js';

/** api-v1.md: a revoked key may live on for at most a minute. */
export const MAX_KEY_CACHE_SECONDS = 60;

interface KeyEntry {
  key: ApiKeyRecord;
  user: User;
}

interface CacheSlot {
  /** Shared by concurrent requests of the same key, so a cold start reads the key once. */
  entry: Promise<KeyEntry | null>;
  expiresAtMs: number;
}

export interface CallerAuthenticatorOptions {
  keys: ApiKeyReader;
  users: UserReader;
  clock: Clock;
  /** Clamped to 0..60. 0 disables the cache. */
  cacheSeconds: number;
  /** Bound on memory; the oldest entry goes first. Only real keys are ever cached, so this is generous. */
  maxEntries?: number;
  /** Records each verified key's use for the settings page (at most once per key per hour; lib/store/dynamodb-key-use-store.ts). */
  useRecorder?: { recordUse(keyId: string, now: Date): Promise<void> };
}

export class CallerAuthenticator {
  private readonly cache = new Map<string, CacheSlot>();
  private readonly cacheMs: number;
  private readonly maxEntries: number;

  constructor(private readonly options: CallerAuthenticatorOptions) {
    const seconds = Number.isFinite(options.cacheSeconds) ? options.cacheSeconds : MAX_KEY_CACHE_SECONDS;
    this.cacheMs = Math.min(MAX_KEY_CACHE_SECONDS, Math.max(0, seconds)) * 1000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** `presentedKey` is the token of the Bearer header, already known to be non-empty. */
  async authenticate(presentedKey: string): Promise<Caller> {
    const parsed = parseApiKey(presentedKey);
    if (!parsed) {
      throw new ApiError('api_key_malformed', 'The API key is not shaped like a key of this service (ak_<id>_<secret>).');
    }
    const entry = await this.lookup(parsed.id);
    if (!entry || !secretMatches(parsed.secret, entry.key.secretHash)) {
      throw new ApiError('api_key_unknown', 'No API key matches this id and secret.');
    }
    if (entry.key.revokedAt !== null) {
      throw new ApiError('api_key_revoked', 'This API key has been revoked. Create a new key in account settings.');
    }
    if (this.options.useRecorder) {
      // "Last used" is informational: a failed write never fails the request.
      await this.options.useRecorder.recordUse(entry.key.id, this.options.clock.now()).catch(() => undefined);
    }
    return { userId: entry.user.id, keyId: entry.key.id, scopes: [...entry.key.scopes], user: entry.user };
  }

  private lookup(keyId: string): Promise<KeyEntry | null> {
    const nowMs = this.options.clock.now().getTime();
    const cached = this.cache.get(keyId);
    if (cached && cached.expiresAtMs > nowMs) return cached.entry;
    if (cached) this.cache.delete(keyId);
    const entry = this.read(keyId);
    if (this.cacheMs === 0) return entry;
    const slot: CacheSlot = { entry, expiresAtMs: nowMs + this.cacheMs };
    this.cache.set(keyId, slot);
    if (this.cache.size > this.maxEntries) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    // Keep positive answers only: an unknown id, or a failed read, is asked again next time.
    const forget = (): void => {
      if (this.cache.get(keyId) === slot) this.cache.delete(keyId);
    };
    entry.then((found) => (found ? undefined : forget()), forget);
    return entry;
  }

  private async read(keyId: string): Promise<KeyEntry | null> {
    const key = await this.options.keys.getApiKey(keyId);
    if (!key) return null;
    const user = await this.options.users.getUser(key.userId);
    // A key whose user no longer exists authenticates no one.
    if (!user) return null;
    return { key, user };
  }
}
