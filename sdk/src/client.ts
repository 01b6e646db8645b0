/**
 * The client: `new SocialPublishing({ baseUrl, apiKey })`, then `client.posts.*`,
 * `client.accounts.*`, `client.media.*` (media.ts), `client.webhookEndpoints.*` and `client.webhooks.verify`. Every method is a thin typed line over
 * HttpClient.request (http.ts): parameters and results are the types generated from openapi.yaml.
 */
import { WaitForOutcomeError } from './errors.js';
import type { components } from './generated/openapi.js';
import { HttpClient, sleep, type Operation, type QueryParams, type RequestBody, type RequestOptions, type RetryEvent } from './http.js';
import { MediaResource } from './media.js';
import { PagedList } from './pagination.js';
import { verifyWebhook, type WebhookEvent } from './webhooks.js';

export type Post = components['schemas']['Post'];
export type PostStatus = components['schemas']['PostStatus'];
export type PostBatch = components['schemas']['PostBatch'];
export type PostResult = components['schemas']['PostResult'];
export type PostList = components['schemas']['PostList'];
export type PostDeleted = components['schemas']['PostDeleted'];
export type Account = components['schemas']['Account'];
export type AccountList = components['schemas']['AccountList'];
export type PreviewBatch = components['schemas']['PreviewBatch'];
export type PreviewResult = components['schemas']['PreviewResult'];
/** A create's, PATCH's or preview's `options` (docs/native-formats.md): per platform, native formats included. */
export type PlatformOptions = components['schemas']['PlatformOptions'];
export type XOptions = NonNullable<PlatformOptions['x']>;
export type LinkedInOptions = NonNullable<PlatformOptions['linkedin']>;
export type ThreadPartRequest = components['schemas']['ThreadPartRequest'];
export type XPoll = components['schemas']['XPoll'];
export type LinkedInPoll = components['schemas']['LinkedInPoll'];
/** `text`, `thread`, `poll` or `document`. */
export type PostFormat = Post['format'];
export type ThreadPart = Post['threadParts'][number];
export type FirstComment = NonNullable<Post['firstComment']>;
export type CreatePostsParams = RequestBody<Operation<'/posts', 'post'>>;
export type PreviewPostsParams = RequestBody<Operation<'/posts/preview', 'post'>>;
export type UpdatePostParams = RequestBody<Operation<'/posts/{id}', 'patch'>>;
export type PublishPostParams = RequestBody<Operation<'/posts/{id}/publish', 'post'>>;
export type RetryPostParams = RequestBody<Operation<'/posts/{id}/retry', 'post'>>;
export type ListPostsParams = QueryParams<Operation<'/posts', 'get'>>;
export type ListAccountsParams = QueryParams<Operation<'/accounts', 'get'>>;
/** An account's posting times (docs/queues.md): local `{day, time}` slots in an IANA time zone. */
export type Queue = components['schemas']['Queue'];
export type QueueSlot = components['schemas']['QueueSlot'];
export type QueueSlotList = components['schemas']['QueueSlotList'];
export type SetQueueParams = RequestBody<Operation<'/accounts/{id}/queue', 'put'>>;
export type NextQueueSlotsParams = QueryParams<Operation<'/accounts/{id}/queue/next', 'get'>>;
/** How a post did (beyond-v2.md "Post metrics"): a figure the platform does not give is null, never 0. */
export type PostMetrics = components['schemas']['PostMetrics'];
export type PostMetricsHistory = components['schemas']['PostMetricsHistory'];
export type Analytics = components['schemas']['Analytics'];
export type GetAnalyticsParams = QueryParams<Operation<'/analytics', 'get'>>;
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookEndpointWithSecret = components['schemas']['WebhookEndpointWithSecret'];
export type WebhookEndpointList = components['schemas']['WebhookEndpointList'];
export type WebhookEndpointDeleted = components['schemas']['WebhookEndpointDeleted'];
/** The event `webhookEndpoints.test` queues: `data.object` is `{}`. */
export type TestWebhookEvent = Extract<WebhookEvent, { type: 'webhook.test' }>;
export type CreateWebhookEndpointParams = RequestBody<Operation<'/webhook_endpoints', 'post'>>;
export type UpdateWebhookEndpointParams = RequestBody<Operation<'/webhook_endpoints/{id}', 'patch'>>;
export type ListWebhookEndpointsParams = QueryParams<Operation<'/webhook_endpoints', 'get'>>;
/** An event read back (GET /events): the envelope its webhooks carried, `data.object` narrowed by `type`. */
export type Event = WebhookEvent;
export type EventList = Omit<components['schemas']['EventList'], 'events'> & { events: Event[] };
export type ListEventsParams = QueryParams<Operation<'/events', 'get'>>;
type DeleteQuery = QueryParams<Operation<'/posts/{id}', 'delete'>>;
/** `deleteFromPlatform: true` also deletes the live post on its platform (irreversible). */
export type DeletePostParams = Omit<DeleteQuery, 'deleteFromPlatform'> & { deleteFromPlatform?: boolean };

