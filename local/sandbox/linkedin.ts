/**
 * A stand-in for the parts of LinkedIn's versioned REST API the `linkedin` adapter uses: Posts
 * (create with text, media, a poll or a document; delete; the author finder), Images, Videos and
 * Documents (initializeUpload, PUT to the upload URL, finalizeUpload for videos, status), comments
 * through socialActions (create, list), and the OAuth refresh. Every /rest call must carry `LinkedIn-Version` and
 * `X-Restli-Protocol-Version: 2.0.0`, as LinkedIn requires. Commentary is read as "little text":
 * an unescaped reserved character cuts the stored text there, exactly the silent loss the adapter
 * must prevent, so a test can see it.
 *
 * A version over 12 months old (or not yet released) is answered 426 NONEXISTENT_VERSION, as
 * LinkedIn answers once it retires a version.
 *
 * Behaviour per account (`accountBehaviour`): ok publishes; refuse 422 with LinkedIn's body;
 * expired 401 on every call and the refresh grant refused; flaky 503 once per post (and per
 * comment), then accepts; refuse-comment takes posts and refuses every comment (403, as LinkedIn
 * answers a comment it will not take); refuse-part-3 means nothing here (LinkedIn has no threads):
 * posts and comments are taken. Armed faults (drop_after_create, ...) apply to the next create,
 * a post's or a comment's alike. Whatever the behaviour, an access token past its end (it carries
 * it: lib/domain/sandbox-tokens.ts) is answered 401 EXPIRED_ACCESS_TOKEN, as LinkedIn answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { issueSandboxTokens } from '../../lib/domain/sandbox-tokens.js';
import { parseLittleText, unescapeLittleText } from '../../lib/platforms/linkedin-text.js';
import { linkedinDisplayText, linkedinSourceText } from '../../lib/domain/linkedin-markup.js';
import type { ClientCredentialsCheck } from './x.js';
import {
  BodyTooLargeError,
  SandboxPlatform,
  assetId,
  SLOW_CREATE_MS,
  isRecord,
  parseJsonBody,
  pause,
  readBody,
  refreshTokenAccount,
  sendJson,
  snowflakeId,
  type AccountBehaviour,
} from './common.js';
import { figuresAt } from './metrics.js';
import type { PostJournal } from './record.js';

export interface LinkedinSandboxOptions {
  accountBehaviour: AccountBehaviour;
  /** Base URL the server is reached at; upload URLs point back to it. Set by startSandboxPlatforms. */
  baseUrl: () => string;
  client?: ClientCredentialsCheck;
  /** Bytes per video part in upload instructions (LinkedIn: 4 MiB). */
  videoPartBytes?: number;
  /** Status reads that answer PROCESSING after finalize before AVAILABLE. */
  processingPolls?: number;
  /** The authorization-code grant of the token endpoint (linkedin-oauth.ts), after the client is authenticated. */
  authorizationCode?: (form: URLSearchParams, clientId: string) => { status: number; body: unknown };
  /** Where created and deleted posts are recorded across restarts (record.ts); memory only when absent. */
  journal?: PostJournal;
}

const CREATE_FIELDS = new Set([
  'author',
  'commentary',
  'visibility',
  'distribution',
  'lifecycleState',
  'isReshareDisabledByAuthor',
  'content',
  'contentLandingPage',
  'contentCallToActionLabel',
  'reshareContext',
  'adContext',
  'container',
]);
const AUTHOR = /^urn:li:(person|organization):[A-Za-z0-9_-]+$/;
/** memberCreatorPostAnalytics's queryType values. */
const MEMBER_QUERY_TYPES = new Set(['IMPRESSION', 'MEMBERS_REACHED', 'RESHARE', 'REACTION', 'COMMENT']);
const POST_URN = /^urn:li:(share|ugcPost):\S+$/;
/** LinkedIn's poll durations (Poll API); 2-4 options of at most 30 characters, a question of at most 140 (?). */
const POLL_DURATIONS = new Set(['ONE_DAY', 'THREE_DAYS', 'SEVEN_DAYS', 'FOURTEEN_DAYS']);
const POLL_QUESTION_MAX = 140;
const POLL_OPTION_MAX = 30;
/** Documents API: at most 100 MB (and 300 pages). */
const DOCUMENT_MAX_BYTES = 100 * 1024 * 1024;
/** A comment's text: at most 1,250 characters. */
const COMMENT_MAX = 1250;

interface LinkedinAsset {
  urn: string;
  kind: 'image' | 'video' | 'document';
  owner: string;
  accountId: string;
  /** Image: received bytes. Video: expected size. */
  sizeBytes: number;
  uploaded: boolean;
  uploadToken: string;
  /** Video parts: range and the ETag given for it once uploaded. */
  parts: { firstByte: number; lastByte: number; etag: string | null }[];
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  pollsLeft: number;
  processingFailureReason?: string;
}

/** A comment the sandbox holds (memory only: not journaled across restarts). */
export interface SandboxComment {
  urn: string;
  id: string;
  postUrn: string;
  accountId: string;
  actor: string;
  /** As a reader sees it (unescaped, cut at an unescaped reserved character like a commentary). */
  text: string;
  /** The message as sent. */
  message: string;
  createdAt: Date;
}

function error(status: number, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { status, ...extra, message };
}

function fieldError(path: string, problem: string): Record<string, unknown> {
  return error(422, `ERROR :: ${path} :: ${problem}\n`, { code: 'UNPROCESSABLE_ENTITY' });
}

/**
 * What LinkedIn keeps of a commentary, read as little text (parseLittleText): escapes undone,
 * hashtags and mentions as elements (written back the way a user writes them, `#tag` and
 * `@[Name](urn)`, so the record compares with the text the service meant), and cut at the first
 * reserved character that was not escaped (that is how LinkedIn loses text without saying so).
 * An element begun but malformed is refused (422), as LinkedIn refuses it.
 */
