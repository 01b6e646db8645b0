/**
 * LinkedIn Posts API over plain HTTP (no SDK): create and delete posts (text, images, a video, a
 * poll, a document), upload images, videos and documents, comment on a post and find such a
 * comment again, refresh a token when the app has a refresh token (approved partner apps only).
 * Every call carries the versioned-API headers. The paths, bodies and error shapes are LinkedIn's
 * own, with their sources in docs/platforms.md ("LinkedIn"); local/sandbox/linkedin.ts serves the
 * same ones for the tests.
 */
import { ENV, optionalEnv } from '../config.js';
import { PlatformAmbiguousError, PlatformDuplicateError, PlatformRefusedError, PlatformUnavailableError } from '../domain/platform-errors.js';
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
import { escapeLittleText, parseLittleText, toLittleText, unescapeLittleText } from './linkedin-text.js';
import { linkedinSourceText } from '../domain/linkedin-markup.js';
import { LINKEDIN_API_VERSION, retiredVersionError } from './linkedin-version.js';

export interface LinkedinClientConfig extends PlatformTimeouts {
  baseUrl: string;
  /** Where /oauth/v2/accessToken lives (www.linkedin.com for the real API). */
  oauthBaseUrl: string;
  /** LinkedIn-Version header, YYYYMM (linkedin-version.ts). */
  apiVersion: string;
  clientCredentials: () => Promise<ClientCredentials>;
  /** Wait between polls of a processing video. */
  pollIntervalMs?: number;
  processingTimeoutMs?: number;
}

const DUPLICATE_URN = /duplicate of urn:li:(?:share|ugcPost):\d+/i;
/** Newest posts read by a lookup: the post looked for was created moments before. */
const FIND_PAGE_SIZE = 50;
/**
 * Comments read by a comment lookup. The first comment is posted right after the post went live,
 * so it is among a post's first comments; LinkedIn lists a post's comments oldest first (?), and
 * the lookup reads at most COMMENT_PAGES pages of this size (a post with more comments than that
 * within minutes of going live is not a case to page through forever).
 */
const COMMENT_PAGE_SIZE = 100;
const COMMENT_PAGES = 3;
const PDF = 'application/pdf';
/**
 * A document goes up in one PUT but is read from the media bucket in ranges of this size, streamed:
 * the publish worker handles a batch's posts side by side, and ten 100 MB PDFs held whole would not
 * fit its memory.
 */
const DOCUMENT_READ_BYTES = 8 * 1024 * 1024;

/** `options.poll` of a LinkedIn target as the create rules validated it (docs/native-formats.md). */
interface LinkedinPoll {
  question: string;
  choices: string[];
  duration: string;
}

/** The poll of a target's options, or null; a malformed one (the rules let none through) is refused, never guessed at. */
function pollOf(options: Record<string, unknown>): LinkedinPoll | null {
  const poll = options.poll;
  if (poll === undefined || poll === null) return null;
  if (
    !isRecord(poll) ||
    typeof poll.question !== 'string' ||
    !Array.isArray(poll.choices) ||
    !poll.choices.every((choice): choice is string => typeof choice === 'string') ||
    typeof poll.duration !== 'string'
  ) {
    throw new PlatformRefusedError('The poll options are malformed.', { platform: 'linkedin', status: null });
  }
  return { question: poll.question, choices: poll.choices, duration: poll.duration };
}

function linkedinAuthorUrn(account: Pick<PlatformAccount, 'accountType' | 'platformUserId'>): string {
  return account.accountType === 'organization'
    ? `urn:li:organization:${account.platformUserId}`
    : `urn:li:person:${account.platformUserId}`;
}

function linkedinPublicUrl(urn: string): string {
  return `https://www.linkedin.com/feed/update/${urn}/`;
}

export class LinkedinClient implements PlatformPublisher, PlatformMetricsReader {
  readonly platform = 'linkedin' as const;
  /** LinkedIn has no documented duplicate refusal to lean on: an ambiguous create is settled by findRecentPost alone. */
  readonly refusesDuplicates = false;
  private readonly baseUrl: string;
  private readonly oauthBaseUrl: string;

  constructor(private readonly config: LinkedinClientConfig) {
    this.baseUrl = config.baseUrl.replace(/\/+$/, '');
    this.oauthBaseUrl = config.oauthBaseUrl.replace(/\/+$/, '');
  }

