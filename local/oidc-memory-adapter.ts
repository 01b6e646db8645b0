/**
 * Where the local OpenID provider (local/oidc-provider.ts) keeps its sessions, interactions,
 * grants and codes: this process's memory, on purpose. It stands in for Cognito on a developer's
 * machine; its signing keys are new at every start anyway, so nothing it issued could outlive a
 * restart, and the settings app keeps its own session (a restart signs nobody out of settings).
 *
 * oidc-provider's built-in memory adapter does the same but warns at every start that it "MUST"
 * be changed, which is right for a real provider and noise here; this one is ours and says why.
 * It is the adapter interface of oidc-provider's documentation: upsert / find / findByUid /
 * findByUserCode / consume / destroy / revokeByGrantId, with each entry's expiry honoured.
 * Entries per model are bounded (oldest first out), so a loop of sign-in attempts cannot grow it
 * without end.
 */
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

const MAX_ENTRIES_PER_MODEL = 10_000;

interface Entry {
  payload: AdapterPayload;
  /** Epoch ms, or Infinity for an entry without expiry. */
  expiresAt: number;
}

/** One store per provider: models by name, each a Map kept in insertion order (oldest first). */
export function memoryAdapter(now: () => number = Date.now): AdapterFactory {
  const models = new Map<string, Map<string, Entry>>();
  const modelStore = (name: string): Map<string, Entry> => {
    let store = models.get(name);
    if (!store) {
      store = new Map();
      models.set(name, store);
    }
    return store;
  };

  return (name: string): Adapter => {
    const store = modelStore(name);
    const live = (id: string): Entry | undefined => {
      const entry = store.get(id);
      if (entry && entry.expiresAt <= now()) {
        store.delete(id);
        return undefined;
      }
      return entry;
    };
    const findWhere = (match: (payload: AdapterPayload) => boolean): AdapterPayload | undefined => {
      for (const [id, entry] of store) {
        if (match(entry.payload)) return live(id)?.payload;
      }
      return undefined;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        store.delete(id);
        store.set(id, { payload, expiresAt: typeof expiresIn === 'number' ? now() + expiresIn * 1000 : Infinity });
        for (const oldest of store.keys()) {
          if (store.size <= MAX_ENTRIES_PER_MODEL) break;
          store.delete(oldest);
        }
      },
      find: async (id) => live(id)?.payload,
      findByUid: async (uid) => findWhere((payload) => payload.uid === uid),
      findByUserCode: async (userCode) => findWhere((payload) => payload.userCode === userCode),
      consume: async (id) => {
        const entry = live(id);
        if (entry) entry.payload = { ...entry.payload, consumed: Math.floor(now() / 1000) };
      },
      destroy: async (id) => {
        store.delete(id);
      },
      revokeByGrantId: async (grantId) => {
        // A grant's tokens and codes live in other models than the one asked.
        for (const other of models.values()) {
          for (const [id, entry] of other) if (entry.payload.grantId === grantId) other.delete(id);
        }
      },
    };
  };
}