export function readCommentary(commentary: string): { ok: true; text: string; shown: string; cut: boolean } | { ok: false; message: string } {
  const reading = parseLittleText(commentary);
  if (!reading.ok) return reading;
  return { ok: true, text: linkedinSourceText(reading.segments), shown: linkedinDisplayText(reading.segments), cut: reading.cut };
}

/** The text kept for a commentary (tests; a malformed one throws). */
export function storedCommentary(commentary: string): string {
  const reading = readCommentary(commentary);
  if (!reading.ok) throw new Error(reading.message);
  return reading.text;
}

/** How long LinkedIn serves a monthly version: at least a year, then 426 NONEXISTENT_VERSION. */
export const LINKEDIN_VERSION_LIFETIME_MONTHS = 12;

/**
 * LinkedIn's answer to a well-formed LinkedIn-Version it does not serve: older than
 * LINKEDIN_VERSION_LIFETIME_MONTHS months, or a month still to come. LinkedIn names the version
 * as YYYYMMDD in its message ("Requested version 20240401 is not active"). Null when active.
 */
export function inactiveVersionAnswer(version: string, now: Date): Record<string, unknown> | null {
  const year = Number(version.slice(0, 4));
  const month = Number(version.slice(4, 6));
  const age = now.getUTCFullYear() * 12 + now.getUTCMonth() - (year * 12 + (month - 1));
  if (month >= 1 && month <= 12 && age >= 0 && age <= LINKEDIN_VERSION_LIFETIME_MONTHS) return null;
  return { status: 426, code: 'NONEXISTENT_VERSION', message: `Requested version ${version.slice(0, 6)}01 is not active` };
}

export class LinkedinSandbox extends SandboxPlatform {
  private readonly assets = new Map<string, LinkedinAsset>();
  private readonly comments: SandboxComment[] = [];

  constructor(private readonly options: LinkedinSandboxOptions) {
    super(options.accountBehaviour, options.journal ?? null);
  }

  // ---- inspection helpers for tests (the shared ones are on SandboxPlatform) ----

  uploadedMedia(accountId: string): { urn: string; kind: string; sizeBytes: number; status: string }[] {
    return [...this.assets.values()]
      .filter((asset) => asset.accountId === accountId)
      .map(({ urn, kind, sizeBytes, status }) => ({ urn, kind, sizeBytes, status }));
  }

  /** The comments made on a post (or by an account), oldest first. */
  listComments(filter: { postUrn?: string; accountId?: string } = {}): SandboxComment[] {
    return this.comments.filter(
      (comment) => (filter.postUrn === undefined || comment.postUrn === filter.postUrn) && (filter.accountId === undefined || comment.accountId === filter.accountId),
    );
  }

  // ---- HTTP ----

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const method = req.method ?? 'GET';
    try {
      if (method === 'POST' && path === '/oauth/v2/accessToken') return await this.refresh(req, res);

      const caller = await this.authenticate(req, res, {
        invalidToken: error(401, 'Invalid access token', { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' }),
        expired: error(401, 'The token used in the request has expired', { serviceErrorCode: 65601, code: 'EXPIRED_ACCESS_TOKEN' }),
        bodyLimitBytes: 600 * 1024 * 1024,
        // A token past its end is refused as LinkedIn does (the admin CLI's --token-expires-in-days).
        refuseEndedTokens: true,
      });
      if (!caller) return;
      const { accountId, behaviour } = caller;

      // Upload URLs are LinkedIn's storage, not the versioned API: no version headers there.
      const imageUpload = /^\/sandbox-uploads\/images\/([A-Za-z0-9]+)$/.exec(path);
      if (method === 'PUT' && imageUpload?.[1]) return await this.putImage(req, res, accountId, imageUpload[1]);
      const videoUpload = /^\/sandbox-uploads\/videos\/([A-Za-z0-9]+)\/(\d+)$/.exec(path);
      if (method === 'PUT' && videoUpload?.[1] && videoUpload[2]) return await this.putVideoPart(req, res, accountId, videoUpload[1], Number(videoUpload[2]));
      const documentUpload = /^\/sandbox-uploads\/documents\/([A-Za-z0-9]+)$/.exec(path);
      if (method === 'PUT' && documentUpload?.[1]) return await this.putDocument(req, res, accountId, documentUpload[1]);

      if (!path.startsWith('/rest/')) return sendJson(res, 404, error(404, `No resource at ${path}`));
      const version = req.headers['linkedin-version'];
      if (typeof version !== 'string' || !/^\d{6}(\.\d{2})?$/.test(version)) {
        return sendJson(res, 400, error(400, 'A version must be present. Please specify a version by adding the LinkedIn-Version header.', { code: 'VERSION_MISSING' }));
      }
      const inactive = inactiveVersionAnswer(version, new Date());
      if (inactive) return sendJson(res, 426, inactive);
      if (req.headers['x-restli-protocol-version'] !== '2.0.0') {
        return sendJson(res, 400, error(400, 'X-Restli-Protocol-Version 2.0.0 is required for this API.', { code: 'ILLEGAL_ARGUMENT' }));
      }

      if (method === 'POST' && path === '/rest/posts') return await this.create(req, res, accountId, behaviour);
      if (method === 'GET' && path === '/rest/posts' && query.get('q') === 'author') return this.findByAuthor(res, accountId, query);
      const post = /^\/rest\/posts\/([^/]+)$/.exec(path);
      if (method === 'DELETE' && post?.[1]) return this.remove(res, accountId, decodeURIComponent(post[1]));
      if (method === 'POST' && path === '/rest/images' && query.get('action') === 'initializeUpload') return await this.initializeAsset(req, res, accountId, 'image');
      if (method === 'POST' && path === '/rest/videos' && query.get('action') === 'initializeUpload') return await this.initializeVideo(req, res, accountId);
      if (method === 'POST' && path === '/rest/videos' && query.get('action') === 'finalizeUpload') return await this.finalizeVideo(req, res, accountId);
      const video = /^\/rest\/videos\/([^/]+)$/.exec(path);
      if (method === 'GET' && video?.[1]) return this.videoStatus(res, accountId, decodeURIComponent(video[1]));
      if (method === 'POST' && path === '/rest/documents' && query.get('action') === 'initializeUpload') return await this.initializeAsset(req, res, accountId, 'document');
      const document = /^\/rest\/documents\/([^/]+)$/.exec(path);
      if (method === 'GET' && document?.[1]) return this.documentStatus(res, accountId, decodeURIComponent(document[1]));
      if (method === 'GET' && path === '/rest/memberCreatorPostAnalytics') return this.memberAnalytics(res, accountId, query);
      if (method === 'GET' && path === '/rest/organizationalEntityShareStatistics') return this.shareStatistics(res, accountId, query);
      const summary = /^\/rest\/socialActions\/([^/]+)$/.exec(path);
      if (method === 'GET' && summary?.[1]) return this.socialActionsSummary(res, accountId, decodeURIComponent(summary[1]));
      const comments = /^\/rest\/socialActions\/([^/]+)\/comments$/.exec(path);
      if (method === 'POST' && comments?.[1]) return await this.createComment(req, res, accountId, behaviour, decodeURIComponent(comments[1]));
      if (method === 'GET' && comments?.[1]) return this.listCommentsOf(res, accountId, decodeURIComponent(comments[1]), query);
      return sendJson(res, 404, error(404, `No resource at ${method} ${path}`));
    } catch (caught) {
      if (caught instanceof BodyTooLargeError) return sendJson(res, 413, error(413, 'Request entity too large'));
      throw caught;
    }
  }

  private async jsonBody(req: IncomingMessage, res: ServerResponse, limit = 1024 * 1024): Promise<Record<string, unknown> | null> {
    const raw = await readBody(req, limit);
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      sendJson(res, 400, error(400, 'Content-Type application/json is required', { code: 'ILLEGAL_ARGUMENT' }));
      return null;
    }
    const body = parseJsonBody(raw);
    if (!isRecord(body)) {
      sendJson(res, 400, error(400, 'Unable to parse the request body as JSON', { code: 'ILLEGAL_ARGUMENT' }));
      return null;
    }
    return body;
  }