  private call(secrets: readonly string[], kind?: PlatformCallKind): PlatformCall {
    return platformCall('linkedin', this.config, secrets, kind);
  }

  private headers(accessToken: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      Authorization: `Bearer ${accessToken}`,
      'LinkedIn-Version': this.config.apiVersion,
      'X-Restli-Protocol-Version': '2.0.0',
      ...extra,
    };
  }

  private errorFor(answer: { status: number; headers: Headers; text: string }, call: PlatformCall): Error {
    const retired = retiredVersionError(answer, call, this.config.apiVersion);
    if (retired) return retired;
    const said = platformMessage(parseJson(answer.text));
    if (said !== null && DUPLICATE_URN.test(said) && answer.status >= 400 && answer.status < 500) {
      return new PlatformDuplicateError(redact(said, call.secrets), { platform: 'linkedin', status: answer.status });
    }
    return errorForAnswer(answer, call);
  }

  /** One request; returns the answer of a 2xx, throws classified otherwise. */
  private async send(url: string, init: RequestInit, call: PlatformCall): Promise<{ response: Response; text: string }> {
    const response = await platformFetch(url, init, call);
    const text = await readText(response, call);
    if (!response.ok) throw this.errorFor({ status: response.status, headers: response.headers, text }, call);
    return { response, text };
  }

  async publish(request: PlatformPublishRequest): Promise<PlatformPublishResult> {
    const author = linkedinAuthorUrn(request.account);
    const poll = pollOf(request.options);
    // LinkedIn takes a poll alone (content is one kind); refused here before any upload is wasted.
    if (poll !== null && request.media.length > 0) {
      throw new PlatformRefusedError('A LinkedIn poll cannot carry media.', { platform: 'linkedin', status: null });
    }
    const documentTitle = typeof request.options.documentTitle === 'string' ? request.options.documentTitle : null;
    const mediaUrns: string[] = [];
    for (const item of request.media) mediaUrns.push(await this.uploadMedia(item, author, request.accessToken));

    const body: Record<string, unknown> = {
      author,
      commentary: toLittleText(request.text),
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    };
    if (poll !== null) {
      body.content = {
        poll: { question: poll.question, options: poll.choices.map((text) => ({ text })), settings: { duration: poll.duration } },
      };
    } else if (mediaUrns.length === 1) {
      // A document post names its document with the title readers see above it.
      const isDocument = mediaUrns[0]?.startsWith('urn:li:document:') === true;
      body.content = {
        media: { id: mediaUrns[0], ...(isDocument && documentTitle !== null ? { title: documentTitle } : {}), ...altTextOf(request.media[0], isDocument) },
      };
    } else if (mediaUrns.length > 1) body.content = { multiImage: { images: mediaUrns.map((id, index) => ({ id, ...altTextOf(request.media[index], false) })) } };

    await request.beforeCreate?.({ mediaIds: mediaUrns });
    const call = this.call([request.accessToken], 'create');
    const { response } = await this.send(
      `${this.baseUrl}/rest/posts`,
      { method: 'POST', headers: this.headers(request.accessToken, { 'Content-Type': 'application/json' }), body: JSON.stringify(body) },
      call,
    );
    const urn = response.headers.get('x-restli-id');
    if (urn === null || !/^urn:li:(share|ugcPost):\S+$/.test(urn)) {
      throw new PlatformAmbiguousError('LinkedIn accepted the post but named no post URN', { platform: 'linkedin', status: response.status });
    }
    return { platformPostId: urn, publishedUrl: linkedinPublicUrl(urn) };
  }

  private uploadMedia(item: PlatformMediaSource, owner: string, accessToken: string): Promise<string> {
    if (item.contentType === PDF) return this.uploadDocument(item, owner, accessToken);
    return item.contentType.startsWith('video/') ? this.uploadVideo(item, owner, accessToken) : this.uploadImage(item, owner, accessToken);
  }

  /**
   * Documents API: initializeUpload gives an upload URL and the document URN, the bytes go in one
   * PUT (up to 100 MB), then LinkedIn converts the pages: the post may name the document only once
   * its status is AVAILABLE, as with videos.
   */
  private async uploadDocument(item: PlatformMediaSource, owner: string, accessToken: string): Promise<string> {
    const { uploadUrl, urn: document } = await this.initializeUpload('documents', owner, accessToken);
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (offset >= item.sizeBytes) return controller.close();
        const end = Math.min(offset + DOCUMENT_READ_BYTES, item.sizeBytes);
        controller.enqueue(await item.read({ start: offset, end }));
        offset = end;
      },
    });
    // A streamed body: its length said up front (LinkedIn's upload takes no chunked encoding), `duplex` as Node's fetch requires.
    const init = { method: 'PUT', headers: { ...this.uploadHeaders(uploadUrl, accessToken), 'Content-Length': String(item.sizeBytes) }, body, duplex: 'half' };
    await this.send(uploadUrl, init as RequestInit, this.call([accessToken], 'upload'));
    await this.waitUntilAvailable('documents', document, accessToken);
    return document;
  }

  /**
   * The Images and Documents APIs' first step (one shape for both): where to PUT the bytes, and the
   * URN the post will name (`image` or `document` in the answer).
   */
  private async initializeUpload(api: 'images' | 'documents', owner: string, accessToken: string): Promise<{ uploadUrl: string; urn: string }> {
    const { text } = await this.send(
      `${this.baseUrl}/rest/${api}?action=initializeUpload`,
      {
        method: 'POST',
        headers: this.headers(accessToken, { 'Content-Type': 'application/json' }),
        body: JSON.stringify({ initializeUploadRequest: { owner } }),
      },
      this.call([accessToken]),
    );
    const value = this.valueOf(text);
    const field = api === 'images' ? 'image' : 'document';
    const uploadUrl = value.uploadUrl;
    const urn = value[field];
    if (typeof uploadUrl !== 'string' || typeof urn !== 'string') {
      throw new PlatformUnavailableError(`LinkedIn ${field} upload answered without uploadUrl/${field}`, { platform: 'linkedin' });
    }
    return { uploadUrl, urn };
  }

  /**
   * Headers for a PUT to an upload URL LinkedIn handed us. The token goes along only when the URL
   * is LinkedIn's own (or the configured API host): an upload URL must never leak it elsewhere.
   */
  private uploadHeaders(uploadUrl: string, accessToken: string): Record<string, string> {
    const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream' };
    const url = new URL(uploadUrl);
    const sameOrigin = url.origin === new URL(this.baseUrl).origin;
    const linkedinHost = url.protocol === 'https:' && (url.hostname === 'linkedin.com' || url.hostname.endsWith('.linkedin.com'));
    if (sameOrigin || linkedinHost) headers.Authorization = `Bearer ${accessToken}`;
    return headers;
  }

  private async uploadImage(item: PlatformMediaSource, owner: string, accessToken: string): Promise<string> {
    const { uploadUrl, urn: image } = await this.initializeUpload('images', owner, accessToken);
    const bytes = await item.read();
    await this.send(uploadUrl, { method: 'PUT', headers: this.uploadHeaders(uploadUrl, accessToken), body: bytes }, this.call([accessToken], 'upload'));
    return image;
  }

  private valueOf(text: string): Record<string, unknown> {
    const answer = parseJson(text);
    if (!isRecord(answer) || !isRecord(answer.value)) {
      throw new PlatformUnavailableError('LinkedIn answered without a value', { platform: 'linkedin' });
    }
    return answer.value;
  }

  private async uploadVideo(item: PlatformMediaSource, owner: string, accessToken: string): Promise<string> {
    const { text } = await this.send(
      `${this.baseUrl}/rest/videos?action=initializeUpload`,
      {
        method: 'POST',
        headers: this.headers(accessToken, { 'Content-Type': 'application/json' }),
        body: JSON.stringify({
          initializeUploadRequest: { owner, fileSizeBytes: item.sizeBytes, uploadCaptions: false, uploadThumbnail: false },
        }),
      },
      this.call([accessToken]),
    );
    const value = this.valueOf(text);
    const video = value.video;
    const uploadToken = typeof value.uploadToken === 'string' ? value.uploadToken : '';
    const instructions = Array.isArray(value.uploadInstructions) ? value.uploadInstructions : [];
    if (typeof video !== 'string' || instructions.length === 0) {
      throw new PlatformUnavailableError('LinkedIn video upload answered without video/uploadInstructions', { platform: 'linkedin' });
    }

    // Each part's ETag names it in finalizeUpload, in the order of the instructions.
    const partIds: string[] = [];
    for (const instruction of instructions) {
      if (!isRecord(instruction) || typeof instruction.uploadUrl !== 'string') {
        throw new PlatformUnavailableError('LinkedIn upload instruction without uploadUrl', { platform: 'linkedin' });
      }
      const firstByte = Number(instruction.firstByte);
      const lastByte = Number(instruction.lastByte);
      if (!Number.isInteger(firstByte) || !Number.isInteger(lastByte) || lastByte < firstByte || lastByte >= item.sizeBytes) {
        throw new PlatformUnavailableError('LinkedIn upload instruction with an impossible byte range', { platform: 'linkedin' });
      }
      const bytes = await item.read({ start: firstByte, end: lastByte + 1 });
      const { response } = await this.send(
        instruction.uploadUrl,
        { method: 'PUT', headers: this.uploadHeaders(instruction.uploadUrl, accessToken), body: bytes },
        this.call([accessToken], 'upload'),
      );
      const etag = response.headers.get('etag');
      if (etag === null) throw new PlatformUnavailableError('LinkedIn video part answered without an ETag', { platform: 'linkedin' });
      partIds.push(etag);
    }

    await this.send(
      `${this.baseUrl}/rest/videos?action=finalizeUpload`,
      {
        method: 'POST',
        headers: this.headers(accessToken, { 'Content-Type': 'application/json' }),
        body: JSON.stringify({ finalizeUploadRequest: { video, uploadToken, uploadedPartIds: partIds } }),
      },
      this.call([accessToken]),
    );
    await this.waitUntilAvailable('videos', video, accessToken);
    return video;
  }

  /** Polls a video's or a document's status until AVAILABLE (PROCESSING_FAILED is final). */
  private async waitUntilAvailable(resource: 'videos' | 'documents', urn: string, accessToken: string): Promise<void> {
    const what = resource === 'videos' ? 'video' : 'document';
    const deadline = Date.now() + (this.config.processingTimeoutMs ?? 180_000);
    for (;;) {
      const { text } = await this.send(
        `${this.baseUrl}/rest/${resource}/${encodeURIComponent(urn)}`,
        { method: 'GET', headers: this.headers(accessToken) },
        this.call([accessToken]),
      );
      const answer = parseJson(text);
      const status = isRecord(answer) ? answer.status : undefined;
      if (status === 'AVAILABLE') return;
      if (status === 'PROCESSING_FAILED') {
        const reason = isRecord(answer) && typeof answer.processingFailureReason === 'string' ? answer.processingFailureReason : null;
        throw new PlatformRefusedError(reason ?? `LinkedIn could not process the ${what}`, { platform: 'linkedin', status: null });
      }
      if (Date.now() > deadline) throw new PlatformUnavailableError(`LinkedIn was still processing ${urn}`, { platform: 'linkedin' });
      await sleep(this.config.pollIntervalMs ?? 2_000);
    }
  }

  /** organizationalEntityShareStatistics takes a list of posts; a member's analytics go a post at a time. */
  readonly maxPostsPerRequest = 20;

  /**
   * How the posts did, by what LinkedIn lets the account type read (docs/platforms.md, "Post
   * metrics"): an organization's posts in one organizationalEntityShareStatistics request
   * (impressions, clicks, reactions, comments, reshares); a member's post by
   * memberCreatorPostAnalytics (impressions, reshares) and its socialActions summary (reactions,
   * comments), three requests a post. Quotes and bookmarks LinkedIn does not have: null.
   */
  async fetchMetrics(request: PlatformMetricsRequest): Promise<Map<string, PostFigures | null>> {
    const ids = [...new Set(request.platformPostIds)];
    if (ids.length === 0 || ids.length > this.maxPostsPerRequest) throw new RangeError(`LinkedIn statistics take 1 to ${this.maxPostsPerRequest} posts at once`);
    return request.account.accountType === 'organization' ? this.organizationMetrics(request, ids) : this.memberMetrics(request, ids);
  }

  private async organizationMetrics(request: PlatformMetricsRequest, ids: string[]): Promise<Map<string, PostFigures | null>> {
    const call = this.call([request.accessToken]);
    // Rest.li 2.0 lists: List(a,b) with each URN encoded inside; URLSearchParams would encode the list itself.
    const list = (urns: string[]) => `List(${urns.map(encodeURIComponent).join(',')})`;
    const shares = ids.filter((id) => id.startsWith('urn:li:share:'));
    const ugcPosts = ids.filter((id) => id.startsWith('urn:li:ugcPost:'));
    const query = [
      'q=organizationalEntity',
      `organizationalEntity=${encodeURIComponent(linkedinAuthorUrn(request.account))}`,
      ...(shares.length > 0 ? [`shares=${list(shares)}`] : []),
      ...(ugcPosts.length > 0 ? [`ugcPosts=${list(ugcPosts)}`] : []),
    ].join('&');
    const { text } = await this.send(`${this.baseUrl}/rest/organizationalEntityShareStatistics?${query}`, { method: 'GET', headers: this.headers(request.accessToken) }, call);
    const body = parseJson(text);
    const found = new Map<string, PostFigures | null>(ids.map((id) => [id, null]));
    const elements = isRecord(body) && Array.isArray(body.elements) ? body.elements : [];
    for (const element of elements) {
      if (!isRecord(element)) continue;
      const urn = typeof element.share === 'string' ? element.share : typeof element.ugcPost === 'string' ? element.ugcPost : null;
      if (urn === null || !found.has(urn) || !isRecord(element.totalShareStatistics)) continue;
      const stats = element.totalShareStatistics;
      found.set(urn, {
        impressions: countOf(stats.impressionCount),
        likes: countOf(stats.likeCount),
        comments: countOf(stats.commentCount),
        reposts: countOf(stats.shareCount),
        quotes: null,
        bookmarks: null,
        clicks: countOf(stats.clickCount),
      });
    }
    return found;
  }

  private async memberMetrics(request: PlatformMetricsRequest, ids: string[]): Promise<Map<string, PostFigures | null>> {
    const found = new Map<string, PostFigures | null>();
    for (const urn of ids) {
      const kind = urn.startsWith('urn:li:ugcPost:') ? 'ugc' : 'share';
      const analytic = async (queryType: 'IMPRESSION' | 'RESHARE'): Promise<number | null | 'gone'> => {
        const query = `q=entity&entity=(${kind}:${encodeURIComponent(urn)})&queryType=${queryType}&aggregation=TOTAL`;
        const answer = await this.sendOrGone(`${this.baseUrl}/rest/memberCreatorPostAnalytics?${query}`, request.accessToken);
        if (answer === 'gone') return 'gone';
        const elements = isRecord(answer) && Array.isArray(answer.elements) ? answer.elements : [];
        const first: unknown = elements[0];
        return isRecord(first) ? countOf(first.count) : null;
      };
      const impressions = await analytic('IMPRESSION');
      if (impressions === 'gone') {
        found.set(urn, null);
        continue;
      }
      const reposts = await analytic('RESHARE');
      const summary = await this.sendOrGone(`${this.baseUrl}/rest/socialActions/${encodeURIComponent(urn)}`, request.accessToken);
      if (reposts === 'gone' || summary === 'gone') {
        found.set(urn, null);
        continue;
      }
      const likes = isRecord(summary) && isRecord(summary.likesSummary) ? summary.likesSummary : {};
      const comments = isRecord(summary) && isRecord(summary.commentsSummary) ? summary.commentsSummary : {};
      found.set(urn, {
        impressions,
        likes: countOf(likes.aggregatedTotalLikes) ?? countOf(likes.totalLikes),
        comments: countOf(comments.aggregatedTotalComments) ?? countOf(comments.totalFirstLevelComments),
        reposts,
        quotes: null,
        bookmarks: null,
        clicks: null,
      });
    }
    return found;
  }

  /** A GET's JSON, or 'gone' when LinkedIn answers 404 (the post was deleted there). */
  private async sendOrGone(url: string, accessToken: string): Promise<unknown> {
    const call = this.call([accessToken]);
    const response = await platformFetch(url, { method: 'GET', headers: this.headers(accessToken) }, call);
    const text = await readText(response, call);
    if (response.status === 404) return 'gone';
    if (!response.ok) throw this.errorFor({ status: response.status, headers: response.headers, text }, call);
    return parseJson(text);
  }

  async deletePost(request: { account: PlatformAccount; accessToken: string; platformPostId: string }): Promise<void> {
    const call = this.call([request.accessToken]);
    const response = await platformFetch(
      `${this.baseUrl}/rest/posts/${encodeURIComponent(request.platformPostId)}`,
      { method: 'DELETE', headers: this.headers(request.accessToken, { 'X-RestLi-Method': 'DELETE' }) },
      call,
    );
    const text = await readText(response, call);
    // 204 for a delete, also for a second one; a 404 is just as gone.
    if (response.ok || response.status === 404 || response.status === 410) return;
    throw this.errorFor({ status: response.status, headers: response.headers, text }, call);
  }

  async refreshAccessToken(request: { refreshToken: string }): Promise<PlatformTokens> {
    const client = await this.config.clientCredentials();
    const call = this.call([request.refreshToken, client.clientSecret]);
    const response = await platformFetch(
      `${this.oauthBaseUrl}/oauth/v2/accessToken`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: request.refreshToken,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }).toString(),
      },
      call,
    );
    const text = await readText(response, call);
    if (!response.ok) throw tokenEndpointError({ status: response.status, headers: response.headers, text }, call);
    return tokensFrom(parseJson(text), request.refreshToken, 'linkedin');
  }

  /**
   * The author's newest posts (Posts API finder `q=author`), matched on the commentary (as a reader
   * sees it), the attached media when known, and a creation time not before `since`. LinkedIn
   * grants this finder only to apps with the scope to read the author's posts (r_member_social,
   * r_organization_social): without it LinkedIn answers 403, a PlatformRefusedError, which the
   * worker reads as "the platform cannot tell".
   */
  async findRecentPost(request: {
    account: PlatformAccount;
    accessToken: string;
    text: string;
    mediaIds?: readonly string[];
    since: Date;
  }): Promise<PlatformPublishResult | null> {
    const query = new URLSearchParams({ q: 'author', author: linkedinAuthorUrn(request.account), count: String(FIND_PAGE_SIZE) });
    const { text } = await this.send(
      `${this.baseUrl}/rest/posts?${query.toString()}`,
      { method: 'GET', headers: this.headers(request.accessToken, { 'X-RestLi-Method': 'FINDER' }) },
      this.call([request.accessToken]),
    );
    const answer = parseJson(text);
    const elements = isRecord(answer) && Array.isArray(answer.elements) ? answer.elements : [];
    const wanted = request.text.normalize('NFC').trim();
    const wantedMedia = [...(request.mediaIds ?? [])].sort().join(',');
    for (const element of elements) {
      if (!isRecord(element) || typeof element.id !== 'string' || !/^urn:li:(share|ugcPost):\S+$/.test(element.id)) continue;
      const createdAt = typeof element.createdAt === 'number' ? element.createdAt : Number.NaN;
      if (!(createdAt >= request.since.getTime())) continue;
      const reading = typeof element.commentary === 'string' ? parseLittleText(element.commentary) : null;
      // Read back the way it was written (hashtags and mentions as the user wrote them).
      const commentary = reading?.ok === true ? linkedinSourceText(reading.segments).normalize('NFC').trim() : '';
      if (commentary !== wanted) continue;
      if (request.mediaIds !== undefined && request.mediaIds.length > 0 && mediaOf(element).sort().join(',') !== wantedMedia) continue;
      return { platformPostId: element.id, publishedUrl: linkedinPublicUrl(element.id) };
    }
    return null;
  }

  /**
   * A comment on a live post through the social actions API, as the account (`actor`). The text
   * is "little text" like a post's commentary, so it is escaped the same way. Its answer lost is
   * ambiguous (the comment may be live): the caller settles that with findComment, never by
   * sending it again blindly.
   */
  async publishComment(request: PlatformCommentRequest): Promise<PlatformCommentResult> {
    const actor = linkedinAuthorUrn(request.account);
    const { response, text } = await this.send(
      `${this.baseUrl}/rest/socialActions/${encodeURIComponent(request.platformPostId)}/comments`,
      {
        method: 'POST',
        headers: this.headers(request.accessToken, { 'Content-Type': 'application/json' }),
        body: JSON.stringify({ actor, object: request.platformPostId, message: { text: escapeLittleText(request.text) } }),
      },
      this.call([request.accessToken], 'create'),
    );
    const id = commentUrnOf(parseJson(text), request.platformPostId, response.headers.get('x-restli-id'));
    if (id === null) {
      throw new PlatformAmbiguousError('LinkedIn accepted the comment but named no comment', { platform: 'linkedin', status: response.status });
    }
    return { platformCommentId: id };
  }

  /**
   * This account's comment with this text on the post, made since `since`: the post's comments
   * (`GET /rest/socialActions/{urn}/comments`) read a few pages deep, matched on the actor, the
   * text as a reader sees it and `created.time`.
   */
  async findComment(request: PlatformCommentRequest & { since: Date }): Promise<PlatformCommentResult | null> {
    const actor = linkedinAuthorUrn(request.account);
    const wanted = request.text.normalize('NFC').trim();
    for (let page = 0; page < COMMENT_PAGES; page++) {
      const query = new URLSearchParams({ start: String(page * COMMENT_PAGE_SIZE), count: String(COMMENT_PAGE_SIZE) });
      const { text } = await this.send(
        `${this.baseUrl}/rest/socialActions/${encodeURIComponent(request.platformPostId)}/comments?${query.toString()}`,
        { method: 'GET', headers: this.headers(request.accessToken) },
        this.call([request.accessToken]),
      );
      const answer = parseJson(text);
      const elements = isRecord(answer) && Array.isArray(answer.elements) ? answer.elements : [];
      for (const element of elements) {
        if (!isRecord(element) || element.actor !== actor) continue;
        const created = isRecord(element.created) && typeof element.created.time === 'number' ? element.created.time : Number.NaN;
        if (!(created >= request.since.getTime())) continue;
        const said = isRecord(element.message) && typeof element.message.text === 'string' ? unescapeLittleText(element.message.text).normalize('NFC').trim() : null;
        if (said !== wanted) continue;
        const id = commentUrnOf(element, request.platformPostId, null);
        if (id !== null) return { platformCommentId: id };
      }
      if (elements.length < COMMENT_PAGE_SIZE) break;
    }
    return null;
  }
}

