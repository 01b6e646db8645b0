/**
 * The assistant server's tools, registered on a fresh McpServer for one verified caller (the
 * server is stateless: one per request). Each tool calls the same use case as the API route it
 * mirrors, with the same Caller, so scopes, tenant scoping, per-target rules, allowance and
 * idempotency are the API's own. An ApiError becomes a tool error (`isError: true`) whose text
 * gives the code, what went wrong and what to do; anything else is logged and answered with a
 * generic text that says nothing internal.
 *
 * create_posts is the one that acts, and it is built not to surprise: without `confirm: true` it
 * only previews (PreviewPosts writes nothing); with it, it creates through CreatePosts with the
 * caller's idempotency key, so a retried call replays the first answer instead of posting again.
 * update_post, publish_draft and retry_post (the post lifecycle) act the same way: a preview that
 * changes nothing (the use case's every check, no write), then the change with confirm: true.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../domain/errors.js';
import type { Scope } from '../domain/model.js';
import type { MediaView } from '../domain/views/media-view.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseListMediaQuery, type MediaFiles } from '../use-cases/media-files.js';
import { requireScope } from '../domain/scopes.js';
import type { PostView } from '../domain/views/post-view.js';
import { logger } from '../observability.js';
import type { Caller } from '../domain/caller.js';
import type { CreatePosts, PostBatch } from '../use-cases/create-posts.js';
import type { DeletePost } from '../use-cases/delete-post.js';
import { parseListEventsQuery, type Events } from '../use-cases/events.js';
import type { GetPost } from '../use-cases/get-post.js';
import { parseListAccountsQuery, type ListAccounts } from '../use-cases/list-accounts.js';
import { parseListPostsQuery, type ListPosts } from '../use-cases/list-posts.js';
import type { PreviewLine, PreviewPosts } from '../use-cases/preview-posts.js';
import type { GetAnalytics, GetPostMetrics } from '../use-cases/post-metrics.js';
import type { PublishDraft } from '../use-cases/publish-draft.js';
import type { RetryPost } from '../use-cases/retry-post.js';
import type { UpdatePost } from '../use-cases/update-post.js';
import type { AccountQueues } from '../use-cases/queues.js';
import { adviceFor } from './tool-errors.js';
import * as schema from './tool-schemas.js';

export interface McpToolDeps {
  listAccounts: ListAccounts;
  listPosts: ListPosts;
  /** The person's events of the last 30 days, as GET /events. */
  events: Events;
  getPost: GetPost;
  createPosts: CreatePosts;
  previewPosts: PreviewPosts;
  deletePost: DeletePost;
  updatePost: UpdatePost;
  publishDraft: PublishDraft;
  retryPost: RetryPost;
  /** Each account's queue (posting times). */
  queues: AccountQueues;
  getPostMetrics: GetPostMetrics;
  getAnalytics: GetAnalytics;
  /** The caller's media library, as /media: a list page, one media, an import. */
  media: Pick<MediaFiles, 'list' | 'get' | 'create'>;
  /** Where a person sees (and can cancel) a post in settings. */
  postSettingsUrl: (post: { id: string; campaignId: string }) => string;
}

type Structured = Record<string, unknown>;

/** import_media waits this long by default for the import to settle (an assistant's call should answer within seconds). */
const DEFAULT_IMPORT_WAIT_SECONDS = 10;
const IMPORT_POLL_MS = 500;

function ok(structured: Structured, summary: string): CallToolResult {
  return { content: [{ type: 'text', text: `${summary}\n${JSON.stringify(structured, null, 2)}` }], structuredContent: structured };
}