  private checkMediaRef(
    ref: unknown,
    author: string,
    accountId: string,
    path: string,
  ): { asset: LinkedinAsset; refusal?: never } | { asset?: never; refusal: Record<string, unknown> } {
    if (!isRecord(ref) || typeof ref.id !== 'string') return { refusal: fieldError(`${path}/id`, 'field is required but not found and has no default value') };
    for (const key of Object.keys(ref)) {
      if (!['id', 'altText', 'title'].includes(key)) return { refusal: fieldError(`${path}/${key}`, 'unrecognized field found but not allowed') };
    }
    const asset = this.assets.get(ref.id);
    if (!asset || asset.accountId !== accountId || asset.owner !== author) {
      return { refusal: error(400, `Invalid media id ${ref.id}: not found or not owned by ${author}`, { code: 'ILLEGAL_ARGUMENT' }) };
    }
    if (asset.status !== 'AVAILABLE') {
      return { refusal: error(400, `Media ${ref.id} is not available (status ${asset.status})`, { code: 'ILLEGAL_ARGUMENT' }) };
    }
    return { asset };
  }

  private async create(req: IncomingMessage, res: ServerResponse, accountId: string, behaviour: string): Promise<void> {
    this.countCreateAttempt(accountId);
    const body = await this.jsonBody(req, res);
    if (!body) return;
    const fault = this.faults.take(accountId);
    if (fault === 'drop_before_create') return void req.socket.destroy();
    if (fault === 'slow_rate_limited') await pause(SLOW_CREATE_MS);
    if (fault === 'rate_limited' || fault === 'slow_rate_limited') return sendJson(res, 429, error(429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.'));

    for (const field of Object.keys(body)) {
      if (!CREATE_FIELDS.has(field)) return sendJson(res, 422, fieldError(`/${field}`, 'unrecognized field found but not allowed'));
    }
    for (const field of ['author', 'visibility', 'distribution', 'lifecycleState']) {
      if (body[field] === undefined) return sendJson(res, 422, fieldError(`/${field}`, 'field is required but not found and has no default value'));
    }
    const author = body.author;
    if (typeof author !== 'string' || !AUTHOR.test(author)) return sendJson(res, 422, fieldError('/author', `"${String(author)}" is not a valid person or organization URN`));
    if (!['PUBLIC', 'CONNECTIONS', 'LOGGED_IN', 'CONTAINER'].includes(String(body.visibility))) {
      return sendJson(res, 422, fieldError('/visibility', 'value is not a valid enum symbol'));
    }
    if (!['PUBLISHED', 'DRAFT', 'PUBLISH_REQUESTED'].includes(String(body.lifecycleState))) {
      return sendJson(res, 422, fieldError('/lifecycleState', 'value is not a valid enum symbol'));
    }
    const distribution = body.distribution;
    if (!isRecord(distribution) || !['MAIN_FEED', 'NONE'].includes(String(distribution.feedDistribution))) {
      return sendJson(res, 422, fieldError('/distribution/feedDistribution', 'field is required but not found and has no default value'));
    }
    if (body.isReshareDisabledByAuthor !== undefined && typeof body.isReshareDisabledByAuthor !== 'boolean') {
      return sendJson(res, 422, fieldError('/isReshareDisabledByAuthor', 'value is not a boolean'));
    }
    const commentary = body.commentary ?? '';
    if (typeof commentary !== 'string') return sendJson(res, 422, fieldError('/commentary', 'value is not a string'));
    const reading = readCommentary(commentary);
    if (!reading.ok) return sendJson(res, 422, fieldError('/commentary', `invalid little text: ${reading.message}`));
    const text = reading.text;
    // Counted as LinkedIn (Java) counts: UTF-16 code units of what a reader sees (a mention its name), not of the markup.
    const shown = reading.cut ? unescapeLittleText(commentary).length : reading.shown.length;
    if (shown > 3000) {
      return sendJson(res, 400, error(400, `ShareCommentary text length (${shown} characters) exceeded the maximum allowed (3000 characters)`, { code: 'ILLEGAL_ARGUMENT' }));
    }

    const mediaIds: string[] = [];
    /** Each media's `altText` as received (the sandbox record shows it). */
    const altTexts: Record<string, string> = {};
    const content = body.content;
    let poll: Record<string, unknown> | null = null;
    let documentTitle: string | null = null;
    if (content !== undefined) {
      // One kind of content per post: a poll beside media is refused here.
      if (!isRecord(content) || Object.keys(content).length !== 1) return sendJson(res, 422, fieldError('/content', 'exactly one content type expected'));
      if (content.poll !== undefined) {
        const checked = checkPoll(content.poll);
        if ('refusal' in checked) return sendJson(res, 422, checked.refusal);
        poll = checked.poll;
      } else if (content.media !== undefined) {
        const checked = this.checkMediaRef(content.media, author, accountId, '/content/media');
        if (checked.refusal) return sendJson(res, Number(checked.refusal.status), checked.refusal);
        if (checked.asset.kind === 'document') {
          const title = isRecord(content.media) ? content.media.title : undefined;
          if (typeof title !== 'string' || title.trim() === '') return sendJson(res, 422, fieldError('/content/media/title', 'a document post requires a title'));
          documentTitle = title;
        }
        mediaIds.push(checked.asset.urn);
        if (isRecord(content.media) && typeof content.media.altText === 'string') altTexts[checked.asset.urn] = content.media.altText;
      } else if (content.multiImage !== undefined) {
        const multi = content.multiImage;
        const images = isRecord(multi) && Array.isArray(multi.images) ? (multi.images as unknown[]) : null;
        if (!images || images.length < 2 || images.length > 20) return sendJson(res, 422, fieldError('/content/multiImage/images', 'between 2 and 20 images expected'));
        for (const [index, image] of images.entries()) {
          const checked = this.checkMediaRef(image, author, accountId, `/content/multiImage/images/${index}`);
          if (checked.refusal) return sendJson(res, Number(checked.refusal.status), checked.refusal);
          if (checked.asset.kind !== 'image') return sendJson(res, 422, fieldError(`/content/multiImage/images/${index}/id`, 'only images may be combined'));
          mediaIds.push(checked.asset.urn);
          if (isRecord(image) && typeof image.altText === 'string') altTexts[checked.asset.urn] = image.altText;
        }
      } else {
        return sendJson(res, 422, fieldError(`/content/${Object.keys(content)[0] ?? ''}`, 'unsupported content type'));
      }
    }
    if (text.trim() === '' && mediaIds.length === 0 && poll === null) return sendJson(res, 422, fieldError('/commentary', 'a post needs commentary or content'));

    if (behaviour === 'refuse') {
      return sendJson(res, 422, error(422, 'Post refused: the content was flagged as violating the Professional Community Policies.', { code: 'CONTENT_POLICY_VIOLATION' }));
    }
    if (behaviour === 'flaky' && this.failsOnce(accountId, commentary)) return sendJson(res, 503, error(503, 'Service Unavailable'));

    const urn = `urn:li:share:${snowflakeId()}`;
    this.storePost({
      id: urn,
      accountId,
      text,
      mediaIds,
      createdAt: new Date(),
      deletedAt: null,
      details: {
        author,
        commentary,
        visibility: body.visibility,
        lifecycleState: body.lifecycleState,
        ...(poll !== null ? { poll } : {}),
        ...(documentTitle !== null ? { documentTitle } : {}),
        ...(Object.keys(altTexts).length > 0 ? { mediaAltText: altTexts } : {}),
      },
    });
    if (!(await this.answerAfterCreate(req, res, fault))) return;
    res.writeHead(201, { 'x-restli-id': urn, 'x-linkedin-id': urn, 'Content-Length': '0' });
    res.end();
  }

  /** The 429 LinkedIn answers when an application or member exceeds a daily limit. */
  private metricsRateLimited(res: ServerResponse, accountId: string): boolean {
    // Every metrics endpoint asks this first: the one place each such request is counted.
    this.countMetricsRead(accountId);
    if (!this.faults.takeIf(accountId, 'metrics_rate_limited')) return false;
    sendJson(res, 429, error(429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.', { code: 'TOO_MANY_REQUESTS' }), { 'Retry-After': '60' });
    return true;
  }

  /**
   * memberCreatorPostAnalytics `q=entity` (r_member_postAnalytics): one metric of one of the
   * member's own posts. A post of an organization, or of another member, is refused 403 as
   * LinkedIn refuses it; a deleted or unknown post is 404. Figures are figuresAt (metrics.ts).
   */
  private memberAnalytics(res: ServerResponse, accountId: string, query: URLSearchParams): void {
    if (this.metricsRateLimited(res, accountId)) return;
    const entity = /^\((share|ugc):(urn:li:(?:share|ugcPost):\d+)\)$/.exec(query.get('entity') ?? '');
    const queryType = query.get('queryType') ?? '';
    if (query.get('q') !== 'entity' || !entity?.[2] || !MEMBER_QUERY_TYPES.has(queryType) || !['TOTAL', 'DAILY'].includes(query.get('aggregation') ?? '')) {
      return sendJson(res, 400, error(400, 'Invalid query parameters: q=entity, entity=(share:<urn>|ugc:<urn>), queryType and aggregation are required', { code: 'ILLEGAL_ARGUMENT' }));
    }
    const post = this.posts.get(entity[2]);
    if (!post || post.deletedAt !== null) return sendJson(res, 404, error(404, `Entity ${entity[2]} not found`, { code: 'NOT_FOUND' }));
    if (post.accountId !== accountId || !String(post.details.author).startsWith('urn:li:person:')) {
      return sendJson(res, 403, error(403, 'Not enough permissions to access: memberCreatorPostAnalytics.FINDER-entity', { code: 'ACCESS_DENIED', serviceErrorCode: 100 }));
    }
    const figures = figuresAt(post.id, post.createdAt, new Date());
    const count = { IMPRESSION: figures.impressions, MEMBERS_REACHED: figures.reached, RESHARE: figures.reposts, REACTION: figures.likes, COMMENT: figures.comments }[queryType] ?? 0;
    return sendJson(res, 200, { paging: { start: 0, count: 10, links: [] }, elements: [{ count, metricType: { 'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1': queryType } }] });
  }

  /**
   * organizationalEntityShareStatistics `q=organizationalEntity` with `shares=List(...)` and
   * `ugcPosts=List(...)` (rw_organization_admin, lifetime figures): one element per live post of
   * that organization; a member (urn:li:person) is no organizational entity (400), a post of
   * another author is refused (403), a deleted post has no element.
   */
  private shareStatistics(res: ServerResponse, accountId: string, query: URLSearchParams): void {
    if (this.metricsRateLimited(res, accountId)) return;
    const organization = query.get('organizationalEntity') ?? '';
    if (query.get('q') !== 'organizationalEntity' || !/^urn:li:organization:[A-Za-z0-9_-]+$/.test(organization)) {
      return sendJson(res, 400, error(400, 'organizationalEntity must be an organization URN', { code: 'ILLEGAL_ARGUMENT' }));
    }
    const listed = (name: string): string[] | null => {
      const raw = query.get(name);
      if (raw === null) return [];
      const inner = /^List\((.*)\)$/.exec(raw);
      return inner?.[1] === undefined ? null : inner[1].split(',').filter((urn) => urn !== '');
    };
    const shares = listed('shares');
    const ugcPosts = listed('ugcPosts');
    if (shares === null || ugcPosts === null || shares.length + ugcPosts.length > 20) {
      return sendJson(res, 400, error(400, 'shares and ugcPosts must be List(...) of at most 20 post URNs', { code: 'ILLEGAL_ARGUMENT' }));
    }
    const now = new Date();
    const elements: Record<string, unknown>[] = [];
    for (const [field, urns] of [['share', shares], ['ugcPost', ugcPosts]] as const) {
      for (const urn of urns) {
        const post = this.posts.get(urn);
        if (!post || post.deletedAt !== null) continue;
        if (post.accountId !== accountId || post.details.author !== organization) {
          return sendJson(res, 403, error(403, `Not enough permissions to access share statistics of ${urn}`, { code: 'ACCESS_DENIED', serviceErrorCode: 100 }));
        }
        const figures = figuresAt(post.id, post.createdAt, now);
        const engaged = figures.likes + figures.comments + figures.reposts + figures.clicks;
        elements.push({
          organizationalEntity: organization,
          [field]: urn,
          totalShareStatistics: {
            uniqueImpressionsCount: figures.reached,
            shareCount: figures.reposts,
            engagement: figures.impressions === 0 ? 0 : engaged / figures.impressions,
            clickCount: figures.clicks,
            likeCount: figures.likes,
            impressionCount: figures.impressions,
            commentCount: figures.comments,
          },
        });
      }
    }
    return sendJson(res, 200, { paging: { start: 0, count: 10, links: [] }, elements });
  }

  /** socialActions/{urn}: the summary of reactions and comments on a post the caller can see. */
  private socialActionsSummary(res: ServerResponse, accountId: string, urn: string): void {
    if (this.metricsRateLimited(res, accountId)) return;
    const post = this.posts.get(urn);
    if (!post || post.deletedAt !== null) return sendJson(res, 404, error(404, `Entity ${urn} not found`, { code: 'NOT_FOUND' }));
    const figures = figuresAt(post.id, post.createdAt, new Date());
    return sendJson(res, 200, {
      target: urn,
      likesSummary: { totalLikes: figures.likes, aggregatedTotalLikes: figures.likes, likedByCurrentUser: false },
      commentsSummary: { totalFirstLevelComments: figures.comments, aggregatedTotalComments: figures.comments },
    });
  }

  /** The Posts API finder `q=author`: the caller's own live posts, newest first, `count` at most. */
  private findByAuthor(res: ServerResponse, accountId: string, query: URLSearchParams): void {
    if (this.faults.takeIf(accountId, 'refuse_lookup')) return sendJson(res, 403, error(403, 'Not enough permissions to access: partnerApiPostsExternal.FINDER-author', { code: 'ACCESS_DENIED' }));
    const author = query.get('author') ?? '';
    if (!AUTHOR.test(author)) return sendJson(res, 400, error(400, 'author must be a person or organization URN', { code: 'ILLEGAL_ARGUMENT' }));
    const count = Math.min(100, Math.max(1, Number(query.get('count') ?? '10') || 10));
    const elements = this.listPosts(accountId)
      .filter((post) => post.deletedAt === null && post.details.author === author)
      .reverse()
      .slice(0, count)
      .map((post) => ({
        id: post.id,
        author,
        commentary: post.details.commentary,
        createdAt: post.createdAt.getTime(),
        lifecycleState: post.details.lifecycleState,
        ...(post.mediaIds.length === 1
          ? { content: { media: { id: post.mediaIds[0], ...(typeof post.details.documentTitle === 'string' ? { title: post.details.documentTitle } : {}) } } }
          : {}),
        ...(isRecord(post.details.poll) ? { content: { poll: post.details.poll } } : {}),
        ...(post.mediaIds.length > 1 ? { content: { multiImage: { images: post.mediaIds.map((id) => ({ id })) } } } : {}),
      }));
    return sendJson(res, 200, { paging: { start: 0, count, links: [] }, elements });
  }

  private remove(res: ServerResponse, accountId: string, urn: string): void {
    const post = this.posts.get(urn);
    if (post && post.accountId !== accountId) return sendJson(res, 403, error(403, `Not enough permissions to delete ${urn}`, { code: 'ACCESS_DENIED' }));
    // A second delete answers 204 as well: the post is gone either way.
    if (post && post.deletedAt === null) this.markDeleted(post);
    if (!post) return sendJson(res, 404, error(404, `Post ${urn} not found`, { code: 'NOT_FOUND' }));
    res.writeHead(204);
    res.end();
  }

  private ownerError(owner: unknown): Record<string, unknown> | null {
    if (typeof owner !== 'string' || !AUTHOR.test(owner)) return fieldError('/initializeUploadRequest/owner', 'a person or organization URN is required');
    return null;
  }


  /**
   * The Images and Documents APIs' initializeUpload (one request and answer shape): a new asset of
   * `kind` waiting for its upload. The Documents API names a field it does not know in the
   * request; the Images API is checked for the owner only, as before documents came.
   */
  private async initializeAsset(req: IncomingMessage, res: ServerResponse, accountId: string, kind: 'image' | 'document'): Promise<void> {
    const body = await this.jsonBody(req, res);
    if (!body) return;
    const request = body.initializeUploadRequest;
    if (!isRecord(request) || Object.keys(body).length !== 1) return sendJson(res, 422, fieldError('/initializeUploadRequest', 'field is required'));
    if (kind === 'document') {
      for (const key of Object.keys(request)) {
        if (key !== 'owner') return sendJson(res, 422, fieldError(`/initializeUploadRequest/${key}`, 'unrecognized field found but not allowed'));
      }
    }
    const invalid = this.ownerError(request.owner);
    if (invalid) return sendJson(res, 422, invalid);
    const id = assetId();
    const urn = `urn:li:${kind}:${id}`;
    this.assets.set(urn, {
      urn,
      kind,
      owner: String(request.owner),
      accountId,
      sizeBytes: 0,
      uploaded: false,
      uploadToken: '',
      parts: [],
      status: 'WAITING_UPLOAD',
      // A document is converted after its upload (PROCESSING, then AVAILABLE); an image is ready at once.
      pollsLeft: kind === 'document' ? (this.options.processingPolls ?? 1) : 0,
    });
    return sendJson(res, 200, {
      value: { uploadUrlExpiresAt: Date.now() + 86_400_000, uploadUrl: `${this.options.baseUrl()}/sandbox-uploads/${kind}s/${id}`, [kind]: urn },
    });
  }

  private async putImage(req: IncomingMessage, res: ServerResponse, accountId: string, id: string): Promise<void> {
    const bytes = await readBody(req, 40 * 1024 * 1024);
    const asset = this.assets.get(`urn:li:image:${id}`);
    if (!asset || asset.accountId !== accountId) return sendJson(res, 404, error(404, 'Upload not found'));
    if (bytes.length === 0) return sendJson(res, 400, error(400, 'Empty upload'));
    asset.sizeBytes = bytes.length;
    asset.uploaded = true;
    asset.status = 'AVAILABLE';
    res.writeHead(201, { 'Content-Length': '0' });
    res.end();
  }

  private async initializeVideo(req: IncomingMessage, res: ServerResponse, accountId: string): Promise<void> {
    const body = await this.jsonBody(req, res);
    if (!body) return;
    const request = body.initializeUploadRequest;
    if (!isRecord(request)) return sendJson(res, 422, fieldError('/initializeUploadRequest', 'field is required'));
    for (const key of Object.keys(request)) {
      if (!['owner', 'fileSizeBytes', 'uploadCaptions', 'uploadThumbnail', 'purpose', 'mediaLibraryMetadata'].includes(key)) {
        return sendJson(res, 422, fieldError(`/initializeUploadRequest/${key}`, 'unrecognized field found but not allowed'));
      }
    }
    const invalid = this.ownerError(request.owner);
    if (invalid) return sendJson(res, 422, invalid);
    const size = request.fileSizeBytes;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 500 * 1024 * 1024) {
      return sendJson(res, 422, fieldError('/initializeUploadRequest/fileSizeBytes', 'a size from 1 byte to 500 MB is required'));
    }
    const id = assetId();
    const urn = `urn:li:video:${id}`;
    const partBytes = this.options.videoPartBytes ?? 4 * 1024 * 1024;
    const parts: LinkedinAsset['parts'] = [];
    for (let first = 0; first < size; first += partBytes) parts.push({ firstByte: first, lastByte: Math.min(first + partBytes, size) - 1, etag: null });
    const uploadToken = parts.length > 1 ? randomBytes(12).toString('hex') : '';
    this.assets.set(urn, {
      urn,
      kind: 'video',
      owner: String(request.owner),
      accountId,
      sizeBytes: size,
      uploaded: false,
      uploadToken,
      parts,
      status: 'WAITING_UPLOAD',
      pollsLeft: this.options.processingPolls ?? 1,
    });
    return sendJson(res, 200, {
      value: {
        uploadUrlsExpireAt: Date.now() + 86_400_000,
        video: urn,
        uploadToken,
        uploadInstructions: parts.map((part, index) => ({
          uploadUrl: `${this.options.baseUrl()}/sandbox-uploads/videos/${id}/${index}`,
          firstByte: part.firstByte,
          lastByte: part.lastByte,
        })),
      },
    });
  }

  private async putVideoPart(req: IncomingMessage, res: ServerResponse, accountId: string, id: string, index: number): Promise<void> {
    const bytes = await readBody(req, 40 * 1024 * 1024);
    const asset = this.assets.get(`urn:li:video:${id}`);
    const part = asset?.parts[index];
    if (!asset || asset.accountId !== accountId || !part) return sendJson(res, 404, error(404, 'Upload not found'));
    const expected = part.lastByte - part.firstByte + 1;
    if (bytes.length !== expected) return sendJson(res, 400, error(400, `Part ${index} must be ${expected} bytes, got ${bytes.length}`));
    part.etag = `/ambry-video/signedId/${randomBytes(16).toString('hex')}`;
    res.writeHead(200, { ETag: part.etag, 'Content-Length': '0' });
    res.end();
  }

  private async finalizeVideo(req: IncomingMessage, res: ServerResponse, accountId: string): Promise<void> {
    const body = await this.jsonBody(req, res);
    if (!body) return;
    const request = body.finalizeUploadRequest;
    if (!isRecord(request)) return sendJson(res, 422, fieldError('/finalizeUploadRequest', 'field is required'));
    const asset = typeof request.video === 'string' ? this.assets.get(request.video) : undefined;
    if (!asset || asset.kind !== 'video' || asset.accountId !== accountId) return sendJson(res, 400, error(400, 'Unknown video', { code: 'ILLEGAL_ARGUMENT' }));
    if ((request.uploadToken ?? '') !== asset.uploadToken) return sendJson(res, 400, error(400, 'Invalid uploadToken', { code: 'ILLEGAL_ARGUMENT' }));
    const ids = request.uploadedPartIds;
    const expected = asset.parts.map((part) => part.etag);
    if (!Array.isArray(ids) || ids.length !== expected.length || ids.some((etag, i) => etag !== expected[i] || etag === null)) {
      return sendJson(res, 400, error(400, 'uploadedPartIds do not match the uploaded parts', { code: 'ILLEGAL_ARGUMENT' }));
    }
    asset.uploaded = true;
    asset.status = asset.pollsLeft > 0 ? 'PROCESSING' : 'AVAILABLE';
    res.writeHead(200, { 'Content-Length': '0' });
    res.end();
  }

  private videoStatus(res: ServerResponse, accountId: string, urn: string): void {
    const asset = this.assets.get(urn);
    if (!asset || asset.kind !== 'video' || asset.accountId !== accountId) return sendJson(res, 404, error(404, `Video ${urn} not found`));
    if (asset.status === 'PROCESSING') {
      // This read still sees PROCESSING; once the set number of reads has passed the video is ready.
      asset.pollsLeft--;
      if (asset.pollsLeft <= 0) asset.status = 'AVAILABLE';
      return sendJson(res, 200, { owner: asset.owner, id: urn, status: 'PROCESSING' });
    }
    return sendJson(res, 200, { owner: asset.owner, id: urn, status: asset.status, duration: 0, aspectRatioWidth: 16, aspectRatioHeight: 9 });
  }


  /**
   * The document's bytes. LinkedIn takes PDF (and Office files, which this service never sends);
   * anything else fails in processing, as LinkedIn reports it: status PROCESSING_FAILED.
   */
  private async putDocument(req: IncomingMessage, res: ServerResponse, accountId: string, id: string): Promise<void> {
    const bytes = await readBody(req, DOCUMENT_MAX_BYTES);
    const asset = this.assets.get(`urn:li:document:${id}`);
    if (!asset || asset.accountId !== accountId || asset.kind !== 'document') return sendJson(res, 404, error(404, 'Upload not found'));
    if (bytes.length === 0) return sendJson(res, 400, error(400, 'Empty upload'));
    asset.sizeBytes = bytes.length;
    asset.uploaded = true;
    if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') {
      asset.status = 'PROCESSING_FAILED';
      asset.processingFailureReason = 'The document is not of a supported type (PDF, PPT, PPTX, DOC, DOCX).';
    } else {
      asset.status = asset.pollsLeft > 0 ? 'PROCESSING' : 'AVAILABLE';
    }
    res.writeHead(201, { 'Content-Length': '0' });
    res.end();
  }

  private documentStatus(res: ServerResponse, accountId: string, urn: string): void {
    const asset = this.assets.get(urn);
    if (!asset || asset.kind !== 'document' || asset.accountId !== accountId) return sendJson(res, 404, error(404, `Document ${urn} not found`));
    if (asset.status === 'PROCESSING') {
      asset.pollsLeft--;
      if (asset.pollsLeft <= 0) asset.status = 'AVAILABLE';
      return sendJson(res, 200, { owner: asset.owner, id: urn, status: 'PROCESSING' });
    }
    return sendJson(res, 200, {
      owner: asset.owner,
      id: urn,
      status: asset.status,
      ...(asset.processingFailureReason !== undefined ? { processingFailureReason: asset.processingFailureReason } : {}),
    });
  }

  /** `POST /rest/socialActions/{postUrn}/comments`: a first-level comment on a live post, as `actor`. */
  private async createComment(req: IncomingMessage, res: ServerResponse, accountId: string, behaviour: string, postUrn: string): Promise<void> {
    this.countCreateAttempt(accountId);
    const body = await this.jsonBody(req, res);
    if (!body) return;
    const fault = this.faults.take(accountId);
    if (fault === 'drop_before_create') return void req.socket.destroy();
    if (fault === 'slow_rate_limited') await pause(SLOW_CREATE_MS);
    if (fault === 'rate_limited' || fault === 'slow_rate_limited') return sendJson(res, 429, error(429, 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.'));

    for (const field of Object.keys(body)) {
      if (!['actor', 'object', 'message', 'parentComment', 'content'].includes(field)) return sendJson(res, 422, fieldError(`/${field}`, 'unrecognized field found but not allowed'));
    }
    const actor = body.actor;
    if (typeof actor !== 'string' || !AUTHOR.test(actor)) return sendJson(res, 422, fieldError('/actor', 'a person or organization URN is required'));
    if (body.object !== postUrn) return sendJson(res, 422, fieldError('/object', 'must be the post of the path'));
    const message = isRecord(body.message) ? body.message.text : undefined;
    if (typeof message !== 'string' || message.trim() === '') return sendJson(res, 422, fieldError('/message/text', 'field is required but not found and has no default value'));
    const reading = readCommentary(message);
    if (!reading.ok) return sendJson(res, 422, fieldError('/message/text', `invalid little text: ${reading.message}`));
    const shown = unescapeLittleText(message).length;
    if (shown > COMMENT_MAX) return sendJson(res, 400, error(400, `Comment text length (${shown} characters) exceeded the maximum allowed (${COMMENT_MAX} characters)`, { code: 'ILLEGAL_ARGUMENT' }));
    const post = POST_URN.test(postUrn) ? this.posts.get(postUrn) : undefined;
    if (!post || post.deletedAt !== null) return sendJson(res, 404, error(404, `Post ${postUrn} not found`, { code: 'NOT_FOUND' }));

    if (behaviour === 'refuse' || behaviour === 'refuse-comment') {
      return sendJson(res, 403, error(403, `Not enough permissions to comment on ${postUrn}: comments are turned off for this post.`, { code: 'ACCESS_DENIED', serviceErrorCode: 100 }));
    }
    if (behaviour === 'flaky' && this.failsOnce(accountId, `comment\n${postUrn}\n${message}`)) return sendJson(res, 503, error(503, 'Service Unavailable'));

    const id = snowflakeId();
    const comment: SandboxComment = {
      urn: `urn:li:comment:(${postUrn},${id})`,
      id,
      postUrn,
      accountId,
      actor,
      text: reading.text,
      message,
      createdAt: new Date(),
    };
    this.comments.push(comment);
    if (!(await this.answerAfterCreate(req, res, fault))) return;
    return sendJson(res, 201, commentElement(comment), { 'x-restli-id': id });
  }

  /** `GET /rest/socialActions/{postUrn}/comments`: the post's comments, oldest first, `start`/`count` paged. */
  private listCommentsOf(res: ServerResponse, accountId: string, postUrn: string, query: URLSearchParams): void {
    const post = this.posts.get(postUrn);
    if (!post || post.deletedAt !== null) return sendJson(res, 404, error(404, `Post ${postUrn} not found`, { code: 'NOT_FOUND' }));
    if (post.accountId !== accountId) return sendJson(res, 403, error(403, `Not enough permissions to read comments of ${postUrn}`, { code: 'ACCESS_DENIED' }));
    const start = Math.max(0, Number(query.get('start') ?? '0') || 0);
    const count = Math.min(100, Math.max(1, Number(query.get('count') ?? '10') || 10));
    const all = this.listComments({ postUrn });
    const elements = all.slice(start, start + count).map(commentElement);
    return sendJson(res, 200, { paging: { start, count, total: all.length, links: [] }, elements });
  }

  private async refresh(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, 64 * 1024);
    const invalid = { error: 'invalid_request', error_description: 'The provided authorization grant or refresh token is invalid, expired or revoked' };
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return sendJson(res, 400, invalid);
    const form = new URLSearchParams(raw.toString('utf8'));
    const clientId = form.get('client_id') ?? '';
    const clientSecret = form.get('client_secret') ?? '';
    const expected = this.options.client;
    if (clientId === '' || clientSecret === '' || (expected && (expected.clientId !== clientId || expected.clientSecret !== clientSecret))) {
      return sendJson(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    }
    if (form.get('grant_type') === 'authorization_code' && this.options.authorizationCode) {
      const answer = this.options.authorizationCode(form, clientId);
      return sendJson(res, answer.status, answer.body);
    }
    if (form.get('grant_type') !== 'refresh_token') return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'grant_type must be refresh_token' });
    const token = form.get('refresh_token') ?? '';
    const accountId = refreshTokenAccount(token);
    if (accountId === null) return sendJson(res, 400, invalid);
    if ((await this.accountBehaviour(accountId)) === 'expired') return sendJson(res, 400, invalid);
    this.countRefresh();
    const issued = issueSandboxTokens(accountId, 'linkedin', new Date());
    // LinkedIn does not rotate refresh tokens: the same one comes back, its lifetime not extended.
    return sendJson(res, 200, {
      access_token: issued.accessToken,
      expires_in: 5_184_000,
      refresh_token: token,
      refresh_token_expires_in: 31_536_000,
      scope: 'w_member_social,r_liteprofile',
    });
  }
}

/** A comment as LinkedIn shows it (create answer and list element). */
function commentElement(comment: SandboxComment): Record<string, unknown> {
  const time = comment.createdAt.getTime();
  return {
    id: comment.id,
    commentUrn: comment.urn,
    $URN: comment.urn,
    actor: comment.actor,
    object: comment.postUrn,
    message: { text: comment.message, attributes: [] },
    created: { actor: comment.actor, time },
    lastModified: { actor: comment.actor, time },
  };
}

/** `content.poll` of a create, checked as LinkedIn's Poll API describes it. */
function checkPoll(value: unknown): { poll: Record<string, unknown> } | { refusal: Record<string, unknown> } {
  if (!isRecord(value)) return { refusal: fieldError('/content/poll', 'a poll object is required') };
  for (const key of Object.keys(value)) {
    if (!['question', 'options', 'settings'].includes(key)) return { refusal: fieldError(`/content/poll/${key}`, 'unrecognized field found but not allowed') };
  }
  const question = value.question;
  if (typeof question !== 'string' || question.trim() === '' || question.length > POLL_QUESTION_MAX) {
    return { refusal: fieldError('/content/poll/question', `a question of 1 to ${POLL_QUESTION_MAX} characters is required`) };
  }
  const options = value.options;
  if (!Array.isArray(options) || options.length < 2 || options.length > 4) return { refusal: fieldError('/content/poll/options', 'between 2 and 4 options expected') };
  for (const [index, option] of (options as unknown[]).entries()) {
    const text = isRecord(option) ? option.text : undefined;
    if (typeof text !== 'string' || text.trim() === '' || text.length > POLL_OPTION_MAX) {
      return { refusal: fieldError(`/content/poll/options/${index}/text`, `an option of 1 to ${POLL_OPTION_MAX} characters is required`) };
    }
  }
  const settings = value.settings;
  const duration = isRecord(settings) ? settings.duration : undefined;
  if (typeof duration !== 'string' || !POLL_DURATIONS.has(duration)) {
    return { refusal: fieldError('/content/poll/settings/duration', 'value is not a valid enum symbol (ONE_DAY, THREE_DAYS, SEVEN_DAYS, FOURTEEN_DAYS)') };
  }
  return { poll: { question, options, settings: { duration } } };
}