/**
 * A comment's URN (`urn:li:comment:(<post or activity urn>,<id>)`), the id a later delete or
 * lookup uses: from the body's `commentUrn` or `$URN`, else built from its `id` (or the
 * x-restli-id header) and the post commented on. null when the answer names none.
 */
function commentUrnOf(body: unknown, postUrn: string, headerId: string | null): string | null {
  if (isRecord(body)) {
    for (const key of ['commentUrn', '$URN']) {
      const value = body[key];
      if (typeof value === 'string' && value.startsWith('urn:li:comment:(')) return value;
    }
    if (typeof body.id === 'string' && /^\d+$/.test(body.id)) return `urn:li:comment:(${postUrn},${body.id})`;
  }
  if (headerId !== null && /^\d+$/.test(headerId)) return `urn:li:comment:(${postUrn},${headerId})`;
  if (headerId !== null && headerId.startsWith('urn:li:comment:(')) return headerId;
  return null;
}

/** A media's `altText` as the Posts API takes it beside its id (images and videos; a document has its title instead). */
function altTextOf(item: PlatformMediaSource | undefined, isDocument: boolean): { altText?: string } {
  return !isDocument && item?.altText ? { altText: item.altText } : {};
}

/** The media URNs a post of the Posts API carries (`content.media.id` or `content.multiImage.images[].id`). */
function mediaOf(element: Record<string, unknown>): string[] {
  const content = isRecord(element.content) ? element.content : {};
  if (isRecord(content.media) && typeof content.media.id === 'string') return [content.media.id];
  const images = isRecord(content.multiImage) && Array.isArray(content.multiImage.images) ? content.multiImage.images : [];
  return images.map((image) => (isRecord(image) && typeof image.id === 'string' ? image.id : '')).filter((id) => id !== '');

}

export function linkedinClientFromEnv(): LinkedinClient {
  const configuredBase = optionalEnv(ENV.linkedinApiBaseUrl, '');
  const baseUrl = configuredBase || 'https://api.linkedin.com';
  // The real OAuth host differs from the API host; a stand-in (the sandbox) serves both.
  const oauthBaseUrl = optionalEnv(ENV.linkedinOauthBaseUrl, configuredBase || 'https://www.linkedin.com');
  return new LinkedinClient({
    baseUrl,
    oauthBaseUrl,
    apiVersion: optionalEnv(ENV.linkedinApiVersion, LINKEDIN_API_VERSION),
    clientCredentials: () => platformClientCredentials('linkedin'),
  });
}

/** A count as LinkedIn gives it: a non-negative integer, else not given. */
function countOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}
