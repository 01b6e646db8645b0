/**
 * GET /settings/posts: the caller's posts through the API's own list use case (same scoping,
 * same status filter, same signed cursor), with the accounts' names beside them.
 */
import { ApiError } from '../../lib/domain/errors.js';
import { ENV } from '../../lib/config.js';
import { readSecret } from '../../lib/secrets.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbPostMetrics } from '../../lib/store/dynamodb-post-metrics.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { ListPosts, parseListPostsQuery } from '../../lib/use-cases/list-posts.js';
import { postsPage } from '../../lib/web/pages/posts-page.js';
import { directoryTable } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { badRequest } from '../../lib/web/web-errors.js';

/** What the Cancel, Send now and Retry buttons say once done (they redirect here with `done`). */
const DONE_NOTICES: Readonly<Record<string, string>> = {
  cancelled: 'Post cancelled: it will not go out, and its allowance unit is back.',
  sent: 'Post sent: it goes out now.',
  retried: 'Post sent again: it goes out now under the same id.',
};

let listPosts: ListPosts | undefined;
let accounts: DynamoDbAccountStore | undefined;

export const handler = signedInHandler(async (request, signedIn) => {
  const raw: Record<string, string> = {};
  if (request.query.status) raw.status = request.query.status;
  if (request.query.cursor) raw.cursor = request.query.cursor;
  listPosts ??= new ListPosts({ posts: new DynamoDbPostStore(), metrics: new DynamoDbPostMetrics(), cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId) });
  let list;
  try {
    list = await listPosts.execute(signedIn.caller, parseListPostsQuery(raw));
  } catch (error) {
    // invalid_status / invalid_cursor: the link was edited or is from another list.
    if (error instanceof ApiError && error.status === 400) throw badRequest(`${error.message} Start again from the Posts page.`);
    throw error;
  }
  accounts ??= new DynamoDbAccountStore(directoryTable());
  const byId = await accounts.getAccounts([...new Set(list.posts.map((post) => post.accountId))]);
  // Own keys only: `done=constructor` must not find Object's.
  const done = request.query.done ?? '';
  const notice = Object.hasOwn(DONE_NOTICES, done) ? DONE_NOTICES[done] : undefined;
  return {
    kind: 'page',
    title: 'Posts',
    body: postsPage({
      posts: list.posts,
      accounts: byId,
      status: raw.status ?? null,
      nextCursor: list.nextCursor,
      csrfToken: signedIn.session.csrfToken,
      ...(notice ? { notice: { text: notice } } : {}),
    }),
  };
});
