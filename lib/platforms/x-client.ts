/**
 * X API v2 over plain HTTP (no SDK): create and delete posts, upload media, refresh OAuth 2.0
 * user tokens. The paths, bodies and error shapes are X's own; local/sandbox/x.ts serves the same
 * ones for the tests. Every failure is one class of
 * lib/domain/platform-errors.ts; only the create call can be ambiguous.
 */
import { ENV, optionalEnv } from '../config.js';
import {
  PlatformAmbiguousError,
  PlatformDuplicateError,
  PlatformRefusedError,
  PlatformUnavailableError,
} from '../domain/platform-errors.js';
import type {
  PlatformAccount,
  PlatformCommentRequest,
  PlatformCommentResult,
  PlatformMediaSource,
  PlatformPublishRequest,
  PlatformPublishResult,
  PlatformPublisher,
  PlatformTokens,
} from '../use-cases/ports/platform-publisher.js';
import type { PlatformMetricsReader, PlatformMetricsRequest } from '../use-cases/ports/platform-metrics.js';
import type { PostFigures } from '../domain/post-metrics.js';
import { platformClientCredentials, type ClientCredentials } from './client-credentials.js';
import {
  errorForAnswer,
  isRecord,
  parseJson,
  platformCall,
  platformFetch,
  platformMessage,
  readText,
  redact,
  sleep,
  tokenEndpointError,
  tokensFrom,
  type PlatformCall,
  type PlatformCallKind,
  type PlatformTimeouts,
} from './http.js';

export interface XClientConfig extends PlatformTimeouts {
  baseUrl: string;
  clientCredentials: () => Promise<ClientCredentials>;
  /** Bytes per APPEND segment (X allows up to 5 MB). */
  chunkBytes?: number;
  /** Upper bound on one wait between STATUS polls, whatever check_after_secs says. */
  maxPollWaitMs?: number;
  /** Give up on media processing after this long (the post was not created: safe to retry). */
  processingTimeoutMs?: number;
}

const DUPLICATE_DETAIL = /duplicate content/i;

function mediaCategory(contentType: string): 'tweet_image' | 'tweet_gif' | 'tweet_video' {
  if (contentType.startsWith('video/')) return 'tweet_video';
  if (contentType === 'image/gif') return 'tweet_gif';
  return 'tweet_image';
}

/** X returns text with &, < and > as entities and links shortened; compare what a reader sees. */
function comparableText(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/https?:\/\/\S+/g, '')
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * `options.poll` as the rules stored it ({choices, durationMinutes}) in X's CreatePostsPoll shape;
 * null when the post has none. The rules checked it at create time; X checks it again.
 */
function pollOf(value: unknown): { options: string[]; duration_minutes: number } | null {
  if (!isRecord(value) || !Array.isArray(value.choices) || typeof value.durationMinutes !== 'number') return null;
  return { options: value.choices.filter((choice): choice is string => typeof choice === 'string'), duration_minutes: value.durationMinutes };
}

/** The id a post answers, from `referenced_tweets` (X's wire name) or `referenced_posts` (its OpenAPI document's). */
function repliedTo(post: Record<string, unknown>): string | null {
  for (const field of ['referenced_tweets', 'referenced_posts']) {
    const references = post[field];
    if (!Array.isArray(references)) continue;
    for (const reference of references) {
      if (isRecord(reference) && reference.type === 'replied_to' && typeof reference.id === 'string') return reference.id;
    }
  }
  return null;
}

function xPublicUrl(handle: string, postId: string): string {
  const name = handle.replace(/^@/, '');
  return name === '' ? `https://x.com/i/status/${postId}` : `https://x.com/${encodeURIComponent(name)}/status/${postId}`;
}

export class XClient implements PlatformPublisher, PlatformMetricsReader {
  readonly platform = 'x' as const;
  readonly refusesDuplicates = true;
  private readonly baseUrl: string;

  constructor(private readonly config: XClientConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
  }

  private call(secrets: readonly string[], kind?: PlatformCallKind): PlatformCall {
    return platformCall('x', this.config, secrets, kind);
  }

  /** Sends one request and returns the parsed JSON of a 2xx answer; anything else throws classified. */
  private async json(path: string, init: RequestInit, call: PlatformCall, accessToken: string): Promise<unknown> {
    const response = await platformFetch(
      `${this.baseUrl}${path}`,
      { ...init, headers: { ...(init.headers as Record<string, string> | undefined), Authorization: `Bearer ${accessToken}` } },
      call,
    );
    const text = await readText(response, call);
    if (response.ok) return parseJson(text);
    throw this.errorFor({ status: response.status, headers: response.headers, text }, call);
  }

