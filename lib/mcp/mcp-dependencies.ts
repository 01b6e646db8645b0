/**
 * The use cases behind the MCP tools, built once per cold start from the same adapters the API's
 * functions use (lib/post-dependencies.ts, lib/http/http-dependencies.ts), so a tool and its API
 * route run the very same code on the very same stores.
 */
import type { MediaItem } from '../domain/model.js';
import { httpDependencies } from '../http/http-dependencies.js';
import { oauthUrls, tokenService } from '../oauth/oauth-dependencies.js';
import {
  cursorSigningKey,
  idempotencyStore,
  mediaBaseUrl,
  platformDeletionQueue,
  postStore,
  publishDispatcher,
  scheduleCanceller,
} from '../post-dependencies.js';
import { CreatePosts } from '../use-cases/create-posts.js';
import { DeletePost } from '../use-cases/delete-post.js';
import { GetPost } from '../use-cases/get-post.js';
import { ListAccounts } from '../use-cases/list-accounts.js';
import { ListPosts } from '../use-cases/list-posts.js';
import { PreviewPosts } from '../use-cases/preview-posts.js';
import type { McpEndpointDeps } from './mcp-endpoint.js';

/**
 * Where a person sees a post in settings, and cancels it while it is scheduled: its row on the
 * Posts page (newest first, so a post an assistant just created is on the first page).
 */
export function postSettingsUrl(origin: string, post: { id: string }): string {
  return `${origin}/settings/posts#${encodeURIComponent(post.id)}`;
}

let deps: McpEndpointDeps | undefined;

export function mcpDependencies(listMedia: (userId: string) => Promise<MediaItem[]>): McpEndpointDeps {
  if (deps) return deps;
  const http = httpDependencies();
  const { directory, clock } = http;
  const urls = oauthUrls();
  const reads = { accounts: directory, workspaces: directory, media: directory, mediaBaseUrl: mediaBaseUrl() };
  deps = {
    tokens: tokenService(directory),
    limiter: http.rateLimiter,
    clock,
    perMinute: http.limits.perMinute,
    urls,
    tools: {
      listAccounts: new ListAccounts({ accounts: directory, workspaces: directory }),
      listPosts: new ListPosts({ posts: postStore(), cursorSigningKey }),
      getPost: new GetPost({ posts: postStore() }),
      createPosts: new CreatePosts({
        ...reads,
        posts: postStore(),
        idempotency: idempotencyStore(),
        dispatcher: publishDispatcher(),
        clock,
      }),
      previewPosts: new PreviewPosts({ ...reads, clock }),
      deletePost: new DeletePost({ posts: postStore(), dispatcher: scheduleCanceller(), deletionQueue: platformDeletionQueue(), clock }),
      listMedia,
      postSettingsUrl: (post) => postSettingsUrl(urls.origin, post),
    },
  };
  return deps;
}