export interface SocialPublishingOptions {
  /** The API's base URL, ending in `/api/v1` (`http://127.0.0.1:3000/api/v1` for `npm start`). */
  baseUrl: string | undefined;
  /** An API key, `ak_<id>_<secret>`, from settings. Keep it on servers. */
  apiKey: string | undefined;
  /** Retries after a request's first attempt (429, 5xx, lost connection), only where repeating is safe. Default 2. */
  maxRetries?: number;
  /** Time allowed for one attempt. Default 30 s. */
  timeoutMs?: number;
  /** A `Retry-After` longer than this is not waited for (the RateLimitError is thrown). Default 60 s. */
  maxRetryAfterMs?: number;
  /** The fetch to use (a proxying or instrumented one). Default: the global fetch. */
  fetch?: typeof fetch;
  /** Told before each retry: for logs and metrics. */
  onRetry?: (event: RetryEvent) => void;
}

export interface WaitForOutcomeOptions {
  /** Give up (WaitForOutcomeError `wait_timeout`) after this long. Default 120 s. */
  timeoutMs?: number;
  /** Time between reads while the post is due. Default 1 s; a post due later is first left until its time. */
  intervalMs?: number;
  signal?: AbortSignal;
}

export class SocialPublishing {
  readonly posts: Posts;
  readonly accounts: Accounts;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly analytics: AnalyticsResource;
  /** The media library: upload a file, import one from a URL, list, alt text, delete. */
  readonly media: MediaResource;
  /** Standard Webhooks verification; also importable alone from `@social-publishing/sdk/webhooks`. */
  readonly webhooks = { verify: verifyWebhook };

  constructor(options: SocialPublishingOptions) {
    if (!options.apiKey) throw new TypeError('SocialPublishing: apiKey is required (an ak_… key from settings).');
    if (!options.baseUrl || !/^https?:\/\//.test(options.baseUrl)) {
      throw new TypeError('SocialPublishing: baseUrl is required, an http(s) URL ending in /api/v1.');
    }
    const http = new HttpClient({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      // Bound to globalThis: some runtimes refuse a fetch called with another `this`.
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      onRetry: options.onRetry,
    });
    this.posts = new Posts(http);
    this.accounts = new Accounts(http);
    this.webhookEndpoints = new WebhookEndpoints(http);
    this.events = new Events(http);
    this.analytics = new AnalyticsResource(http);
    this.media = new MediaResource(http);
  }
}

/** Every event of the last 30 days, read back: the same envelopes and ids as the webhooks'. */
export class Events {
  constructor(private readonly http: HttpClient) {}

  /**
   * `await` it for one page, or `for await (const event of client.events.list({ type: 'post.*' }))`
   * for every event, newest first, across pages (a page may be short when `type` leaves many out).
   */
  list(params: ListEventsParams = {}, options?: RequestOptions): PagedList<EventList, Event> {
    const { cursor, ...query } = params;
    return new PagedList(
      (next) => this.http.request('get', '/events', { query: { ...query, ...(next === undefined ? {} : { cursor: next }) } }, options) as Promise<EventList>,
      (page) => page.events,
      (page) => page.nextCursor,
      cursor,
    );
  }

  get(id: string, options?: RequestOptions): Promise<Event> {
    return this.http.request('get', '/events/{id}', { path: { id } }, options) as Promise<Event>;
  }
}

export class Posts {
  constructor(private readonly http: HttpClient) {}

  /**
   * One post per account (202 even when some targets are rejected: read each result's `status`).
   * Sent with an `Idempotency-Key` (`options.idempotencyKey`, or one made here) that its retries repeat.
   */
  create(params: CreatePostsParams, options?: RequestOptions): Promise<PostBatch> {
    return this.http.request('post', '/posts', { body: params, repeat: 'idempotency-key' }, options);
  }

  /**
   * What `create` with these parameters would answer (each target `accepted` or `rejected` with its
   * reason, every `id` null), writing, spending and sending nothing; when no target would be
   * accepted, the InvalidRequestError a create would throw. Repeated freely: it changes nothing.
   */
  preview(params: PreviewPostsParams, options?: RequestOptions): Promise<PreviewBatch> {
    return this.http.request('post', '/posts/preview', { body: params, repeat: 'writes-nothing' }, options);
  }

  get(id: string, options?: RequestOptions): Promise<Post> {
    return this.http.request('get', '/posts/{id}', { path: { id } }, options);
  }