  private errorFor(answer: { status: number; headers: Headers; text: string }, call: PlatformCall): Error {
    if (answer.status === 403) {
      const said = platformMessage(parseJson(answer.text));
      if (said !== null && DUPLICATE_DETAIL.test(said)) {
        return new PlatformDuplicateError(redact(said, call.secrets), {
          platform: 'x',
          status: 403,
          cause: { status: 403, body: redact(answer.text.slice(0, 2000), call.secrets) },
        });
      }
    }
    return errorForAnswer(answer, call);
  }

  async publish(request: PlatformPublishRequest): Promise<PlatformPublishResult> {
    const mediaIds: string[] = [];
    for (const item of request.media) mediaIds.push(await this.uploadMedia(item, request.accessToken));

    const body: Record<string, unknown> = {};
    if (request.text !== '') body.text = request.text;
    if (mediaIds.length > 0) body.media = { media_ids: mediaIds };
    // A thread's further part answers the part before it (X's CreatePostsReply).
    if (request.replyTo !== undefined) body.reply = { in_reply_to_tweet_id: request.replyTo };
    const poll = pollOf(request.options.poll);
    if (poll !== null) body.poll = poll;
    const communityId = request.options.communityId;
    if (typeof communityId === 'string' && communityId !== '') {
      body.community_id = communityId;
      // share_with_followers only means something for a community post; X refuses it alone.
      if (typeof request.options.shareWithFollowers === 'boolean') body.share_with_followers = request.options.shareWithFollowers;
    }

    await request.beforeCreate?.({ mediaIds });
    const call = this.call([request.accessToken], 'create');
    const answer = await this.json(
      '/2/tweets',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
      call,
      request.accessToken,
    );
    const id = isRecord(answer) && isRecord(answer.data) ? answer.data.id : undefined;
    if (typeof id !== 'string' || !/^\d{1,19}$/.test(id)) {
      // X said 2xx, so the post is most likely live, but without its id we cannot prove it.
      throw new PlatformAmbiguousError('X accepted the post but its answer carried no post id', { platform: 'x', status: 201 });
    }
    return { platformPostId: id, publishedUrl: xPublicUrl(request.account.handle, id) };
  }

  private async uploadMedia(item: PlatformMediaSource, accessToken: string): Promise<string> {
    const category = mediaCategory(item.contentType);
    // X wants videos and GIFs through the chunked flow; still images fit the one-shot upload.
    const mediaId = category === 'tweet_image' ? await this.simpleUpload(item, category, accessToken) : await this.chunkedUpload(item, category, accessToken);
    if (item.altText) await this.describeMedia(mediaId, item.altText, accessToken);
    return mediaId;
  }

