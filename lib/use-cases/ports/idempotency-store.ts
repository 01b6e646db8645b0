import type { IdempotencyClaim, IdempotencyLock } from '../../domain/idempotency-record.js';

export interface IdempotencyStore {
  /** One conditional write: claims the key, or says why not (with the remembered response to replay). */
  claim(userId: string, key: string, bodyHash: string, now: Date): Promise<IdempotencyClaim>;
  /** Forgets the record of a request that was refused, so the key can be used again. */
  release(lock: IdempotencyLock): Promise<void>;
}