  /**
   * Changes `text`, `media`, `scheduledFor` or `options` of a draft, or of a scheduled post no
   * publish attempt has begun on (fields left out stay); a moved `scheduledFor` moves its schedule.
   * Too late (being sent, published, failed): InvalidRequestError `post_not_editable` (409).
   * Sent with an `Idempotency-Key`, which the API keeps for a PATCH as for a create, so its retries
   * replay the first answer and never apply it again after a newer change.
   */
  update(id: string, params: UpdatePostParams, options?: RequestOptions): Promise<Post> {
    return this.http.request('patch', '/posts/{id}', { path: { id }, body: params, repeat: 'idempotency-key' }, options);
  }

  /**
   * Sends a draft: now, or at `params.scheduledFor`. Spends one unit of the plan's allowance
   * (InvalidRequestError `quota_exceeded` when none is left); not a draft: `post_not_editable` (409).
   */
  publish(id: string, params?: PublishPostParams, options?: RequestOptions): Promise<Post> {
    return this.http.request('post', '/posts/{id}/publish', { path: { id }, body: params, repeat: 'idempotency-key' }, options);
  }

  /**
   * Sends a failed post whose `error.retryable` is `true` again, under the same id: now, or at
   * `params.scheduledFor`. Any other post: InvalidRequestError `post_not_retryable` (409).
   */
  retry(id: string, params?: RetryPostParams, options?: RequestOptions): Promise<Post> {
    return this.http.request('post', '/posts/{id}/retry', { path: { id }, body: params, repeat: 'idempotency-key' }, options);
  }

  /** The post's latest figures (`metrics`, null until first collected) and their history, oldest first. */
  metrics(id: string, options?: RequestOptions): Promise<PostMetricsHistory> {
    return this.http.request('get', '/posts/{id}/metrics', { path: { id } }, options);
  }

  /**
   * Collects the post's figures now. At most once per 5 minutes per post: sooner is
   * RateLimitError `metrics_refresh_too_soon` (429, `Retry-After`); a post not published is
   * InvalidRequestError `post_not_published` (409). Sent once: a repeat inside 5 minutes is refused anyway.
   */
  refreshMetrics(id: string, options?: RequestOptions): Promise<PostMetricsHistory> {
    return this.http.request('post', '/posts/{id}/metrics/refresh', { path: { id } }, options);
  }

  /** `await` it for one page, or `for await (const post of client.posts.list())` for every post, newest first. */
  list(params: ListPostsParams = {}, options?: RequestOptions): PagedList<PostList, Post> {
    const { cursor, ...query } = params;
    return new PagedList(
      (next) => this.http.request('get', '/posts', { query: { ...query, ...(next === undefined ? {} : { cursor: next }) } }, options),
      (page) => page.posts,
      (page) => page.nextCursor,
      cursor,
    );
  }

  /** Cancels a scheduled post, removes a draft or failed post, soft-deletes a published one. */
  delete(id: string, params: DeletePostParams = {}, options?: RequestOptions): Promise<PostDeleted> {
    const { deleteFromPlatform, ...query } = params;
    // Only the exact value `true` asks for the platform deletion (api-v1.md); absent leaves the live
    // post. Sent as the text `true` whether openapi.yaml types the parameter as a string (v1) or a
    // boolean (issue 21, item 5), so this line compiles against either.
    const platform = deleteFromPlatform === true ? { deleteFromPlatform: true as unknown as DeleteQuery['deleteFromPlatform'] } : {};
    return this.http.request('delete', '/posts/{id}', { path: { id }, query: { ...query, ...platform } }, options);
  }

  /**
   * Reads the post until it is `published` or `failed` and answers it (check `status`: a failed
   * post is an answer, not an exception). A post due later is left alone until its time.
   */
  async waitForOutcome(id: string, options: WaitForOutcomeOptions = {}): Promise<Post> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const intervalMs = Math.max(100, options.intervalMs ?? 1_000);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const post = await this.get(id, { signal: options.signal });
      if (post.status === 'published' || post.status === 'failed') return post;
      if (post.status === 'draft') throw new WaitForOutcomeError('post_is_draft', `Post ${id} is a draft: it never goes out, so it has no outcome to wait for.`, post);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new WaitForOutcomeError('wait_timeout', `Post ${id} was still ${post.status} after ${timeoutMs} ms.`, post);
      const untilDue = Date.parse(post.scheduledFor) - Date.now();
      await sleep(Math.min(remaining, Math.max(intervalMs, untilDue)), options.signal);
    }
  }
}

/** Totals, per account, per day and top posts over the posts published in a period of at most 92 days. */
export class AnalyticsResource {
  constructor(private readonly http: HttpClient) {}

  get(params: GetAnalyticsParams, options?: RequestOptions): Promise<Analytics> {
    return this.http.request('get', '/analytics', { query: params }, options);
  }
}