function toolError(error: unknown): CallToolResult {
  if (error instanceof ApiError) {
    const posts = (error.extraBody?.posts ?? null) as PostBatch['posts'] | null;
    const lines = posts ? `\n${posts.map((post) => `- ${post.accountId}: ${post.reason ?? post.status} — ${post.message ?? ''}`).join('\n')}` : '';
    return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}${lines}\nWhat to do: ${adviceFor(error.code)}` }] };
  }
  logger.error('MCP tool failed', { error: error instanceof Error ? error : String(error) });
  return {
    isError: true,
    content: [{ type: 'text', text: 'internal_error: Something failed on our side. What to do: retry in a moment (a create with the same idempotencyKey never posts twice).' }],
  };
}

/** Drops undefined fields, so the use cases see exactly what the assistant sent. */
/** A preview line's format in words (nothing for a plain text post). */
function formatNote(line: PreviewLine): string {
  const format = line.format === 'thread' ? `, a thread of ${line.parts ?? 1} posts` : line.format === 'poll' || line.format === 'document' ? `, a ${line.format} post` : '';
  return `${format}${line.firstComment === true ? ', then a first comment' : ''}${renderingNote(line)}`;
}

/** How a LinkedIn text will render, in words, so the person sees hashtags and mentions before agreeing. */
function renderingNote(line: PreviewLine): string {
  const rendering = line.rendering;
  if (rendering === null) return '';
  const hashtags = rendering.hashtags.length > 0 ? rendering.hashtags.map((tag) => `#${tag}`).join(' ') : 'none';
  const mentions = rendering.mentions.length > 0 ? rendering.mentions.map((mention) => `${mention.name} (${mention.urn})`).join(', ') : 'none';
  return `; on LinkedIn: hashtags ${hashtags}; mentions ${mentions}; a reader sees: ${JSON.stringify(rendering.displayText)}`;
}

function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

function asQuery(record: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(defined(record)).map(([name, value]) => [name, String(value)]));
}

/**
 * The scope each tool needs, from its arguments: the API route's own rule (create_posts as
 * POST /posts: `write` for drafts, `publish` otherwise, for the preview too). The MCP endpoint reads
 * this before the SDK runs a tools/call, so a missing scope is an HTTP 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope"` the client can step up from (MCP
 * authorization 2025-11-25, "Scope challenge handling"); each tool checks it again itself.
 * A new tool adds its row here.
 */
export const TOOL_SCOPES: Readonly<Record<string, (args: Record<string, unknown>) => Scope>> = {
  list_accounts: () => 'read',
  list_posts: () => 'read',
  get_post: () => 'read',
  list_events: () => 'read',
  create_posts: (args) => (args.draft === true ? 'write' : 'publish'),
  delete_post: () => 'write',
  list_media: () => 'read',
  // As POST /media: adding a file to the library needs the media scope.
  import_media: () => 'media',
  // As PATCH /posts/{id}, publish and retry: changing a post needs write; sending one, publish.
  update_post: () => 'write',
  publish_draft: () => 'publish',
  retry_post: () => 'publish',
  // As GET and PUT /accounts/{id}/queue.
  get_queue: () => 'read',
  set_queue: () => 'write',
  // As GET /posts/{id}/metrics, its refresh and GET /analytics: reads.
  get_post_metrics: () => 'read',
  get_analytics: () => 'read',
};

/** The scope a tools/call needs, or null for a tool this server does not have (the SDK answers that). */
export function toolScope(name: string, args: Record<string, unknown>): Scope | null {
  return Object.hasOwn(TOOL_SCOPES, name) ? (TOOL_SCOPES[name]?.(args) ?? null) : null;
}

