/** POST /api/v1/posts: create posts (scope `write` for a draft, `publish` otherwise; checked by the use case). */
import { apiHandler } from '../lib/http/api-handler.js';
import { httpDependencies } from '../lib/http/http-dependencies.js';
import { idempotencyStore, mediaBaseUrl, postStore, publishDispatcher } from '../lib/post-dependencies.js';
import { CreatePosts } from '../lib/use-cases/create-posts.js';

let createPosts: CreatePosts | undefined;

export const handler = apiHandler(
  async (request, caller) => {
    const { directory, clock } = httpDependencies();
    createPosts ??= new CreatePosts({
      posts: postStore(),
      idempotency: idempotencyStore(),
      accounts: directory.accounts,
      workspaces: directory.workspaces,
      media: directory.media,
      dispatcher: publishDispatcher(),
      clock,
      mediaBaseUrl: mediaBaseUrl(),
    });
    return createPosts.execute(caller, request.body, request.headers['idempotency-key']);
  },
  { jsonBody: true },
);