  /**
   * The media's alt text (X's CreateMediaMetadataRequest: `alt_text.text`, at most 1,000
   * characters, as the library's own limit), attached before the post that shows it is made.
   */
  private async describeMedia(mediaId: string, altText: string, accessToken: string): Promise<void> {
    await this.json(
      '/2/media/metadata',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: mediaId, metadata: { alt_text: { text: altText } } }) },
      this.call([accessToken], 'upload'),
      accessToken,
    );
  }

  private async simpleUpload(item: PlatformMediaSource, category: string, accessToken: string): Promise<string> {
    const bytes = await item.read();
    const form = new FormData();
    form.append('media', new Blob([bytes], { type: item.contentType }), 'media');
    // No media_type field: X's MediaUploadRequest admits only media, media_category and
    // additional_owners; the type travels as the file part's own Content-Type.
    form.append('media_category', category);
    const answer = await this.json('/2/media/upload', { method: 'POST', body: form }, this.call([accessToken], 'upload'), accessToken);
    return this.mediaIdOf(answer);
  }

  private mediaIdOf(answer: unknown): string {
    const id = isRecord(answer) && isRecord(answer.data) ? answer.data.id : undefined;
    if (typeof id !== 'string' || id === '') {
      throw new PlatformUnavailableError('X media upload answered without a media id', { platform: 'x' });
    }
    return id;
  }

  private async chunkedUpload(item: PlatformMediaSource, category: string, accessToken: string): Promise<string> {
    const call = this.call([accessToken]);
    const init = await this.json(
      '/2/media/upload/initialize',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ media_type: item.contentType, total_bytes: item.sizeBytes, media_category: category }),
      },
      call,
      accessToken,
    );
    const mediaId = this.mediaIdOf(init);
    const path = `/2/media/upload/${encodeURIComponent(mediaId)}`;

    const chunk = this.config.chunkBytes ?? 4 * 1024 * 1024;
    for (let start = 0, segment = 0; start < item.sizeBytes; start += chunk, segment++) {
      const bytes = await item.read({ start, end: Math.min(start + chunk, item.sizeBytes) });
      const form = new FormData();
      form.append('media', new Blob([bytes], { type: 'application/octet-stream' }), 'chunk');
      form.append('segment_index', String(segment));
      await this.json(`${path}/append`, { method: 'POST', body: form }, this.call([accessToken], 'upload'), accessToken);
    }

    const finalized = await this.json(`${path}/finalize`, { method: 'POST' }, call, accessToken);
    await this.waitForProcessing(mediaId, finalized, accessToken);
    return mediaId;
  }

  /** Polls STATUS until X has processed the media; `failed` is X refusing the file. */
  private async waitForProcessing(mediaId: string, answer: unknown, accessToken: string): Promise<void> {
    const deadline = Date.now() + (this.config.processingTimeoutMs ?? 180_000);
    let current = answer;
    for (;;) {
      const info = isRecord(current) && isRecord(current.data) ? current.data.processing_info : undefined;
      // No processing_info means the media is ready as it is.
      if (!isRecord(info)) return;
      const state = info.state;
      if (state === 'succeeded') return;
      if (state === 'failed') {
        const error = isRecord(info.error) ? info.error : {};
        const said = typeof error.message === 'string' ? error.message : 'X could not process the media';
        throw new PlatformRefusedError(said, { platform: 'x', status: null, cause: { processing_info: info } });
      }
      if (Date.now() > deadline) {
        throw new PlatformUnavailableError(`X was still processing media ${mediaId}`, { platform: 'x' });
      }
      const after = typeof info.check_after_secs === 'number' ? info.check_after_secs * 1000 : 1000;
      await sleep(Math.max(0, Math.min(after, this.config.maxPollWaitMs ?? 10_000)));
      current = await this.json(
        `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(mediaId)}`,
        { method: 'GET' },
        this.call([accessToken]),
        accessToken,
      );
    }
  }

  async deletePost(request: { account: PlatformAccount; accessToken: string; platformPostId: string }): Promise<void> {
    const call = this.call([request.accessToken]);
    const response = await platformFetch(
      `${this.baseUrl}/2/tweets/${encodeURIComponent(request.platformPostId)}`,
      { method: 'DELETE', headers: { Authorization: `Bearer ${request.accessToken}` } },
      call,
    );
    const text = await readText(response, call);
    // Already gone is what we wanted: deleting twice must be harmless.
    if (response.ok || response.status === 404) return;
    throw this.errorFor({ status: response.status, headers: response.headers, text }, call);
  }

  /** X's post lookup takes up to 100 ids (GET /2/tweets). */
  readonly maxPostsPerRequest = 100;

  /**
   * GET /2/tweets for up to 100 posts: public_metrics for each, and non_public_metrics (link
   * clicks) which X gives with the author's token for a post's first 30 days only; past that X
   * refuses the field for that post in `errors` and clicks read null. A post X cannot find is gone.
   */
  async fetchMetrics(request: PlatformMetricsRequest): Promise<Map<string, PostFigures | null>> {
    const ids = [...new Set(request.platformPostIds)];
    if (ids.length === 0 || ids.length > this.maxPostsPerRequest) throw new RangeError(`X looks up 1 to ${this.maxPostsPerRequest} posts at once`);
    // Written by hand: X's document declares both as comma-separated lists (style form, explode false).
    const query = `ids=${ids.join(',')}&post.fields=public_metrics,non_public_metrics`;
    const answer = await this.json(`/2/tweets?${query}`, { method: 'GET' }, this.call([request.accessToken]), request.accessToken);
    const found = new Map<string, PostFigures | null>(ids.map((id) => [id, null]));
    const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data : [];
    for (const post of data) {
      if (!isRecord(post) || typeof post.id !== 'string' || !found.has(post.id)) continue;
      const open = isRecord(post.public_metrics) ? post.public_metrics : {};
      const own = isRecord(post.non_public_metrics) ? post.non_public_metrics : {};
      found.set(post.id, {
        impressions: count(open.impression_count) ?? count(own.impression_count),
        likes: count(open.like_count),
        comments: count(open.reply_count),
        reposts: count(open.repost_count) ?? count(open.retweet_count),
        quotes: count(open.quote_count),
        bookmarks: count(open.bookmark_count),
        clicks: count(own.url_link_clicks),
      });
    }
    return found;
  }

  async refreshAccessToken(request: { refreshToken: string }): Promise<PlatformTokens> {
    const client = await this.config.clientCredentials();
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const call = this.call([request.refreshToken, client.clientSecret, basic]);
    const response = await platformFetch(
      `${this.baseUrl}/2/oauth2/token`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: request.refreshToken }).toString(),
      },
      call,
    );
    const text = await readText(response, call);
    if (!response.ok) throw tokenEndpointError({ status: response.status, headers: response.headers, text }, call);
    return tokensFrom(parseJson(text), request.refreshToken, 'x');
  }

  /**
   * The author's timeline since `since`, matched on the text a reader sees and, when known, on the
   * attached media: X's duplicate refusal compares text only, so a post with media and no text
   * can only be recognised by its media keys (`<type>_<media id>`). With `replyTo` (a thread's part,
   * a first comment) only a reply to that post matches, so replies are not excluded then, and the
   * reference each reply carries is asked for (docs/platforms.md, "X").
   */
  /**
   * X's `subscription_type` of the token's user (GET /2/users/me with user.fields, as X's OpenAPI
   * document names it): Premium and PremiumPlus post up to 25,000 weighted characters. Null when X
   * does not say.
   */
  async subscriptionType(request: { accessToken: string }): Promise<string | null> {
    const answer = await this.json('/2/users/me?user.fields=subscription_type', { method: 'GET' }, this.call([request.accessToken]), request.accessToken);
    const data = isRecord(answer) ? answer.data : undefined;
    return isRecord(data) && typeof data.subscription_type === 'string' ? data.subscription_type.slice(0, 32) : null;
  }

  async findRecentPost(request: {
    account: PlatformAccount;
    accessToken: string;
    text: string;
    mediaIds?: readonly string[];
    since: Date;
    replyTo?: string;
  }): Promise<PlatformPublishResult | null> {
    // X wants whole seconds in start_time.
    const startTime = new Date(Math.floor(request.since.getTime() / 1000) * 1000 - 60_000).toISOString().replace('.000Z', 'Z');
    const query = new URLSearchParams({
      max_results: '100',
      start_time: startTime,
      exclude: request.replyTo === undefined ? 'replies,retweets' : 'retweets',
      // X's OpenAPI document names this parameter post.fields (test/platforms/x-openapi.test.ts).
      'post.fields': 'created_at,attachments',
      ...(request.replyTo === undefined ? {} : { expansions: 'referenced_posts' }),
    });
    const answer = await this.json(
      `/2/users/${encodeURIComponent(request.account.platformUserId)}/tweets?${query.toString()}`,
      { method: 'GET' },
      this.call([request.accessToken]),
      request.accessToken,
    );
    const posts = isRecord(answer) && Array.isArray(answer.data) ? answer.data : [];
    const wanted = comparableText(request.text);
    const wantedMedia = [...(request.mediaIds ?? [])].sort().join(',');
    for (const post of posts) {
      if (!isRecord(post) || typeof post.id !== 'string' || typeof post.text !== 'string' || comparableText(post.text) !== wanted) continue;
      if (request.replyTo !== undefined && repliedTo(post) !== request.replyTo) continue;
      if (request.mediaIds !== undefined && request.mediaIds.length > 0) {
        const keys = isRecord(post.attachments) && Array.isArray(post.attachments.media_keys) ? post.attachments.media_keys : [];
        const media = keys.filter((key): key is string => typeof key === 'string').map((key) => key.slice(key.indexOf('_') + 1));
        if (media.sort().join(',') !== wantedMedia) continue;
      }
      return { platformPostId: post.id, publishedUrl: xPublicUrl(request.account.handle, post.id) };
    }
    return null;
  }

  /** A first comment on X is a reply from the same account to the post (POST /2/tweets with `reply`). */
  async publishComment(request: PlatformCommentRequest): Promise<PlatformCommentResult> {
    const result = await this.publish({
      account: request.account,
      accessToken: request.accessToken,
      text: request.text,
      media: [],
      options: {},
      replyTo: request.platformPostId,
    });
    return { platformCommentId: result.platformPostId };
  }

  /** The reply `publishComment` would have made, if X shows one: how a comment whose answer was lost is settled. */
  async findComment(request: PlatformCommentRequest & { since: Date }): Promise<PlatformCommentResult | null> {
    const found = await this.findRecentPost({
      account: request.account,
      accessToken: request.accessToken,
      text: request.text,
      since: request.since,
      replyTo: request.platformPostId,
    });
    return found === null ? null : { platformCommentId: found.platformPostId };
  }
}

export function xClientFromEnv(): XClient {
  return new XClient({
    baseUrl: optionalEnv(ENV.xApiBaseUrl, 'https://api.x.com'),
    clientCredentials: () => platformClientCredentials('x'),
  });
}

/** A count as X gives it: a non-negative integer, else not given. */
function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
