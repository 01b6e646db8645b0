/**
 * The publish worker's account reads, shared while in flight: a read of an account that is
 * already being read waits for that request instead of sending its own. Nothing is cached: a read
 * asked after the last one finished goes to the store again, so a result is never older than one
 * round trip that began before it was asked.
 *
 * Why: the worker prepares the posts of a burst together, and many of them are for the same few
 * accounts (a create fans out to up to 25). Each asking alone would add one strongly consistent
 * Query per post to what a burst due at one second waits for; shared, it is one per account.
 * Results are shared objects and are only read (tokens are refreshed into new objects,
 * lib/use-cases/access-tokens.ts).
 */
import type { AccountWithCredentialsReader } from './ports/accounts.js';

type AccountWithCredentials = Awaited<ReturnType<AccountWithCredentialsReader['getAccountWithCredentials']>>;

export function sharingAccountReads(reader: AccountWithCredentialsReader): AccountWithCredentialsReader {
  const inFlight = new Map<string, Promise<AccountWithCredentials>>();
  return {
    getAccountWithCredentials(accountId: string): Promise<AccountWithCredentials> {
      const pending = inFlight.get(accountId);
      if (pending) return pending;
      const read = reader.getAccountWithCredentials(accountId).finally(() => inFlight.delete(accountId));
      inFlight.set(accountId, read);
      return read;
    },
  };
}
