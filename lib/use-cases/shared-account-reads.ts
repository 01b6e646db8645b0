/**
 * The publish worker's account reads, shared while in flight (shared-in-flight.ts): a read of an
 * account that is already being read waits for that request instead of sending its own.
 *
 * Why: the worker prepares the posts of a burst together, and many of them are for the same few
 * accounts (a create fans out to up to 25). Each asking alone would add one strongly consistent
 * Query per post to what a burst due at one second waits for; shared, it is one per account.
 * Results are shared objects and are only read (tokens are refreshed into new objects,
 * lib/use-cases/access-tokens.ts).
 */
import type { AccountWithCredentialsReader } from './ports/accounts.js';
import { sharedInFlight } from './shared-in-flight.js';

export function sharingAccountReads(reader: AccountWithCredentialsReader): AccountWithCredentialsReader {
  return { getAccountWithCredentials: sharedInFlight((accountId) => reader.getAccountWithCredentials(accountId)) };
}
