/**
 * What an assistant should do about each error a tool can return: the API's error codes
 * (api-v1.md, Errors) and rejection reasons, in one sentence each, so a tool error always ends
 * with a next step.
 */
const ADVICE: Record<string, string> = {
  insufficient_scope: 'this assistant was not allowed to do that; ask the person to connect the assistant again and approve the needed permission.',
  subscription_inactive: 'the person\'s plan is not active; they need to resolve it in settings.',
  invalid_body: 'fix the named field and call again.',
  accounts_required: 'pass accounts: an array of account ids from list_accounts.',
  too_many_accounts: 'send at most 25 accounts per call.',
  invalid_text: 'text must be a string.',
  invalid_texts: 'texts must map account ids (that are in accounts) to strings.',
  invalid_media: 'media must be an array of URLs from list_media.',
  media_not_hosted: 'use only URLs returned by list_media; the person uploads files in settings.',
  invalid_scheduled_for: 'give scheduledFor as an ISO 8601 time with a zone, e.g. 2026-12-01T09:00:00Z.',
  scheduled_for_in_past: 'choose a time in the future, or omit scheduledFor to publish now.',
  scheduled_for_too_far: 'choose a time at most 30 days ahead.',
  workspace_required: 'pass workspaceId (see list_accounts for each account\'s workspace).',
  workspace_not_found: 'use a workspaceId from list_accounts.',
  invalid_option: 'remove or fix the named option.',
  invalid_status: 'use draft, scheduled, published or failed.',
  invalid_limit: 'use a limit from 1 to 100.',
  invalid_cursor: 'pass nextCursor exactly as list_posts returned it, with the same status.',
  invalid_query: 'fix the named argument.',
  invalid_idempotency_key: 'use 1 to 255 printable ASCII characters without spaces, e.g. a UUID.',
  post_not_found: 'check the id with list_posts; a deleted post is gone.',
  post_not_editable: 'read the post with get_post: once it is being sent, published or failed it cannot change; delete it, or retry it when it failed retryably.',
  post_not_retryable: 'read the post with get_post: only a failed post whose error.retryable is true is sent again; otherwise follow its error.advice.',
  idempotency_in_flight: 'the first call with this key is still running; wait a moment and call again with the same key.',
  idempotency_key_reused: 'this key was used for different posts; use a new idempotencyKey for a new create.',
  rate_limit_burst: 'too many calls this minute; wait a minute and retry.',
  rate_limit_daily: 'the daily call budget is spent; retry tomorrow (UTC).',
  account_unresolved: 'use account ids from list_accounts.',
  platform_not_available: 'only linkedin and x accounts can be posted to.',
  text_empty: 'give text (or media) for every account.',
  text_too_long: 'shorten the text for that platform (see the preview\'s counts).',
  media_required: 'attach an image or video from list_media.',
  unsupported_media: 'attach only file types and counts the platform accepts.',
  video_too_long: 'use a shorter video.',
  invalid_thread: 'give x.thread 1 to 24 further parts, each with text (at most 280 as X counts) or media.',
  invalid_poll: 'give the poll 2 to 4 short choices and an allowed duration, without media.',
  invalid_document: 'attach exactly one PDF from list_media with options.linkedin.documentTitle, and nothing else.',
  invalid_first_comment: 'give a non-empty firstComment within the platform\'s length, and not together with a thread.',
  token_invalid: 'the person must reconnect that account in settings.',
  token_refresh_failed: 'the person must reconnect that account in settings.',
  quota_exceeded: 'the plan\'s monthly allowance is used up; the person can wait for the next month or change plan.',
  schedule_failed: 'create the post again with a new idempotencyKey.',
  no_targets_accepted: 'fix the reasons listed for each account and call again.',
};

export function adviceFor(code: string): string {
  return ADVICE[code] ?? 'check the message above, fix the call and try again.';
}
