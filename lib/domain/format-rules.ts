/**
 * Native formats' per-target rules (beyond-v1.md "Native formats"): an X thread or poll, a LinkedIn
 * poll or document, a first comment on either. Called from evaluateTarget (target-rules.ts) after
 * the post's own text and media passed, so a target has one reason, the first that fails:
 *
 *   X:        invalid_thread (and a part's media: unsupported_media / video_too_long) → invalid_poll → invalid_first_comment
 *   LinkedIn: invalid_document → invalid_poll → invalid_first_comment
 *
 * The options' JSON types were checked for the whole request already (create-request.ts
 * checkOptions, invalid_option); here a value of the right type that breaks a rule rejects this
 * target alone. Also what a post stores of its format (formatFields): `thread` becomes the post's
 * threadParts and `firstComment` its firstComment, the rest stays in its options. Pure.
 *
 * Work is bounded whatever the request: a thread of more than MAX_THREAD_PARTS parts is rejected
 * before any part is looked at, each text is counted by the platform's bounded counter
 * (x-text-length.ts), and character counts stop at twice the limit.
 */
import type { LinkedInOptions, PlatformOptions, XOptions } from './create-request.js';
import type { RejectionReason } from './errors.js';
import type { FirstComment, MediaItem, Post, PostFormat, PublishablePlatform, ThreadPart } from './model.js';

/** Further parts of an X thread (the post itself is part 1). */
export const MAX_THREAD_PARTS = 24;
export const X_POLL = { minChoices: 2, maxChoices: 4, maxChoiceLength: 25, minMinutes: 5, maxMinutes: 10_080 } as const;
export const LINKEDIN_POLL = {
  maxQuestionLength: 140,
  minChoices: 2,
  maxChoices: 4,
  maxChoiceLength: 30,
  durations: ['ONE_DAY', 'THREE_DAYS', 'SEVEN_DAYS', 'FOURTEEN_DAYS'],
} as const;
/** The most choices any platform's poll takes: a request's longer list is refused by its count alone. */
export const MAX_POLL_CHOICES = Math.max(X_POLL.maxChoices, LINKEDIN_POLL.maxChoices);
export const MAX_DOCUMENT_TITLE_LENGTH = 400;
export const MAX_FIRST_COMMENT_LENGTH: Record<PublishablePlatform, number> = { x: 280, linkedin: 1250 };
export const PDF_CONTENT_TYPE = 'application/pdf';

export interface Problem {
  reason: RejectionReason;
  message: string;
}

/** What the format rules need of a platform's rules (target-rules.ts PLATFORM_RULES), passed in to keep the imports one-way. */
export interface FormatContext {
  platform: PublishablePlatform;
  maxTextLength: number;
  textLength(text: string): { length: number; exact: boolean };
  /** The platform's media rule for one post's files (unsupported_media, video_too_long), or null. */
  mediaProblem(media: readonly MediaItem[]): Problem | null;
}

export interface FormatInput {
  /** The request's options (create) or the post's own, as a change leaves them. */
  options: PlatformOptions;
  /** The post's own media. */
  media: readonly MediaItem[];
  /** The media of each thread part, resolved in part order; null when there is no thread or it has too many parts to look at. */
  threadMedia: readonly (readonly MediaItem[])[] | null;
}