export class Accounts {
  constructor(private readonly http: HttpClient) {}

  /** Every connected account, including those on platforms that cannot be posted to; check `tokenHealth`. */
  list(params: ListAccountsParams = {}, options?: RequestOptions): Promise<AccountList> {
    return this.http.request('get', '/accounts', { query: params }, options);
  }

  /** The account's queue: its time zone and posting slots (empty, `UTC`, until one is set). */
  getQueue(accountId: string, options?: RequestOptions): Promise<Queue> {
    return this.http.request('get', '/accounts/{id}/queue', { path: { id: accountId } }, options);
  }

  /**
   * Replaces the account's queue (`timeZone` an IANA name, 0-100 `{day, time}` slots); posts already
   * scheduled keep their times. Then `posts.create({ ..., queue: true })` puts posts in it.
   */
  setQueue(accountId: string, params: SetQueueParams, options?: RequestOptions): Promise<Queue> {
    return this.http.request('put', '/accounts/{id}/queue', { path: { id: accountId }, body: params }, options);
  }

  /** The next free slots (`count` 1-50, default 10): each `scheduledFor` (UTC) and `local` (in the queue's zone). */
  nextQueueSlots(accountId: string, params: NextQueueSlotsParams = {}, options?: RequestOptions): Promise<QueueSlotList> {
    return this.http.request('get', '/accounts/{id}/queue/next', { path: { id: accountId }, query: params }, options);
  }
}

/**
 * The URLs that receive signed events (beyond-v1.md "Webhook endpoints"). `create`, `rotateSecret`
 * and `test` carry an `Idempotency-Key` (`options.idempotencyKey`, or one made here) that their
 * retries repeat: a retry after a lost answer gets that answer (the same endpoint and secret, the
 * same new secret, the same test event), never a second endpoint, a second rotation or a second
 * test. `update` is sent once (a PATCH here takes no key). Reads and `delete` are repeated as any
 * GET and DELETE.
 */
export class WebhookEndpoints {
  constructor(private readonly http: HttpClient) {}

  /**
   * Registers an endpoint; the answer holds its `secret` (`whsec_…`), shown only here (and in this
   * answer replayed to the same `Idempotency-Key` within 24 hours): keep it to verify deliveries.
   */
  create(params: CreateWebhookEndpointParams, options?: RequestOptions): Promise<WebhookEndpointWithSecret> {
    return this.http.request('post', '/webhook_endpoints', { body: params, repeat: 'idempotency-key' }, options);
  }

  /** `await` it for one page, or `for await (const endpoint of client.webhookEndpoints.list())` for every endpoint. Never a secret. */
  list(params: ListWebhookEndpointsParams = {}, options?: RequestOptions): PagedList<WebhookEndpointList, WebhookEndpoint> {
    const { cursor, ...query } = params;
    return new PagedList(
      (next) => this.http.request('get', '/webhook_endpoints', { query: { ...query, ...(next === undefined ? {} : { cursor: next }) } }, options),
      (page) => page.webhookEndpoints,
      (page) => page.nextCursor,
      cursor,
    );
  }

  get(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.http.request('get', '/webhook_endpoints/{id}', { path: { id } }, options);
  }

  /** Any of `url`, `enabledEvents`, `description`, `status` (`disabled` stops every delivery; `enabled` starts them again). */
  update(id: string, params: UpdateWebhookEndpointParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.http.request('patch', '/webhook_endpoints/{id}', { path: { id }, body: params }, options);
  }

  /** Nothing more is sent to it. A repeated DELETE that meets 404 `webhook_endpoint_not_found` means an earlier attempt deleted it. */
  delete(id: string, options?: RequestOptions): Promise<WebhookEndpointDeleted> {
    return this.http.request('delete', '/webhook_endpoints/{id}', { path: { id } }, options);
  }

  /**
   * A new `secret`, shown only in this answer. For 24 hours deliveries are signed with the new and
   * the old secret, so a receiver switched at any time in that window misses nothing.
   */
  rotateSecret(id: string, options?: RequestOptions): Promise<WebhookEndpointWithSecret> {
    return this.http.request('post', '/webhook_endpoints/{id}/rotate_secret', { path: { id }, repeat: 'idempotency-key' }, options);
  }

  /** Queues a `webhook.test` event (`data.object` is `{}`) to the endpoint now and answers it; a disabled endpoint: 409 `webhook_endpoint_disabled`. */
  async test(id: string, options?: RequestOptions): Promise<TestWebhookEvent> {
    const event = await this.http.request('post', '/webhook_endpoints/{id}/test', { path: { id }, repeat: 'idempotency-key' }, options);
    // openapi.yaml answers the envelope of any type; this operation's is always `webhook.test`.
    return event as TestWebhookEvent;
  }
}
