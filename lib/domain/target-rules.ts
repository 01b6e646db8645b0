/**
 * The per-target rules of a create (api-v1.md "Rejection reasons", decisions.md "Per-platform
 * rules"): one verdict per requested account, decided before anything is written. Pure.
 *
 * Order (first failing rule is the reason):
 *   account_unresolved → platform_not_available → token_invalid → token_refresh_failed →
 *   text_empty → text_too_long → unsupported_media → video_too_long → the native formats' reasons
 *   (format-rules.ts: invalid_thread, invalid_poll, invalid_document, invalid_first_comment)
 * (quota_exceeded is decided when the posts are written, schedule_failed when they are queued.)
 * Connection problems come first because reconnecting is the fix that matters most; a text or
 * media fix would still fail on a dead connection.
 */
import type { RejectionReason } from './errors.js';
import type { PlatformOptions } from './create-request.js';
import { checkFormat, PDF_CONTENT_TYPE } from './format-rules.js';
import { PUBLISHABLE_PLATFORMS, type Account, type MediaItem, type PublishablePlatform } from './model.js';
import { xTextLength } from './x-text-length.js';
import { linkedinTextLength } from './linkedin-markup.js';
import { LINKEDIN_MAX_TEXT_LENGTH, X_MAX_TEXT_LENGTH, X_PREMIUM_MAX_WEIGHTED_LENGTH, textLimitFor } from './text-limits.js';

export { X_PREMIUM_MAX_WEIGHTED_LENGTH, textLimitFor };

export interface PlatformRules {
  /** The limit of an ordinary account; an account's own is textLimitFor(account) (X Premium posts longer). */
  maxTextLength: number;
  /**
   * How the platform counts text towards a limit (`limit`: where counting may stop). `exact: false` means counting stopped
   * early (the bound on work per text, x-text-length.ts) and `length` is a lower bound already
   * over the limit.
   */
  textLength(text: string, limit: number): { length: number; exact: boolean; longRun?: number };
  imageTypes: readonly string[];
  maxImages: number;
  videoTypes: readonly string[];
  maxVideoSeconds: number;
  /** Files posted as a document (LinkedIn's PDF), judged by the document rule (format-rules.ts), not as images or videos. */
  documentTypes: readonly string[];
}

/**
 * LinkedIn's limit is counted in UTF-16 code units (JavaScript's `length`), not code points, of what
 * a reader sees (linkedin-markup.ts: a mention counts its name, not its URN). UTF-16 is the stricter
 * of the two counts (a character outside the BMP is 2 units, 1 code point), so any text accepted here
 * fits whichever way LinkedIn counts; LinkedIn's own documentation does not say.
 */
export const PLATFORM_RULES: Record<PublishablePlatform, PlatformRules> = {
  x: {
    maxTextLength: X_MAX_TEXT_LENGTH,
    textLength: xTextLength,
    imageTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'],
    maxImages: 4,
    videoTypes: ['video/mp4'],
    maxVideoSeconds: 140,
    documentTypes: [],
  },
  linkedin: {
    maxTextLength: LINKEDIN_MAX_TEXT_LENGTH,
    textLength: linkedinTextLength,
    imageTypes: ['image/jpeg', 'image/png', 'image/gif'],
    maxImages: 20,
    videoTypes: ['video/mp4'],
    maxVideoSeconds: 30 * 60,
    documentTypes: [PDF_CONTENT_TYPE],
  },
};

export function isPublishablePlatform(platform: string): platform is PublishablePlatform {
  return (PUBLISHABLE_PLATFORMS as readonly string[]).includes(platform);
}

export interface TargetInput {
  /** The id as requested (echoed in the result even when it resolves to nothing). */
  accountId: string;
  /** The account stored under that id, if any (it may be someone else's). */
  account: Account | undefined;
  userId: string;
  /** The workspace of the request; null when the caller owns none. */
  workspaceId: string | null;
  /** The text for this account (texts[id] ?? text ?? ""). */
  text: string;
  /** The request's media, already resolved to the caller's library items, in request order. */
  media: readonly MediaItem[];
  /** The options as validated (create-request.ts checkOptions); absent: none. */
  options?: PlatformOptions;
  /** Each X thread part's media, resolved like `media`, in part order; null or absent when there is none to look at. */
  threadMedia?: readonly (readonly MediaItem[])[] | null;
}

export type TargetVerdict =
  | { accepted: true; accountId: string; account: Account; platform: PublishablePlatform }
  | { accepted: false; accountId: string; platform: string | null; reason: RejectionReason; message: string };

function reject(
  input: TargetInput,
  platform: string | null,
  reason: RejectionReason,
  message: string,
): TargetVerdict {
  return { accepted: false, accountId: input.accountId, platform, reason, message };
}

/**
 * Whether a requested id resolves: the account exists, is the caller's, is in the request's
 * workspace and still connected. Another user's account, another workspace's, or one no longer
 * connected all look the same as an unknown id: the caller learns nothing about accounts that are
 * not theirs (the result's platform stays null).
 */