/** Characters as people count them (code points), stopping once past `limit` (a longer string is over it anyway). */
function characters(text: string, limit: number): number {
  if (text.length > 2 * limit) return limit + 1;
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function blank(text: string): boolean {
  return text.trim().length === 0;
}

function choicesProblem(choices: readonly string[], min: number, max: number, maxLength: number): string | null {
  // A longer list was cut past MAX_POLL_CHOICES when the request was read (create-request.ts).
  const count = choices.length > MAX_POLL_CHOICES ? `more than ${MAX_POLL_CHOICES}` : `${choices.length}`;
  if (choices.length < min || choices.length > max) return `A poll has ${min} to ${max} choices; this one has ${count}.`;
  const index = choices.findIndex((choice) => blank(choice) || characters(choice, maxLength) > maxLength);
  if (index < 0) return null;
  return `choices[${index}] must be 1 to ${maxLength} characters long.`;
}

export function checkFormat(context: FormatContext, input: FormatInput): Problem | null {
  return context.platform === 'x'
    ? checkXFormat(context, input.options.x ?? {}, input)
    : checkLinkedInFormat(context, input.options.linkedin ?? {}, input);
}

function checkXFormat(context: FormatContext, options: XOptions, input: FormatInput): Problem | null {
  if (options.thread !== undefined) {
    const problem = threadProblem(context, options.thread.length, input.threadMedia, options.thread);
    if (problem) return problem;
  }
  if (options.poll !== undefined) {
    const { choices, durationMinutes } = options.poll;
    const invalid = (message: string): Problem => ({ reason: 'invalid_poll', message: `options.x.poll: ${message}` });
    const choiceProblem = choicesProblem(choices, X_POLL.minChoices, X_POLL.maxChoices, X_POLL.maxChoiceLength);
    if (choiceProblem) return invalid(choiceProblem);
    if (!Number.isInteger(durationMinutes) || durationMinutes < X_POLL.minMinutes || durationMinutes > X_POLL.maxMinutes) {
      return invalid(`durationMinutes must be a whole number from ${X_POLL.minMinutes} to ${X_POLL.maxMinutes} (7 days); got ${durationMinutes}.`);
    }
    if (input.media.length > 0) return invalid('X takes no media in a post with a poll; remove media (a thread\'s further parts may have media).');
  }
  if (options.firstComment !== undefined) {
    if (options.thread !== undefined) {
      return {
        reason: 'invalid_first_comment',
        message: 'options.x.firstComment cannot go with options.x.thread: add the comment as a further part of the thread instead.',
      };
    }
    return firstCommentProblem(context, options.firstComment);
  }
  return null;
}

function threadProblem(
  context: FormatContext,
  count: number,
  threadMedia: FormatInput['threadMedia'],
  parts: NonNullable<XOptions['thread']>,
): Problem | null {
  const invalid = (message: string): Problem => ({ reason: 'invalid_thread', message });
  if (count < 1 || count > MAX_THREAD_PARTS) {
    const got = count > MAX_THREAD_PARTS ? `more than ${MAX_THREAD_PARTS}` : `${count}`;
    return invalid(`options.x.thread holds the further parts of a thread: 1 to ${MAX_THREAD_PARTS} of them; got ${got}.`);
  }
  for (const [index, part] of parts.entries()) {
    const media = threadMedia?.[index] ?? [];
    const name = `options.x.thread[${index}] (part ${index + 2} of the thread)`;
    if (blank(part.text) && media.length === 0) return invalid(`${name} needs text or media.`);
    const counted = context.textLength(part.text);
    if (counted.length > context.maxTextLength) {
      const size = counted.exact ? `${counted.length}` : `more than ${context.maxTextLength}`;
      return invalid(`The text of ${name} is ${size} characters as x counts them; the limit is ${context.maxTextLength}.`);
    }
    const mediaProblem = context.mediaProblem(media);
    if (mediaProblem) return { reason: mediaProblem.reason, message: `${name}: ${mediaProblem.message}` };
  }
  return null;
}

function checkLinkedInFormat(context: FormatContext, options: LinkedInOptions, input: FormatInput): Problem | null {
  const documentProblem = linkedInDocumentProblem(options.documentTitle, input.media);
  if (documentProblem) return { reason: 'invalid_document', message: documentProblem };
  if (options.poll !== undefined) {
    const { question, choices, duration } = options.poll;
    const invalid = (message: string): Problem => ({ reason: 'invalid_poll', message: `options.linkedin.poll: ${message}` });
    if (blank(question) || characters(question, LINKEDIN_POLL.maxQuestionLength) > LINKEDIN_POLL.maxQuestionLength) {
      return invalid(`question must be 1 to ${LINKEDIN_POLL.maxQuestionLength} characters long.`);
    }
    const choiceProblem = choicesProblem(choices, LINKEDIN_POLL.minChoices, LINKEDIN_POLL.maxChoices, LINKEDIN_POLL.maxChoiceLength);
    if (choiceProblem) return invalid(choiceProblem);
    if (!(LINKEDIN_POLL.durations as readonly string[]).includes(duration)) {
      return invalid(`duration must be one of ${LINKEDIN_POLL.durations.join(', ')}.`);
    }
    if (input.media.length > 0) return invalid('LinkedIn takes no media in a post with a poll; remove media.');
  }
  if (options.firstComment !== undefined) return firstCommentProblem(context, options.firstComment);
  return null;
}

function linkedInDocumentProblem(title: string | undefined, media: readonly MediaItem[]): string | null {
  const pdfs = media.filter((item) => item.contentType === PDF_CONTENT_TYPE).length;
  if (title === undefined) {
    return pdfs === 0 ? null : 'A PDF is posted as a LinkedIn document, which needs a title: set options.linkedin.documentTitle.';
  }
  if (blank(title) || characters(title, MAX_DOCUMENT_TITLE_LENGTH) > MAX_DOCUMENT_TITLE_LENGTH) {
    return `options.linkedin.documentTitle must be 1 to ${MAX_DOCUMENT_TITLE_LENGTH} characters long.`;
  }
  if (pdfs === 0) return 'options.linkedin.documentTitle is set but media holds no PDF: a document post has exactly one PDF from your media library.';
  if (media.length > 1) {
    return pdfs > 1
      ? `A document post has exactly one PDF; media holds ${pdfs}.`
      : 'A document post has exactly one PDF and nothing else; remove the other files from media.';
  }
  return null;
}

function firstCommentProblem(context: FormatContext, text: string): Problem | null {
  const param = `options.${context.platform}.firstComment`;
  if (blank(text)) return { reason: 'invalid_first_comment', message: `${param} is empty; leave it out for no comment.` };
  const limit = MAX_FIRST_COMMENT_LENGTH[context.platform];
  const counted = context.textLength(text);
  if (counted.length > limit) {
    const size = counted.exact ? `${counted.length}` : `more than ${limit}`;
    return { reason: 'invalid_first_comment', message: `${param} is ${size} characters as ${context.platform} counts them; the limit is ${limit}.` };
  }
  return null;
}

/** What a post stores of its format: options without thread and firstComment, the format, the parts, the comment. */
export type FormatFields = Pick<Post, 'options' | 'format' | 'threadParts' | 'firstComment'>;

/**
 * The format fields of a post on `platform` made from validated options (a create, or a PATCH that
 * gives options.<platform>, which replaces them whole). `threadMedia`: each part's media items in
 * part order, as the rules saw them.
 */
export function formatFields(
  options: PlatformOptions,
  platform: PublishablePlatform,
  threadMedia: readonly (readonly MediaItem[])[] | null,
): FormatFields {
  const own: Partial<Pick<XOptions, 'thread'>> & Record<string, unknown> = { ...((platform === 'x' ? options.x : options.linkedin) ?? {}) };
  const { thread, firstComment, ...kept } = own;
  const threadParts: ThreadPart[] = (thread ?? []).map((part, index) => {
    const media = threadMedia?.[index] ?? [];
    return { text: part.text, mediaUrls: media.map((item) => item.url), mediaIds: media.map((item) => item.id), platformPostId: null, publishedUrl: null };
  });
  const comment: FirstComment | null =
    typeof firstComment !== 'string' ? null : { text: firstComment, status: 'pending', platformCommentId: null, error: null };
  return { options: { ...kept }, format: formatOf(threadParts, kept), threadParts, firstComment: comment };
}

function formatOf(threadParts: readonly ThreadPart[], options: Record<string, unknown>): PostFormat {
  if (threadParts.length > 0) return 'thread';
  if (options.poll !== undefined) return 'poll';
  if (options.documentTitle !== undefined) return 'document';
  return 'text';
}

/**
 * A stored post's options as a request would give them (thread and firstComment put back), so a
 * change that keeps them (PATCH of text or media, publish, retry) is judged by the same rules.
 */
export function storedOptions(post: Post): PlatformOptions {
  const options: Record<string, unknown> = { ...post.options };
  if (post.threadParts.length > 0) options.thread = post.threadParts.map((part) => ({ text: part.text, media: [...part.mediaUrls] }));
  if (post.firstComment !== null) options.firstComment = post.firstComment.text;
  return { [post.platform]: options } as PlatformOptions;
}
