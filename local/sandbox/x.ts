/**
 * A stand-in for the parts of X API v2 the `x` adapter uses: create/delete posts, the simple and
 * the chunked media upload with STATUS polling, a user's recent posts, and the OAuth 2.0 refresh.
 * Same paths, status codes and error bodies as platforms.md describes; requests are validated
 * strictly (unknown fields refused, as X does), so the adapter cannot pass here and fail there.
 *
 * How it answers for an account comes from `accountBehaviour(accountId)`:
 *   ok       publishes
 *   refuse   403 problem object, as X does for a post it will not take
 *   expired  401 on every call, and the refresh grant is refused too (the user revoked access)
 *   flaky    503 once per post (account + text), then accepts
 *   refuse-comment  takes posts, refuses any reply to this account's own post (a first comment:
 *            a post has no thread beside a first comment), 403 as a refusal
 *   refuse-part-3   takes posts, refuses the third post of a reply chain (a thread's part 3), 403
 *
 * Replies (`reply.in_reply_to_tweet_id`) to an unknown or deleted post are refused as X refuses
 * them (403); a poll is checked as X's CreatePostsPoll says (2 to 4 choices of 1 to 25
 * characters, 5 to 10080 minutes) and refused beside media.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import twitterText from 'twitter-text';
import { issueSandboxTokens } from '../../lib/domain/sandbox-tokens.js';
import type { XSubscription } from '../../lib/domain/model.js';
import {
  BodyTooLargeError,
  SandboxPlatform,
  SLOW_CREATE_MS,
  isRecord,
  parseJsonBody,
  parseMultipart,
  pause,
  readBody,
  refreshTokenAccount,
  sendJson,
  snowflakeId,
  unixSeconds,
  type AccountBehaviour,
  type SandboxPost,
} from './common.js';
import { figuresAt } from './metrics.js';
import type { PostJournal } from './record.js';

export interface ClientCredentialsCheck {
  clientId: string;
  clientSecret: string;
}

export interface XSandboxOptions {
  accountBehaviour: AccountBehaviour;
  /** X's `subscription_type` of an account: Premium and PremiumPlus post up to 25,000 weighted characters. */
  xSubscription?: (accountId: string) => Promise<XSubscription>;
  /** When set, the refresh endpoint accepts only these client credentials (HTTP Basic). */
  client?: ClientCredentialsCheck;
  /** Posts per account per 15 minutes before 429 (X: 100). Unlimited when not set, so a bench is not throttled. */
  createLimitPer15Minutes?: number;
  /** STATUS polls that answer in_progress before `succeeded`. */
  processingPolls?: number;
  checkAfterSecs?: number;
  /** The authorization-code grant of the token endpoint (x-oauth.ts), after the client is authenticated. */
  authorizationCode?: (form: URLSearchParams, clientId: string) => { status: number; body: unknown };
  /** Where created and deleted posts are recorded across restarts (record.ts); memory only when absent. */
  journal?: PostJournal;
}

const CREATE_FIELDS = new Set([
  'text',
  'media',
  'community_id',
  'share_with_followers',
  'reply',
  'reply_settings',
  'quote_tweet_id',
  'poll',
  'geo',
  'for_super_followers_only',
  'direct_message_deep_link',
  'nullcast',
  'card_uri',
  'made_with_ai',
  'paid_partnership',
]);
const MEDIA_CATEGORIES = new Set(['tweet_image', 'tweet_gif', 'tweet_video', 'amplify_video', 'dm_image', 'dm_gif', 'dm_video', 'subtitles']);
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/bmp', 'image/pjpeg', 'image/tiff']);
const FIVE_MB = 5 * 1024 * 1024;
const MAX_VIDEO_BYTES = 512 * 1024 * 1024;

interface XMedia {
  id: string;
  accountId: string;
  category: string;
  mediaType: string;
  totalBytes: number;
  segments: Map<number, number>;
  state: 'uploading' | 'pending' | 'in_progress' | 'succeeded' | 'failed';
  pollsLeft: number;
  /** Set by POST /2/media/metadata; a post made with the media records it as received. */
  altText?: string;
}

function problem(status: number, title: string, detail: string, type = 'about:blank'): Record<string, unknown> {
  return { title, type, status, detail };
}

