/**
 * The publish worker's account reads, shared: a read of an account that is already being read
 * waits for that request instead of sending its own (shared-in-flight.ts), and a read that
 * finished less than ACCOUNT_READ_REUSE_MS ago is used again.
 *
 * Why: the worker prepares the posts of a burst together, and many of them are for the same few
 * accounts (a create fans out to up to 25). Each asking alone would add one strongly consistent
 * Query per post to what a burst due at one second waits for. Sharing only reads in flight was
 * not enough: a burst's claims finish one after another over a second or more, so each account
 * was still read a dozen times (330 Queries for 500 posts on 25 accounts, npm run bench `burst`);
 * reused for a second, it is read about once.
 *
 * Why a second old is fresh enough: a prepared post is sent up to MAX_PREPARE_WINDOW_MS after its
 * account was read anyway, so an account read a second earlier changes nothing a post could not
 * already meet; and a token refreshed meanwhile by another post is found by AccessTokens, which
 * refreshes only over the credentials' stored revision and otherwise uses the stored token
 * (lib/use-cases/access-tokens.ts). Results are shared objects and are only read (tokens are
 * refreshed into new objects). A failed read is never reused.
 */
import type { AccountWithCredentialsReader } from './ports/accounts.js';
import { sharedRecentReads } from './shared-in-flight.js';

/** How long a finished account read is used again by the posts prepared after it. */
export const ACCOUNT_READ_REUSE_MS = 1_000;

export function sharingAccountReads(reader: AccountWithCredentialsReader, now: () => number = Date.now): AccountWithCredentialsReader {
  return { getAccountWithCredentials: sharedRecentReads((accountId) => reader.getAccountWithCredentials(accountId), ACCOUNT_READ_REUSE_MS, now) };
}