export function resolvesTo(account: Account | undefined, userId: string, workspaceId: string | null): account is Account {
  return account !== undefined && account.userId === userId && account.workspaceId === workspaceId && account.active;
}

export function evaluateTarget(input: TargetInput): TargetVerdict {
  const { account } = input;
  if (!resolvesTo(account, input.userId, input.workspaceId)) {
    return reject(input, null, 'account_unresolved', `${input.accountId} is not a connected account in this workspace.`);
  }
  const platform = account.platform;
  if (!isPublishablePlatform(platform)) {
    return reject(
      input,
      platform,
      'platform_not_available',
      `Posting to ${platform} is not available; only ${PUBLISHABLE_PLATFORMS.join(' and ')} accounts can be posted to.`,
    );
  }
  if (account.tokenHealth === 'needs_reauth') {
    return reject(input, platform, 'token_invalid', `The connection to ${account.handle} has expired or was revoked; reconnect the account.`);
  }
  if (account.tokenHealth === 'refresh_failed') {
    return reject(input, platform, 'token_refresh_failed', `The connection to ${account.handle} could not be refreshed; reconnect the account.`);
  }

  const rules = PLATFORM_RULES[platform];
  const limit = textLimitFor(account) ?? rules.maxTextLength;
  const textLength = (text: string) => rules.textLength(text, limit);
  // Whitespace alone is no text: both platforms refuse a post made only of it.
  if (input.text.trim().length === 0 && input.media.length === 0) {
    return reject(input, platform, 'text_empty', `${platform} needs text or media; this post has neither.`);
  }
  const counted = textLength(input.text);
  if (counted.length > limit) {
    return reject(input, platform, 'text_too_long', tooLongMessage(platform, limit, counted, rules.maxTextLength));
  }

  const mediaProblem = checkMedia(rules, platform, input.media);
  if (mediaProblem) return reject(input, platform, mediaProblem.reason, mediaProblem.message);

  const formatProblem = checkFormat(
    {
      platform,
      maxTextLength: limit,
      textLength,
      mediaProblem: (media) => checkMedia(rules, platform, media),
    },
    { options: input.options ?? {}, media: input.media, threadMedia: input.threadMedia ?? null },
  );
  if (formatProblem) return reject(input, platform, formatProblem.reason, formatProblem.message);

  return { accepted: true, accountId: input.accountId, account, platform };
}

function tooLongMessage(platform: string, limit: number, counted: { length: number; exact: boolean; longRun?: number }, ordinaryLimit: number): string {
  if (counted.longRun !== undefined) {
    return `The text has ${counted.longRun} characters without a space, more than ${platform} can count as one link; the limit is ${limit}.`;
  }
  const size = counted.exact ? `${counted.length}` : `more than ${limit}`;
  // Long posts are X Premium's: say so, so the user knows what would let the text through.
  const premium = platform === 'x' && limit === ordinaryLimit ? ` (X Premium accounts post up to ${X_PREMIUM_MAX_WEIGHTED_LENGTH.toLocaleString('en-US')})` : '';
  return `The text is ${size} characters as ${platform} counts them; the limit is ${limit}${premium}.`;
}

function checkMedia(
  rules: PlatformRules,
  platform: PublishablePlatform,
  media: readonly MediaItem[],
): { reason: RejectionReason; message: string } | null {
  // A document (LinkedIn's PDF) is the document rule's to judge (format-rules.ts).
  media = media.filter((item) => !rules.documentTypes.includes(item.contentType));
  if (media.length === 0) return null;
  const images = media.filter((item) => rules.imageTypes.includes(item.contentType));
  const videos = media.filter((item) => rules.videoTypes.includes(item.contentType));
  const other = media.find((item) => !rules.imageTypes.includes(item.contentType) && !rules.videoTypes.includes(item.contentType));
  if (other) {
    return {
      reason: 'unsupported_media',
      message: `${platform} does not accept ${other.contentType} files (accepted: ${[...rules.imageTypes, ...rules.videoTypes, ...rules.documentTypes].join(', ')}).`,
    };
  }
  if (videos.length > 0 && images.length > 0) {
    return { reason: 'unsupported_media', message: `${platform} takes either images or one video in a post, not both.` };
  }
  if (videos.length > 1) {
    return { reason: 'unsupported_media', message: `${platform} takes one video per post; ${videos.length} were attached.` };
  }
  if (images.length > rules.maxImages) {
    return {
      reason: 'unsupported_media',
      message: `${platform} takes at most ${rules.maxImages} images per post; ${images.length} were attached.`,
    };
  }
  const video = videos[0];
  // A video of unknown duration is let through: the platform is the judge at publish time.
  if (video && video.durationSeconds !== null && video.durationSeconds > rules.maxVideoSeconds) {
    return {
      reason: 'video_too_long',
      message: `The video is ${Math.ceil(video.durationSeconds)} s long; ${platform} accepts at most ${rules.maxVideoSeconds} s.`,
    };
  }
  return null;
}