/** X answers every error of its v2 resource API as an RFC 7807 problem, with that media type. */
function sendProblem(res: ServerResponse, status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void {
  sendJson(res, status, body, { ...headers, 'Content-Type': 'application/problem+json' });
}

function invalidRequest(message: string): Record<string, unknown> {
  return {
    errors: [{ message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.x.com/2/problems/invalid-request',
  };
}

/** What GET /2/tweets takes; the fields are the Post fields of X's document. */
const LOOKUP_PARAMETERS = new Set(['ids', 'post.fields', 'tweet.fields', 'expansions', 'user.fields', 'media.fields', 'poll.fields', 'place.fields']);
const POST_FIELDS = new Set([
  'article', 'attachments', 'author_id', 'card_uri', 'community_id', 'context_annotations', 'conversation_id', 'created_at', 'display_text_range',
  'edit_controls', 'edit_history_tweet_ids', 'entities', 'geo', 'id', 'in_reply_to_user_id', 'lang', 'non_public_metrics', 'note_tweet', 'organic_metrics',
  'possibly_sensitive', 'promoted_metrics', 'public_metrics', 'referenced_tweets', 'reply_settings', 'scopes', 'source', 'text', 'withheld',
]);
/** X gives non_public_metrics (and organic_metrics) for a post's first 30 days only. */
const NON_PUBLIC_METRICS_DAYS = 30;

const UNAUTHORIZED = problem(401, 'Unauthorized', 'Unauthorized');
const FORBIDDEN_REFUSAL = problem(403, 'Forbidden', 'You are not permitted to perform this action.');
const DUPLICATE = problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
const REPLY_TO_GONE = problem(403, 'Forbidden', 'You attempted to reply to a Tweet that is deleted or not visible to you.');
const UNAVAILABLE = problem(503, 'Service Unavailable', 'Service Unavailable');

export class XSandbox extends SandboxPlatform {
  private readonly media = new Map<string, XMedia>();
  private readonly usedRefreshTokens = new Set<string>();
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly options: XSandboxOptions) {
    super(options.accountBehaviour, options.journal ?? null);
  }

  // ---- inspection helpers for tests (the shared ones are on SandboxPlatform) ----

  uploadedMedia(accountId: string): { id: string; mediaType: string; totalBytes: number; state: string }[] {
    return [...this.media.values()]
      .filter((item) => item.accountId === accountId)
      .map(({ id, mediaType, totalBytes, state }) => ({ id, mediaType, totalBytes, state }));
  }

  // ---- HTTP ----

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET';
    try {
      if (method === 'POST' && path === '/2/oauth2/token') return await this.refresh(req, res);

      const caller = await this.authenticate(req, res, {
        invalidToken: UNAUTHORIZED,
        expired: UNAUTHORIZED,
        bodyLimitBytes: 30 * 1024 * 1024,
        headers: { 'Content-Type': 'application/problem+json' },
      });
      if (!caller) return;
      const { accountId, behaviour } = caller;

      if (method === 'POST' && path === '/2/tweets') return await this.create(req, res, accountId, behaviour);
      const tweet = /^\/2\/tweets\/([^/]+)$/.exec(path);
      if (method === 'DELETE' && tweet?.[1]) return this.remove(res, accountId, decodeURIComponent(tweet[1]));
      if (method === 'POST' && path === '/2/media/upload') return await this.simpleUpload(req, res, accountId);
      if (method === 'GET' && path === '/2/media/upload') return this.status(res, accountId, query);
      if (method === 'POST' && path === '/2/media/upload/initialize') return await this.initialize(req, res, accountId);
      if (method === 'POST' && path === '/2/media/metadata') return await this.metadata(req, res, accountId);
      const step = /^\/2\/media\/upload\/(\d+)\/(append|finalize)$/.exec(path);
      if (method === 'POST' && step?.[1] && step[2] === 'append') return await this.append(req, res, accountId, step[1]);
      if (method === 'POST' && step?.[1] && step[2] === 'finalize') return this.finalize(res, accountId, step[1]);
      if (method === 'GET' && path === '/2/tweets') return this.lookup(res, accountId, query);
      const timeline = /^\/2\/users\/(\d+)\/tweets$/.exec(path);
      if (method === 'GET' && timeline) return this.timeline(res, accountId, query);
      return sendProblem(res, 404, problem(404, 'Not Found Error', `No route for ${method} ${path}`));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return sendProblem(res, 413, problem(413, 'Payload Too Large', 'Request entity too large'));
      throw error;
    }
  }

  private rateHeaders(accountId: string, count: boolean): { headers: Record<string, string>; limited: boolean } {
    const limit = this.options.createLimitPer15Minutes;
    const windowMs = 15 * 60 * 1000;
    const now = Date.now();
    let window = this.windows.get(accountId);
    if (!window || now - window.start >= windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(accountId, window);
    }
    const reset = String(unixSeconds(new Date(window.start + windowMs)));
    const max = limit ?? 100;
    if (limit !== undefined && window.count >= limit) {
      return { headers: { 'x-rate-limit-limit': String(max), 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': reset }, limited: true };
    }
    if (count) window.count++;
    const remaining = limit === undefined ? max - 1 : Math.max(0, max - window.count);
    return { headers: { 'x-rate-limit-limit': String(max), 'x-rate-limit-remaining': String(remaining), 'x-rate-limit-reset': reset }, limited: false };
  }

  private async create(req: IncomingMessage, res: ServerResponse, accountId: string, behaviour: string): Promise<void> {
    this.countCreateAttempt(accountId);
    const raw = await readBody(req, 1024 * 1024);
    const fault = this.faults.take(accountId);
    if (fault === 'drop_before_create') return void req.socket.destroy();
    if (fault === 'rate_limited' || fault === 'slow_rate_limited') {
      if (fault === 'slow_rate_limited') await pause(SLOW_CREATE_MS);
      const reset = String(unixSeconds(new Date(Date.now() + 60_000)));
      return sendProblem(res, 429, problem(429, 'Too Many Requests', 'Too Many Requests'), {
        'x-rate-limit-limit': '100',
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': reset,
      });
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return sendProblem(res, 400, invalidRequest('Content-Type must be application/json'));
    }
    const body = parseJsonBody(raw);
    if (!isRecord(body)) return sendProblem(res, 400, invalidRequest('The request body is not a JSON object'));
    for (const field of Object.keys(body)) {
      if (!CREATE_FIELDS.has(field)) {
        return sendProblem(res, 400, invalidRequest(`$.${field}: is not defined in the schema and the schema does not allow additional properties`));
      }
    }
    const text = body.text;
    if (text !== undefined && typeof text !== 'string') return sendProblem(res, 400, invalidRequest('$.text: string expected'));
    let mediaIds: string[] = [];
    if (body.media !== undefined) {
      const media = body.media;
      if (!isRecord(media) || !Array.isArray(media.media_ids) || Object.keys(media).some((key) => !['media_ids', 'tagged_user_ids'].includes(key))) {
        return sendProblem(res, 400, invalidRequest('$.media: media_ids (array of strings) expected'));
      }
      const ids = media.media_ids as unknown[];
      if (ids.length < 1 || ids.length > 4 || ids.some((id) => typeof id !== 'string' || !/^\d{1,19}$/.test(id))) {
        return sendProblem(res, 400, invalidRequest('$.media.media_ids: 1 to 4 numeric string ids expected'));
      }
      mediaIds = ids as string[];
      for (const id of mediaIds) {
        const item = this.media.get(id);
        if (!item || item.accountId !== accountId) return sendProblem(res, 400, invalidRequest(`Your media IDs are invalid.`));
        if (item.state !== 'succeeded') return sendProblem(res, 400, invalidRequest(`Media ${id} is not ready to be attached (state ${item.state}).`));
      }
      const videos = mediaIds.filter((id) => this.media.get(id)?.category !== 'tweet_image');
      if (videos.length > 0 && mediaIds.length > 1) return sendProblem(res, 400, invalidRequest('A post takes up to 4 images, or 1 GIF or 1 video.'));
    }
    if (body.community_id !== undefined && (typeof body.community_id !== 'string' || !/^\d{1,19}$/.test(body.community_id))) {
      return sendProblem(res, 400, invalidRequest('$.community_id: numeric string expected'));
    }
    if (body.share_with_followers !== undefined) {
      if (typeof body.share_with_followers !== 'boolean') return sendProblem(res, 400, invalidRequest('$.share_with_followers: boolean expected'));
      if (body.community_id === undefined) return sendProblem(res, 400, invalidRequest('share_with_followers requires community_id'));
    }
    let replyTo: string | null = null;
    if (body.reply !== undefined) {
      const reply = body.reply;
      if (
        !isRecord(reply) ||
        typeof reply.in_reply_to_tweet_id !== 'string' ||
        !/^\d{1,19}$/.test(reply.in_reply_to_tweet_id) ||
        Object.keys(reply).some((key) => !['in_reply_to_tweet_id', 'auto_populate_reply_metadata', 'exclude_reply_user_ids'].includes(key))
      ) {
        return sendProblem(res, 400, invalidRequest('$.reply: in_reply_to_tweet_id (numeric string) expected'));
      }
      replyTo = reply.in_reply_to_tweet_id;
    }
    let poll: { options: string[]; duration_minutes: number } | null = null;
    if (body.poll !== undefined) {
      const given = body.poll;
      if (!isRecord(given) || Object.keys(given).some((key) => !['options', 'duration_minutes', 'reply_settings'].includes(key))) {
        return sendProblem(res, 400, invalidRequest('$.poll: options and duration_minutes expected'));
      }
      const options = given.options;
      if (!Array.isArray(options) || options.length < 2 || options.length > 4 || options.some((option) => typeof option !== 'string' || option.length < 1 || option.length > 25)) {
        return sendProblem(res, 400, invalidRequest('$.poll.options: 2 to 4 choices of 1 to 25 characters expected'));
      }
      const minutes = given.duration_minutes;
      if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 5 || minutes > 10080) {
        return sendProblem(res, 400, invalidRequest('$.poll.duration_minutes: a whole number from 5 to 10080 expected'));
      }
      if (mediaIds.length > 0) return sendProblem(res, 400, invalidRequest('A post cannot carry both media and a poll.'));
      poll = { options: options as string[], duration_minutes: minutes };
    }
    if ((text === undefined || text === '') && mediaIds.length === 0) {
      return sendProblem(res, 400, invalidRequest('Post text or media is required.'));
    }
    const normalized = (text ?? '').normalize('NFC');
    const weighted = twitterText.parseTweet(normalized).weightedLength;
    // Only a text over 280 asks the subscription: an ordinary post costs the stand-in no read.
    const premium = weighted > 280 && ['Premium', 'PremiumPlus'].includes((await this.options.xSubscription?.(accountId)) ?? 'None');
    if (weighted > (premium ? 25_000 : 280)) {
      return sendJson(
        res,
        400,
        invalidRequest('Your Tweet text is too long. For more information on how X determines text length see https://github.com/twitter/twitter-text.'),
      );
    }

    const rate = this.rateHeaders(accountId, false);
    if (rate.limited) return sendProblem(res, 429, problem(429, 'Too Many Requests', 'Too Many Requests'), rate.headers);
    if (behaviour === 'refuse') return sendProblem(res, 403, FORBIDDEN_REFUSAL, rate.headers);
    if (behaviour === 'flaky' && this.failsOnce(accountId, normalized)) return sendProblem(res, 503, UNAVAILABLE);
    if (replyTo !== null) {
      const parent = this.posts.get(replyTo);
      if (!parent || parent.deletedAt !== null) return sendProblem(res, 403, REPLY_TO_GONE, rate.headers);
      if (behaviour === 'refuse-comment' && parent.accountId === accountId) return sendProblem(res, 403, FORBIDDEN_REFUSAL, rate.headers);
      if (behaviour === 'refuse-part-3' && this.chainLength(parent) + 1 === 3) return sendProblem(res, 403, FORBIDDEN_REFUSAL, rate.headers);
    }
    if (normalized !== '' && this.listPosts(accountId).some((post) => post.deletedAt === null && post.text === normalized)) {
      return sendProblem(res, 403, DUPLICATE, rate.headers);
    }

    const counted = this.rateHeaders(accountId, true);
    const id = snowflakeId();
    const details: Record<string, unknown> = {};
    if (body.community_id !== undefined) details.community_id = body.community_id;
    if (body.share_with_followers !== undefined) details.share_with_followers = body.share_with_followers;
    if (replyTo !== null) details.in_reply_to_tweet_id = replyTo;
    if (poll !== null) details.poll = poll;
    // The alt text each attached media carried when the post was made (the sandbox record shows it).
    const described = mediaIds.filter((mediaId) => this.media.get(mediaId)?.altText !== undefined);
    if (described.length > 0) details.mediaAltText = Object.fromEntries(described.map((mediaId) => [mediaId, this.media.get(mediaId)?.altText]));
    this.storePost({ id, accountId, text: normalized, mediaIds, createdAt: new Date(), deletedAt: null, details });

    if (!(await this.answerAfterCreate(req, res, fault))) return;
    return sendJson(res, 201, { data: { id, text: normalized, edit_history_tweet_ids: [id] } }, counted.headers);
  }

  /** How many posts a reply chain holds up to and including `post` (1 for a post that answers none). */
  private chainLength(post: SandboxPost): number {
    let length = 1;
    for (let at = post; length <= 1000; length++) {
      const parentId = at.details.in_reply_to_tweet_id;
      const parent = typeof parentId === 'string' ? this.posts.get(parentId) : undefined;
      if (!parent) return length;
      at = parent;
    }
    return length;
  }

  private remove(res: ServerResponse, accountId: string, id: string): void {
    const post = this.posts.get(id);
    if (!post || post.deletedAt !== null) {
      // X's ResourceNotFoundProblem, as its OpenAPI document describes it (test/platforms/x-openapi.test.ts).
      return sendProblem(
        res,
        404,
        {
          title: 'Not Found Error',
          detail: `Could not find tweet with id: [${id}].`,
          type: 'https://api.x.com/2/problems/resource-not-found',
          resource_type: 'tweet',
          resource_id: id,
          parameter: 'id',
          value: id,
        },
      );
    }
    if (post.accountId !== accountId) return sendProblem(res, 403, problem(403, 'Forbidden', 'You are not authorized to delete this Tweet.'));
    this.markDeleted(post);
    return sendJson(res, 200, { data: { deleted: true } });
  }

  private newMedia(accountId: string, category: string, mediaType: string, totalBytes: number): XMedia {
    const item: XMedia = {
      id: snowflakeId(),
      accountId,
      category,
      mediaType,
      totalBytes,
      segments: new Map(),
      state: 'uploading',
      pollsLeft: this.options.processingPolls ?? 1,
    };
    this.media.set(item.id, item);
    return item;
  }

  private mediaAnswer(item: XMedia): Record<string, unknown> {
    const data: Record<string, unknown> = {
      id: item.id,
      media_key: `${item.category === 'tweet_image' ? 3 : item.category === 'tweet_gif' ? 16 : 7}_${item.id}`,
      size: item.totalBytes,
      expires_after_secs: 86400,
    };
    if (item.state === 'pending' || item.state === 'in_progress') {
      data.processing_info = { state: item.state, check_after_secs: this.options.checkAfterSecs ?? 1, progress_percent: item.state === 'pending' ? 0 : 50 };
    } else if (item.state === 'succeeded' && item.category !== 'tweet_image') {
      data.processing_info = { state: 'succeeded', progress_percent: 100 };
    }
    return { data };
  }

  private async simpleUpload(req: IncomingMessage, res: ServerResponse, accountId: string): Promise<void> {
    const form = await parseMultipart(req, await readBody(req, 20 * 1024 * 1024));
    if (!form) return sendProblem(res, 400, invalidRequest('multipart/form-data body expected'));
    // X's MediaUploadRequest admits these fields and no others (additionalProperties: false).
    const unknown = [...form.keys()].find((field) => !['media', 'media_category', 'additional_owners'].includes(field));
    if (unknown !== undefined) return sendProblem(res, 400, invalidRequest(`$.${unknown}: unknown field`));
    const file = form.get('media');
    const category = form.get('media_category') ?? 'tweet_image';
    if (!(file instanceof Blob)) return sendProblem(res, 400, invalidRequest('$.media: a file is required'));
    if (typeof category !== 'string' || !MEDIA_CATEGORIES.has(category)) return sendProblem(res, 400, invalidRequest('$.media_category: unknown category'));
    if (category !== 'tweet_image') {
      return sendProblem(res, 400, invalidRequest(`${category} must be uploaded with initialize/append/finalize`));
    }
    const mediaType = file.type;
    if (!IMAGE_TYPES.has(mediaType)) return sendProblem(res, 400, invalidRequest(`Unsupported media type ${mediaType}`));
    if (file.size === 0 || file.size > FIVE_MB) return sendProblem(res, 400, invalidRequest('Images must be between 1 byte and 5 MB.'));
    const item = this.newMedia(accountId, category, mediaType, file.size);
    item.segments.set(0, file.size);
    item.state = 'succeeded';
    return sendJson(res, 200, this.mediaAnswer(item));
  }

  private async initialize(req: IncomingMessage, res: ServerResponse, accountId: string): Promise<void> {
    const body = parseJsonBody(await readBody(req, 64 * 1024));
    if (!isRecord(body)) return sendProblem(res, 400, invalidRequest('The request body is not a JSON object'));
    for (const field of Object.keys(body)) {
      if (!['media_type', 'total_bytes', 'media_category', 'shared', 'additional_owners'].includes(field)) {
        return sendProblem(res, 400, invalidRequest(`$.${field}: is not defined in the schema and the schema does not allow additional properties`));
      }
    }
    const { media_type: mediaType, total_bytes: totalBytes, media_category: category } = body;
    if (typeof mediaType !== 'string' || !(mediaType === 'video/mp4' || IMAGE_TYPES.has(mediaType))) {
      return sendProblem(res, 400, invalidRequest('$.media_type: unsupported media type'));
    }
    if (typeof totalBytes !== 'number' || !Number.isInteger(totalBytes) || totalBytes < 1 || totalBytes > MAX_VIDEO_BYTES) {
      return sendProblem(res, 400, invalidRequest('$.total_bytes: a whole number of bytes up to 512 MB expected'));
    }
    if (typeof category !== 'string' || !MEDIA_CATEGORIES.has(category)) return sendProblem(res, 400, invalidRequest('$.media_category: unknown category'));
    const item = this.newMedia(accountId, category, mediaType, totalBytes);
    return sendJson(res, 200, { data: { id: item.id, media_key: `7_${item.id}`, expires_after_secs: 86400 } });
  }

  /**
   * POST /2/media/metadata as X's CreateMediaMetadataRequest says: `id` (the account's own media),
   * `metadata.alt_text.text` up to 1,000 characters; other metadata kinds are not used by the
   * adapter and refused here, so it cannot come to depend on one unnoticed.
   */
  private async metadata(req: IncomingMessage, res: ServerResponse, accountId: string): Promise<void> {
    const body = parseJsonBody(await readBody(req, 64 * 1024));
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json') || !isRecord(body)) {
      return sendProblem(res, 400, invalidRequest('A JSON object body is expected'));
    }
    const unknown = Object.keys(body).find((key) => key !== 'id' && key !== 'metadata');
    if (unknown !== undefined) return sendProblem(res, 400, invalidRequest(`$.${unknown}: is not defined in the schema and the schema does not allow additional properties`));
    if (typeof body.id !== 'string' || !/^[0-9]{1,19}$/.test(body.id)) return sendProblem(res, 400, invalidRequest('$.id: a numeric string media id is required'));
    const metadata = body.metadata;
    const altText = isRecord(metadata) && isRecord(metadata.alt_text) ? metadata.alt_text.text : undefined;
    if (!isRecord(metadata) || Object.keys(metadata).some((key) => key !== 'alt_text') || !isRecord(metadata.alt_text) || Object.keys(metadata.alt_text).some((key) => key !== 'text')) {
      return sendProblem(res, 400, invalidRequest('$.metadata: only alt_text {text} is taken by this sandbox'));
    }
    if (typeof altText !== 'string' || [...altText].length > 1000) return sendProblem(res, 400, invalidRequest('$.metadata.alt_text.text: a string of at most 1000 characters is required'));
    const item = this.ownMedia(res, accountId, body.id);
    if (!item) return;
    item.altText = altText;
    return sendJson(res, 200, { data: { id: item.id, associated_metadata: { alt_text: { text: altText } } } });
  }

  private ownMedia(res: ServerResponse, accountId: string, id: string): XMedia | null {
    const item = this.media.get(id);
    if (!item || item.accountId !== accountId) {
      sendProblem(res, 400, invalidRequest(`Media id ${id} is invalid.`));
      return null;
    }
    return item;
  }

  private async append(req: IncomingMessage, res: ServerResponse, accountId: string, id: string): Promise<void> {
    const form = await parseMultipart(req, await readBody(req, FIVE_MB + 64 * 1024));
    const item = this.ownMedia(res, accountId, id);
    if (!item) return;
    if (!form) return sendProblem(res, 400, invalidRequest('multipart/form-data body expected'));
    if (item.state !== 'uploading') return sendProblem(res, 400, invalidRequest('The upload was already finalized.'));
    const chunk = form.get('media');
    const segment = Number(form.get('segment_index'));
    if (!(chunk instanceof Blob) || chunk.size === 0 || chunk.size > FIVE_MB) return sendProblem(res, 400, invalidRequest('$.media: a chunk of 1 byte to 5 MB is required'));
    if (!Number.isInteger(segment) || segment < 0 || segment > 999) return sendProblem(res, 400, invalidRequest('$.segment_index: 0 to 999 expected'));
    item.segments.set(segment, chunk.size);
    return sendJson(res, 200, { data: { expires_at: unixSeconds(new Date(Date.now() + 86_400_000)) } });
  }

  private finalize(res: ServerResponse, accountId: string, id: string): void {
    const item = this.ownMedia(res, accountId, id);
    if (!item) return;
    if (item.state !== 'uploading') return sendProblem(res, 400, invalidRequest('The upload was already finalized.'));
    const indexes = [...item.segments.keys()].sort((a, b) => a - b);
    const contiguous = indexes.every((index, position) => index === position);
    const received = [...item.segments.values()].reduce((sum, size) => sum + size, 0);
    if (!contiguous || received !== item.totalBytes) {
      return sendProblem(res, 400, invalidRequest(`File size mismatch: ${received} bytes received in segments ${indexes.join(',')}, ${item.totalBytes} declared.`));
    }
    item.state = item.pollsLeft > 0 ? 'pending' : 'succeeded';
    return sendJson(res, 200, this.mediaAnswer(item));
  }

  private status(res: ServerResponse, accountId: string, query: URLSearchParams): void {
    if (query.get('command') !== 'STATUS') return sendProblem(res, 400, invalidRequest('command must be STATUS'));
    const item = this.ownMedia(res, accountId, query.get('media_id') ?? '');
    if (!item) return;
    if (item.state === 'pending' || item.state === 'in_progress') {
      item.pollsLeft--;
      item.state = item.pollsLeft > 0 ? 'in_progress' : 'succeeded';
    }
    return sendJson(res, 200, this.mediaAnswer(item));
  }

  /**
   * GET /2/tweets?ids=...: up to 100 posts by id, with `public_metrics` for any post and
   * `non_public_metrics` only for the caller's own posts of the last 30 days (X's rule: a user
   * context on the author, within 30 days of posting); anything else of those is refused per post in
   * `errors` as X does (not-authorized-for-field), beside the post's other fields. A post unknown or
   * deleted is a resource-not-found entry in `errors`. The figures are figuresAt (metrics.ts).
   * X's document names the fields parameter `post.fields`; X itself still takes `tweet.fields`.
   */
  private lookup(res: ServerResponse, accountId: string, query: URLSearchParams): void {
    this.countMetricsRead(accountId);
    if (this.faults.takeIf(accountId, 'metrics_rate_limited')) {
      return sendProblem(res, 429, problem(429, 'Too Many Requests', 'Too Many Requests'), {
        'x-rate-limit-limit': '900',
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(unixSeconds(new Date(Date.now() + 60_000))),
      });
    }
    for (const name of query.keys()) {
      if (!LOOKUP_PARAMETERS.has(name)) return sendProblem(res, 400, invalidRequest(`The query parameter [${name}] is not one of [${[...LOOKUP_PARAMETERS].join(',')}]`));
    }
    const ids = (query.get('ids') ?? '').split(',').filter((id) => id !== '');
    if (ids.length === 0 || ids.length > 100) return sendProblem(res, 400, invalidRequest('The `ids` query parameter value must be 1 to 100 post ids'));
    const badId = ids.find((id) => !/^[0-9]{1,19}$/.test(id));
    if (badId !== undefined) return sendProblem(res, 400, invalidRequest(`The \`ids\` query parameter value [${badId}] is not valid`));
    const fields = [...(query.get('post.fields') ?? '').split(','), ...(query.get('tweet.fields') ?? '').split(',')].filter((field) => field !== '');
    const unknown = fields.find((field) => !POST_FIELDS.has(field));
    if (unknown !== undefined) return sendProblem(res, 400, invalidRequest(`The \`post.fields\` query parameter value [${unknown}] is not one of [${[...POST_FIELDS].join(',')}]`));
    const now = new Date();
    const data: Record<string, unknown>[] = [];
    const errors: Record<string, unknown>[] = [];
    for (const id of new Set(ids)) {
      const post = this.posts.get(id);
      if (!post || post.deletedAt !== null) {
        errors.push({
          value: id,
          detail: `Could not find post with ids: [${id}].`,
          title: 'Not Found Error',
          resource_type: 'post',
          parameter: 'ids',
          resource_id: id,
          type: 'https://api.x.com/2/problems/resource-not-found',
        });
        continue;
      }
      const figures = figuresAt(post.id, post.createdAt, now);
      const entry: Record<string, unknown> = { id: post.id, text: post.text, edit_history_tweet_ids: [post.id] };
      if (fields.includes('created_at')) entry.created_at = post.createdAt.toISOString();
      if (fields.includes('public_metrics')) {
        entry.public_metrics = {
          repost_count: figures.reposts,
          reply_count: figures.comments,
          like_count: figures.likes,
          quote_count: figures.quotes,
          bookmark_count: figures.bookmarks,
          impression_count: figures.impressions,
        };
      }
      if (fields.includes('non_public_metrics')) {
        const own = post.accountId === accountId;
        const recent = now.getTime() - post.createdAt.getTime() <= NON_PUBLIC_METRICS_DAYS * 86_400_000;
        if (own && recent) {
          entry.non_public_metrics = { impression_count: figures.impressions, url_link_clicks: figures.clicks, user_profile_clicks: figures.profileClicks };
        } else {
          errors.push({
            value: id,
            detail: `Sorry, you are not authorized to access 'non_public_metrics' on the post with id: [${id}].`,
            title: 'Field Authorization Error',
            resource_type: 'post',
            field: 'non_public_metrics',
            section: 'data',
            resource_id: id,
            type: 'https://api.x.com/2/problems/not-authorized-for-field',
          });
        }
      }
      data.push(entry);
    }
    return sendJson(res, 200, { ...(data.length > 0 ? { data } : {}), ...(errors.length > 0 ? { errors } : {}) });
  }

  private timeline(res: ServerResponse, accountId: string, query: URLSearchParams): void {
    const startTime = query.get('start_time');
    const since = startTime === null ? 0 : Date.parse(startTime);
    if (Number.isNaN(since)) return sendProblem(res, 400, invalidRequest('$.start_time: invalid time'));
    const max = Number(query.get('max_results') ?? '10');
    const excluded = (query.get('exclude') ?? '').split(',');
    // X returns a reply's reference when asked to expand it (its document's `referenced_posts`).
    const withReferences = (query.get('expansions') ?? '').split(',').includes('referenced_posts');
    // The token names the account; the sandbox has no user ids of its own, so the path id is the caller.
    const data = this.listPosts(accountId)
      .filter((post) => post.deletedAt === null && post.createdAt.getTime() >= since)
      .filter((post) => !(excluded.includes('replies') && typeof post.details.in_reply_to_tweet_id === 'string'))
      .reverse()
      .slice(0, Number.isInteger(max) && max >= 5 && max <= 100 ? max : 10)
      .map((post) => ({
        id: post.id,
        text: post.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
        edit_history_tweet_ids: [post.id],
        ...(post.mediaIds.length > 0 ? { attachments: { media_keys: post.mediaIds.map((id) => `3_${id}`) } } : {}),
        ...(withReferences && typeof post.details.in_reply_to_tweet_id === 'string'
          ? { referenced_posts: [{ type: 'replied_to', id: post.details.in_reply_to_tweet_id }] }
          : {}),
      }));
    return sendJson(res, 200, data.length === 0 ? { meta: { result_count: 0 } } : { data, meta: { result_count: data.length } });
  }

  private async refresh(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, 64 * 1024);
    const invalid = { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' };
    const basic = /^Basic (\S+)$/.exec(String(req.headers.authorization ?? ''));
    const decoded = basic?.[1] ? Buffer.from(basic[1], 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const clientId = colon > 0 ? decoded.slice(0, colon) : '';
    const clientSecret = colon > 0 ? decoded.slice(colon + 1) : '';
    const expected = this.options.client;
    if (clientId === '' || clientSecret === '' || (expected && (expected.clientId !== clientId || expected.clientSecret !== clientSecret))) {
      return sendJson(res, 401, { error: 'unauthorized_client', error_description: 'Missing valid authorization header' });
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return sendJson(res, 400, invalid);
    }
    const form = new URLSearchParams(raw.toString('utf8'));
    if (form.get('grant_type') === 'authorization_code' && this.options.authorizationCode) {
      const answer = this.options.authorizationCode(form, clientId);
      return sendJson(res, answer.status, answer.body);
    }
    const token = form.get('refresh_token') ?? '';
    if (form.get('grant_type') !== 'refresh_token') {
      return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'grant_type must be refresh_token' });
    }
    const accountId = refreshTokenAccount(token);
    if (accountId === null || this.usedRefreshTokens.has(token)) return sendJson(res, 400, invalid);
    if ((await this.accountBehaviour(accountId)) === 'expired') return sendJson(res, 400, invalid);
    // X rotates refresh tokens: the one just used stops working.
    this.usedRefreshTokens.add(token);
    this.countRefresh();
    const issued = issueSandboxTokens(accountId, 'x', new Date());
    return sendJson(res, 200, {
      token_type: 'bearer',
      expires_in: 7200,
      access_token: issued.accessToken,
      scope: 'tweet.read tweet.write users.read media.write offline.access',
      refresh_token: issued.refreshToken,
    });
  }
}
