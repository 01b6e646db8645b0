/**
 * GET /settings/posts: the caller's posts through the API's own list use case (same scoping,
 * same status filter, same signed cursor), with the accounts' names beside them.
 */
import { ApiError } from '../../lib/domain/errors.js';
import { ENV } from '../../lib/config.js';
import { readSecret } from '../../lib/secrets.js';
import { DynamoDbAccountStore } from '../../lib/store/dynamodb-account-store.js';
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import { ListPosts, parseListPostsQuery } from '../../lib/use-cases/list-posts.js';
import { postsPage } from '../../lib/web/pages/posts-page.js';
import { directoryTable } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { badRequest } from '../../lib/web/web-errors.js';

let listPosts: ListPosts | undefined;
let accounts: DynamoDbAccountStore | undefined;

export const handler = signedInHandler(async (request, signedIn) => {
  const raw: Record<string, string> = {};
  if (request.query.status) raw.status = request.query.status;
  if (request.query.cursor) raw.cursor = request.query.cursor;
  listPosts ??= new ListPosts({ posts: new DynamoDbPostStore(), cursorSigningKey: () => readSecret(ENV.cursorSigningKey, ENV.cursorSigningKeySecretId) });
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
  const cancelled = request.query.done === 'cancelled';
  return {
    kind: 'page',
    title: 'Posts',
    body: postsPage({
      posts: list.posts,
      accounts: byId,
      status: raw.status ?? null,
      nextCursor: list.nextCursor,
      csrfToken: signedIn.session.csrfToken,
      ...(cancelled ? { notice: { text: 'Post cancelled: it will not go out, and its allowance unit is back.' } } : {}),
    }),
  };
});