export function registerTools(server: McpServer, caller: Caller, deps: McpToolDeps): void {
  const run = async (tool: string, args: Record<string, unknown>, action: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      if (!caller.user.active) throw new ApiError('subscription_inactive', 'The account behind this assistant has no active subscription.');
      const scope = toolScope(tool, args);
      if (scope) requireScope(caller, scope);
      return await action();
    } catch (error) {
      return toolError(error);
    }
  };
  const withLink = (post: PostView) => ({ ...post, settingsUrl: deps.postSettingsUrl(post) });

  server.registerTool(
    'list_accounts',
    {
      title: 'List connected accounts',
      description: 'The social accounts the person connected (LinkedIn, X, ...). Use their ids as create_posts targets; only healthy linkedin and x accounts can be posted to.',
      inputSchema: schema.listAccountsInput,
      outputSchema: schema.listAccountsOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      run('list_accounts', args, async () => {
        const { accounts } = await deps.listAccounts.execute(caller, parseListAccountsQuery(asQuery(args)));
        return ok({ accounts }, `${accounts.length} connected account(s).`);
      }),
  );

  server.registerTool(
    'list_posts',
    {
      title: 'List posts',
      description: 'The person\'s posts, newest first, optionally of one status; page with nextCursor.',
      inputSchema: schema.listPostsInput,
      outputSchema: schema.listPostsOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      run('list_posts', args, async () => {
        const list = await deps.listPosts.execute(caller, parseListPostsQuery(asQuery(args)));
        return ok({ posts: list.posts.map(withLink), nextCursor: list.nextCursor }, `${list.posts.length} post(s)${list.nextCursor ? '; more with nextCursor' : ''}.`);
      }),
  );

  server.registerTool(
    'list_events',
    {
      title: 'List events',
      description:
        'What happened to the person\'s posts and accounts in the last 30 days (post.published, post.failed, account.connected, ...), newest first; type filters one type or a group (post.*); page with nextCursor.',
      inputSchema: schema.listEventsInput,
      outputSchema: schema.listEventsOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      run('list_events', args, async () => {
        const list = await deps.events.list(caller, parseListEventsQuery(asQuery(args)));
        return ok({ events: list.events, nextCursor: list.nextCursor }, `${list.events.length} event(s)${list.nextCursor ? '; more with nextCursor' : ''}.`);
      }),
  );

  server.registerTool(
    'get_post',
    {
      title: 'Get a post',
      description: 'One post and its outcome: poll it after create_posts until status is published or failed (error.advice says what to do).',
      inputSchema: schema.getPostInput,
      outputSchema: schema.getPostOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ id }) =>
      run('get_post', { id }, async () => {
        const post = withLink(await deps.getPost.execute(caller, id));
        return ok({ post }, `Post ${post.id} on ${post.platform} is ${post.status}${post.publishedUrl ? `: ${post.publishedUrl}` : ''}.`);
      }),
  );

  server.registerTool(
    'get_post_metrics',
    {
      title: 'Get a post\'s metrics',
      description:
        'How a published post did: impressions, likes, comments, reposts, quotes, bookmarks, link clicks (null where the platform does not give a figure, never 0) and their history. Collected by itself about 1 h, 6 h, 24 h, 3 d, 7 d and 30 d after publishing (the API POST /posts/{id}/metrics/refresh collects one now).',
      inputSchema: schema.getPostMetricsInput,
      outputSchema: schema.getPostMetricsOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ id }) =>
      run('get_post_metrics', { id }, async () => {
        const view = await deps.getPostMetrics.execute(caller, id);
        const { object: _object, ...metrics } = view;
        const summary = view.metrics ? `Post ${view.postId}: ${view.metrics.impressions ?? 'no'} impressions, ${view.metrics.likes ?? 'no'} likes at ${view.metrics.collectedAt}.` : `Post ${view.postId} has no metrics yet (collected about an hour after it is published).`;
        return ok(metrics, summary);
      }),
  );

  server.registerTool(
    'get_analytics',
    {
      title: 'Get analytics over a period',
      description: 'Totals, per account and the top 10 posts by impressions over the posts published in [from, to) (at most 92 days), optionally of one account or campaign. Each total is the sum of its posts\' latest figures.',
      inputSchema: schema.getAnalyticsInput,
      outputSchema: schema.getAnalyticsOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      run('get_analytics', args, async () => {
        const view = await deps.getAnalytics.execute(caller, defined(args) as { from?: string; to?: string; accountId?: string; campaignId?: string });
        const { from, to, totals, byAccount, topPosts } = view;
        return ok({ from, to, totals, byAccount, topPosts }, `${totals.posts} post(s) published from ${from} to ${to}: ${totals.impressions ?? 'no'} impressions.`);
      }),
  );

  server.registerTool(
    'create_posts',
    {
      title: 'Create posts (preview first)',
      description:
        'Creates one post per account. Without confirm it only PREVIEWS (nothing is written): show the preview to the person, and call again with confirm: true and the SAME idempotencyKey only after they agree. Each created post links to settings, where the person can see and cancel it.',
      inputSchema: schema.createPostsInput,
      outputSchema: schema.createPostsOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ idempotencyKey, confirm, ...fields }) =>
      run('create_posts', fields, async () => {
        const body = defined(fields);
        if (confirm !== true) {
          const preview = await deps.previewPosts.execute(caller, body);
          const lines = preview.targets.map((line) =>
            line.verdict === 'accepted'
              ? `- ${line.accountId} (${line.platform} ${line.handle}): accepted, ${line.textLength}/${line.maxTextLength} characters${formatNote(line)}${preview.publishAt === null && line.scheduledFor !== null ? `, at ${line.scheduledFor}` : ''}`
              : `- ${line.accountId}: rejected (${line.reason}) ${line.message}`,
          );
          const when = preview.draft
            ? 'saved as drafts'
            : preview.publishAt === null
              ? "published, each at its account's next free queue slot"
              : `published at ${preview.publishAt}`;
          return ok(
            { mode: 'preview', preview },
            `PREVIEW ONLY, nothing was created. ${preview.accepted} post(s) would be ${when}:\n${lines.join('\n')}\nTo create them, call create_posts again with the same arguments, confirm: true and idempotencyKey "${idempotencyKey}".`,
          );
        }
        const outcome = await deps.createPosts.execute(caller, body, idempotencyKey);
        const batch = outcome.body as PostBatch;
        const replayed = outcome.headers?.['Idempotent-Replayed'] === 'true';
        const posts = batch.posts.map((post) => ({
          id: post.id,
          accountId: post.accountId,
          platform: post.platform,
          status: post.status,
          reason: post.reason,
          message: post.message,
          settingsUrl: post.id ? deps.postSettingsUrl({ id: post.id, campaignId: batch.campaignId }) : null,
        }));
        const accepted = posts.filter((post) => post.status === 'accepted');
        return ok(
          { mode: 'created', campaignId: batch.campaignId, posts, replayed },
          `${replayed ? 'Already created earlier with this idempotencyKey (nothing new was created). ' : ''}${accepted.length} post(s) accepted; poll each with get_post. The person can see and cancel them at the settingsUrl.`,
        );
      }),
  );

  const queueAnswer = async (accountId: string, verb: string): Promise<CallToolResult> => {
    const queue = await deps.queues.get(caller, accountId);
    const { slots: next } = await deps.queues.next(caller, accountId, { count: '5' });
    const summary =
      queue.slots.length === 0
        ? `${verb} account ${accountId} has an empty queue (${queue.timeZone}): set posting times with set_queue before create_posts with queue: true.`
        : `${verb} account ${accountId} posts at ${queue.slots.length} time(s) a week in ${queue.timeZone}; next free: ${next.map((slot) => slot.local).join(', ') || 'none within 30 days'}.`;
    return ok({ accountId, timeZone: queue.timeZone, slots: queue.slots, next }, summary);
  };

  server.registerTool(
    'get_queue',
    {
      title: 'Get an account\'s queue',
      description: 'The account\'s posting times (local days and times in its time zone) and its next free slots: where create_posts with queue: true puts posts.',
      inputSchema: schema.getQueueInput,
      outputSchema: schema.getQueueOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ accountId }) => run('get_queue', { accountId }, () => queueAnswer(accountId, 'The')),
  );

  server.registerTool(
    'set_queue',
    {
      title: 'Set an account\'s queue',
      description:
        'Replaces the account\'s posting times: an IANA time zone and up to 100 {day, time} slots. Posts already scheduled keep their times. Confirm the times with the person first.',
      inputSchema: schema.setQueueInput,
      outputSchema: schema.setQueueOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ accountId, timeZone, slots }) =>
      run('set_queue', { accountId }, async () => {
        await deps.queues.put(caller, accountId, { timeZone, slots });
        return queueAnswer(accountId, 'Saved: the');
      }),
  );

  server.registerTool(
    'delete_post',
    {
      title: 'Cancel or delete a post',
      description: 'Cancels a scheduled post or removes a draft; a published post is hidden, and with deleteFromPlatform: true also deleted from the platform.',
      inputSchema: schema.deletePostInput,
      outputSchema: schema.deletePostOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    ({ id, deleteFromPlatform }) =>
      run('delete_post', { id }, async () => {
        const deleted = await deps.deletePost.execute(caller, id, { deleteFromPlatform: deleteFromPlatform === true });
        return ok({ ...deleted }, `Post ${deleted.id} deleted${deleted.platformDeletionQueuedFor.length > 0 ? '; deletion from the platform is queued' : ''}.`);
      }),
  );

  /** The three lifecycle tools' answer: the post as it would be (preview) or is (done), with its settings link. */
  const changed = (mode: 'preview' | 'done', post: PostView, summary: string, extra: Record<string, unknown> = {}): CallToolResult =>
    ok({ mode, post: withLink(post), ...extra }, summary);
  const replayedOf = (headers: Record<string, string> | undefined) => headers?.['Idempotent-Replayed'] === 'true';
  const previewNote = (tool: string, key: string) => `To do it, call ${tool} again with the same arguments, confirm: true and idempotencyKey "${key}".`;

  server.registerTool(
    'update_post',
    {
      title: 'Change a draft or a scheduled post (preview first)',
      description:
        'Changes text, media, scheduledFor (or queue: true, the account\'s next free slot) or options of a draft, or of a scheduled post not yet being sent. Without confirm it only PREVIEWS the post as it would be; call again with confirm: true and the SAME idempotencyKey after the person agrees.',
      inputSchema: schema.updatePostInput,
      outputSchema: schema.postChangeOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ id, idempotencyKey, confirm, ...fields }) =>
      run('update_post', { id }, async () => {
        const body = defined(fields);
        if (confirm !== true) {
          const post = await deps.updatePost.preview(caller, id, body);
          return changed('preview', post, `PREVIEW ONLY, nothing was changed. The post would read: ${JSON.stringify(post.text)}, ${post.status} for ${post.scheduledFor}. ${previewNote('update_post', idempotencyKey)}`);
        }
        const outcome = await deps.updatePost.execute(caller, id, body, idempotencyKey);
        const post = outcome.body as PostView;
        return changed('done', post, `${replayedOf(outcome.headers) ? 'Already changed earlier with this idempotencyKey. ' : ''}Post ${post.id} changed; it is ${post.status} for ${post.scheduledFor}.`, { replayed: replayedOf(outcome.headers) });
      }),
  );

  server.registerTool(
    'publish_draft',
    {
      title: 'Send a draft (preview first)',
      description:
        'Sends a draft now, at scheduledFor, or with queue: true at its account\'s next free queue slot; it spends one unit of the plan allowance. Without confirm it only PREVIEWS; call again with confirm: true and the SAME idempotencyKey after the person agrees.',
      inputSchema: schema.publishDraftInput,
      outputSchema: schema.postChangeOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ id, idempotencyKey, confirm, ...fields }) =>
      run('publish_draft', { id }, async () => {
        const body = Object.keys(defined(fields)).length === 0 ? null : defined(fields);
        if (confirm !== true) {
          const post = await deps.publishDraft.preview(caller, id, body);
          return changed('preview', post, `PREVIEW ONLY, nothing was sent. The draft would be published at ${post.scheduledFor}, spending 1 allowance unit. ${previewNote('publish_draft', idempotencyKey)}`, { allowanceUnits: 1 });
        }
        const outcome = await deps.publishDraft.execute(caller, id, body, idempotencyKey);
        const post = outcome.body as PostView;
        return changed('done', post, `${replayedOf(outcome.headers) ? 'Already sent earlier with this idempotencyKey. ' : ''}Draft ${post.id} is scheduled for ${post.scheduledFor}; poll it with get_post.`, { allowanceUnits: 1, replayed: replayedOf(outcome.headers) });
      }),
  );

  server.registerTool(
    'retry_post',
    {
      title: 'Send a failed post again (preview first)',
      description:
        'Sends a failed post again under the same id, only when its error.retryable is true (the platform certainly holds no such post). Without confirm it only PREVIEWS; call again with confirm: true and the SAME idempotencyKey after the person agrees.',
      inputSchema: schema.sendPostInput,
      outputSchema: schema.postChangeOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ id, idempotencyKey, confirm, ...fields }) =>
      run('retry_post', { id }, async () => {
        const body = Object.keys(defined(fields)).length === 0 ? null : defined(fields);
        if (confirm !== true) {
          const { post, allowanceUnits } = await deps.retryPost.preview(caller, id, body);
          return changed('preview', post, `PREVIEW ONLY, nothing was sent. The post would go out again at ${post.scheduledFor}, spending ${allowanceUnits} allowance unit(s). ${previewNote('retry_post', idempotencyKey)}`, { allowanceUnits });
        }
        const outcome = await deps.retryPost.execute(caller, id, body, idempotencyKey);
        const post = outcome.body as PostView;
        return changed('done', post, `${replayedOf(outcome.headers) ? 'Already retried earlier with this idempotencyKey. ' : ''}Post ${post.id} goes out again at ${post.scheduledFor}; poll it with get_post.`, { replayed: replayedOf(outcome.headers) });
      }),
  );

  server.registerTool(
    'list_media',
    {
      title: 'List the media library',
      description:
        'The person\'s files (uploaded in settings or through the API, or imported), newest first; status filters (ready: the ones a post can use); page with nextCursor. A ready file\'s url is what create_posts accepts in media.',
      inputSchema: schema.listMediaInput,
      outputSchema: schema.listMediaOutput,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      run('list_media', args, async () => {
        const list = await deps.media.list(caller, parseListMediaQuery(asQuery(args)));
        return ok({ media: list.media, nextCursor: list.nextCursor }, `${list.media.length} file(s) in the media library${list.nextCursor ? '; more with nextCursor' : ''}.`);
      }),
  );

  server.registerTool(
    'import_media',
    {
      title: 'Import a file from a URL',
      description:
        'Adds the file at a public https URL to the person\'s media library (fetched in the background, checked like an upload). Answers the media: ready with its url for create_posts, failed with why, or still processing (then look again with list_media).',
      inputSchema: schema.importMediaInput,
      outputSchema: schema.importMediaOutput,
      // Each call imports a new copy; it reaches out to the address given.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ sourceUrl, fileName, altText, waitSeconds }) =>
      run('import_media', {}, async () => {
        const started = await deps.media.create(caller, { sourceUrl, ...(fileName === undefined ? {} : { fileName }), ...(altText === undefined ? {} : { altText }) });
        let media = started.body as MediaView;
        const deadline = Date.now() + (waitSeconds ?? DEFAULT_IMPORT_WAIT_SECONDS) * 1000;
        while (media.status === 'processing' && Date.now() < deadline) {
          await sleep(IMPORT_POLL_MS);
          media = await deps.media.get(caller, media.id);
        }
        const summary =
          media.status === 'ready'
            ? `Imported ${media.fileName}: ready, use ${media.url} in create_posts media.`
            : media.status === 'failed'
              ? `The import failed: ${media.error?.code}: ${media.error?.message}`
              : `${media.fileName} is still being imported (${media.id}); look again with list_media.`;
        return ok({ media }, summary);
      }),
  );
}
