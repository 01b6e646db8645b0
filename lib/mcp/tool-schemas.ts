/**
 * Input and output JSON schemas of the assistant server's tools (zod, which the MCP SDK turns into
 * the JSON Schema each tool advertises). Inputs are typed loosely enough that the service's own
 * rules (lib/domain/create-request.ts and friends) give the errors, in the API's words; outputs
 * are the API's objects (api-v1.md) plus a `settingsUrl` where a person can see and cancel a post.
 *
 * Portability (what `npx @modelcontextprotocol/inspector --cli --strict` checks, and
 * test/unit/mcp/tool-schema-portability.test.ts on every registered tool): every node of a schema
 * has one `type`, never an array of them, and none accepts anything. zod writes a bare
 * `.nullable()` as `type: ["string", "null"]`, which clients that map tool schemas onto a
 * single-type dialect reject; a nullable field made with `nullable()` below says what null means,
 * and that description is what makes zod write the portable `anyOf` instead. Values of free-form
 * records are typed (`optionValue`), never `z.unknown()`.
 */
import * as z from 'zod/v4';

const timestamp = z.string().describe('ISO 8601, UTC with milliseconds');

/** A field that may be null: `anyOf: [{type, description}, {type: "null"}]`, with what null means. */
export function nullable<T extends z.ZodType>(schema: T, whenNull: string): z.ZodNullable<T> {
  return schema.describe(whenNull).nullable();
}

/*
 * A create's `options` (docs/native-formats.md). Strict objects, so a mistyped key is refused by
 * name rather than dropped; the values' rules (lengths, counts, durations) are the service's, whose
 * rejection reasons name them (invalid_thread, invalid_poll, invalid_document, invalid_first_comment).
 */
const firstCommentOption = z
  .string()
  .describe('A comment posted on the post right after it is live (X: a reply); not with thread. X 280 weighted characters, LinkedIn 1,250');
const platformOptions = z
  .strictObject({
    x: z
      .strictObject({
        communityId: z.string().optional().describe('Post into this X community'),
        shareWithFollowers: z.boolean().optional().describe('With communityId: also show it to followers'),
        thread: z
          .array(
            z.strictObject({
              text: z.string().optional().describe('280 weighted characters at most; may be empty when the part has media'),
              media: z.array(z.string()).optional().describe('URLs from list_media, as a post\'s media'),
            }),
          )
          .optional()
          .describe('The FURTHER parts of a thread (the post\'s own text is part 1), 1 to 24, each a reply to the one before'),
        poll: z
          .strictObject({
            choices: z.array(z.string()).describe('2 to 4 choices of 1 to 25 characters'),
            durationMinutes: z.number().describe('Whole minutes, 5 to 10080'),
          })
          .optional()
          .describe('A poll on the post; the post then has no media'),
        firstComment: firstCommentOption.optional(),
      })
      .optional(),
    linkedin: z
      .strictObject({
        poll: z
          .strictObject({
            question: z.string().describe('1 to 140 characters'),
            choices: z.array(z.string()).describe('2 to 4 choices of 1 to 30 characters'),
            duration: z.enum(['ONE_DAY', 'THREE_DAYS', 'SEVEN_DAYS', 'FOURTEEN_DAYS']),
          })
          .optional()
          .describe('A poll on the post; the post then has no media'),
        documentTitle: z
          .string()
          .optional()
          .describe('1 to 400 characters; makes a document post, whose media is exactly one PDF from list_media. Required with a PDF'),
        firstComment: firstCommentOption.optional(),
      })
      .optional(),
  })
  .describe('Per-platform options (they apply to every account of that platform)');

export const accountShape = z.object({
  object: z.literal('account'),
  id: z.string(),
  workspaceId: z.string(),
  platform: z.string(),
  name: z.string(),
  handle: z.string(),
  accountType: z.string(),
  active: z.boolean(),
  tokenHealth: z.string().describe('healthy, expiring, needs_reauth or refresh_failed; reconnect in settings unless healthy'),
  connectedAt: timestamp,
  tokenExpiresAt: nullable(timestamp, 'When access ends for good (it cannot be refreshed): tokenHealth turns expiring 7 days before; reconnect in settings before then. Null when it refreshes itself'),
  limits: z
    .object({ textLength: z.number().describe('The longest text this account may post (X Premium: 25,000 weighted characters; X otherwise 280; LinkedIn 3,000)') })
    .optional()
    .describe('Accounts that can be posted to only'),
});

const figure = (what: string) => nullable(z.number().int(), `${what}; null when the platform does not give it for this account`);

/** A post's figures (post metrics): null figures are ones the platform does not give, never 0. */
export const metricsShape = z.object({
  impressions: figure('Times the post was shown'),
  likes: figure('Likes (X) or reactions (LinkedIn)'),
  comments: figure('Replies (X) or comments (LinkedIn)'),
  reposts: figure('Reposts (X) or reshares (LinkedIn)'),
  quotes: figure('Quote posts (X)'),
  bookmarks: figure('Bookmarks (X)'),
  clicks: figure('Link clicks'),
  collectedAt: timestamp,
});

const totalsShape = z.object({
  posts: z.number().int(),
  impressions: figure('Sum of the posts\' impressions'),
  likes: figure('Sum of likes'),
  comments: figure('Sum of comments'),
  reposts: figure('Sum of reposts'),
  quotes: figure('Sum of quotes'),
  bookmarks: figure('Sum of bookmarks'),
  clicks: figure('Sum of link clicks'),
});

export const getPostMetricsInput = {
  id: z.string().describe('A post id (post_...)'),
};
export const getPostMetricsOutput = {
  postId: z.string(),
  platform: z.string(),
  metrics: nullable(metricsShape, 'null until first collected (about an hour after publishing)'),
  history: z.array(metricsShape).describe('Every collection kept, oldest first'),
};

export const getAnalyticsInput = {
  from: z.string().describe('Start of the period, ISO 8601 (posts published at or after it)'),
  to: z.string().describe('End of the period, ISO 8601 (posts published before it); at most 92 days after from'),
  accountId: z.string().optional().describe('Only this account\'s posts'),
  campaignId: z.string().optional().describe('Only this campaign\'s posts'),
};
export const getAnalyticsOutput = {
  from: timestamp,
  to: timestamp,
  totals: totalsShape,
  byAccount: z.array(totalsShape.extend({ accountId: z.string(), platform: z.string() })),
  topPosts: z.array(z.string()).describe('Ids of the posts with the most impressions, most first (at most 10)'),
};

export const postShape = z.object({
  object: z.literal('post'),
  id: z.string(),
  workspaceId: z.string(),
  accountId: z.string(),
  platform: z.string(),
  campaignId: z.string(),
  status: z.enum(['draft', 'scheduled', 'published', 'failed']),
  text: z.string(),
  mediaUrls: z.array(z.string()),
  scheduledFor: timestamp,
  publishedAt: timestamp.nullable(),
  publishedUrl: nullable(z.string(), 'The live post; null until published'),
  platformPostId: nullable(z.string(), 'The platform\'s id of the post; null until published'),
  error: z
    .object({ message: z.string(), advice: z.string(), retryable: z.boolean().optional().describe('true: retry_post can send it again safely') })
    .nullable(),
  format: z.enum(['text', 'thread', 'poll', 'document']),
  threadParts: z
    .array(
      z.object({
        platformPostId: nullable(z.string(), 'null until this part is live'),
        publishedUrl: nullable(z.string(), 'The live part; null until it is live'),
      }),
    )
    .describe('A thread\'s further parts, in order ([] unless format is thread); the first part is the post itself'),
  firstComment: nullable(
    z.object({
      status: z.enum(['pending', 'published', 'failed']).describe('The comment\'s own state; the post\'s status never depends on it'),
      platformCommentId: nullable(z.string(), 'null until the comment is live'),
      error: nullable(z.object({ message: z.string(), advice: z.string(), retryable: z.boolean().optional() }), 'Why the comment failed; null otherwise'),
    }),
    'null when no first comment was asked for',
  ),
  createdAt: timestamp,
  updatedAt: timestamp,
  metrics: nullable(metricsShape, 'How the post did; null until first collected').optional(),
  settingsUrl: z.string().describe('Where the person sees this post in settings (and cancels it while scheduled)'),
});

export const listAccountsInput = {
  workspaceId: z.string().optional().describe('Only the accounts of this workspace'),
  platform: z.string().optional().describe('Only the accounts of this platform, e.g. linkedin or x'),
};
export const listAccountsOutput = { accounts: z.array(accountShape) };

export const listPostsInput = {
  status: z.enum(['draft', 'scheduled', 'published', 'failed']).optional(),
  limit: z.number().int().optional().describe('1 to 100, default 25'),
  cursor: z.string().optional().describe('nextCursor of the previous page'),
};
export const listPostsOutput = { posts: z.array(postShape), nextCursor: nullable(z.string(), 'Pass as cursor for the next page; null on the last page') };

export const listEventsInput = {
  type: z.string().optional().describe('One event type (post.published) or a group (post.*, account.*)'),
  limit: z.number().int().optional().describe('1 to 100, default 25'),
  cursor: z.string().optional().describe('nextCursor of the previous page'),
};
const eventShape = z.object({
  id: z.string().describe('evt_..., the webhook-id its deliveries carried'),
  object: z.literal('event'),
  type: z.string(),
  createdAt: z.string(),
  // Typed as the post or account it carries (a portable schema says what every value is); a test event carries {}.
  data: z.object({ object: z.union([postShape, accountShape, z.object({})]).describe('The post or account as it was then; {} for a test') }),
});
export const listEventsOutput = { events: z.array(eventShape), nextCursor: nullable(z.string(), 'Pass as cursor for the next page; null on the last page') };

export const getPostInput = { id: z.string().describe('A post id (post_...)') };
export const getPostOutput = { post: postShape };

export const createPostsInput = {
  accounts: z.array(z.string()).describe('Account ids from list_accounts; one post per account, at most 25'),
  text: z.string().optional().describe('Text for every account without an entry in texts'),
  texts: z.record(z.string(), z.string()).optional().describe('Per-account text, keyed by account id'),
  media: z.array(z.string()).optional().describe('URLs from list_media (files of the media library) only'),
  scheduledFor: z.string().optional().describe('ISO 8601 with a zone, at most 30 days ahead; omit to publish at once'),
  queue: z
    .boolean()
    .optional()
    .describe('true instead of scheduledFor: each post goes out at the next free slot of its account\'s queue (see get_queue); a target whose queue is empty or full is rejected'),
  draft: z.boolean().optional().describe('true saves drafts that are never sent'),
  options: platformOptions.optional(),
  workspaceId: z.string().optional().describe('Needed only when the person has several workspaces'),
  campaignId: z.string().optional(),
  idempotencyKey: z
    .string()
    .describe('A fresh unique key per intended create (e.g. a UUID); send the SAME key when retrying, so the posts are never created twice'),
  confirm: z
    .boolean()
    .optional()
    .describe('Omit (or false) to get a preview that writes nothing; true to create the posts after the person agreed to the preview'),
};

const previewLine = z.object({
  accountId: z.string(),
  platform: nullable(z.string(), 'The account\'s platform; null when the account is not one of the person\'s'),
  handle: nullable(z.string(), 'The account\'s handle; null when rejected'),
  verdict: z.enum(['accepted', 'rejected']),
  reason: nullable(z.string(), 'Why it was rejected (a stable code); null when accepted'),
  message: nullable(z.string(), 'Why it was rejected, in words; null when accepted'),
  text: z.string(),
  textLength: nullable(z.number(), 'The text\'s length as the platform counts it; null for a platform that cannot be posted to'),
  maxTextLength: nullable(z.number(), 'The platform\'s limit; null for a platform that cannot be posted to'),
  format: nullable(z.enum(['text', 'thread', 'poll', 'document']), 'The post\'s format; null when rejected'),
  parts: nullable(z.number(), 'Posts it goes out as (1 unless a thread); null when rejected'),
  firstComment: nullable(z.boolean(), 'Whether a first comment follows the post; null when rejected'),
  rendering: nullable(
    z.object({
      displayText: z.string().describe('What a LinkedIn reader sees (a mention shows its name)'),
      hashtags: z.array(z.string()).describe('#word at a word start becomes a LinkedIn hashtag (listed without #)'),
      mentions: z.array(z.object({ name: z.string(), urn: z.string() })).describe('@[Name](urn:li:person:… or urn:li:organization:…) becomes a mention'),
    }),
    'LinkedIn only: how the text will render; null for other platforms and when rejected',
  ),
  scheduledFor: nullable(z.string(), 'When it would go out (ISO 8601): with queue: true its account\'s next free slot; null for drafts and when rejected'),
});

const createdLine = z.object({
  id: nullable(z.string(), 'The post id; null when no post was created for this account'),
  accountId: z.string(),
  platform: nullable(z.string(), 'The account\'s platform; null when the account is not one of the person\'s'),
  status: z.enum(['accepted', 'rejected', 'failed']),
  reason: nullable(z.string(), 'Why it was not accepted (a stable code); null when accepted'),
  message: nullable(z.string(), 'Why it was not accepted, in words; null when accepted'),
  settingsUrl: nullable(z.string(), 'Where the person sees and cancels the post; null when none was created'),
});

export const createPostsOutput = {
  mode: z.enum(['preview', 'created']),
  preview: z
    .object({
      campaignId: nullable(z.string(), 'null in a preview: nothing is created yet'),
      draft: z.boolean(),
      publishAt: nullable(z.string(), 'When the posts would go out (ISO 8601); null for drafts and with queue: true (each at its account\'s next free slot)'),
      targets: z.array(previewLine),
      accepted: z.number(),
      rejected: z.number(),
      allowanceUnits: z.number(),
    })
    .optional(),
  campaignId: z.string().optional(),
  posts: z.array(createdLine).optional(),
  replayed: z.boolean().optional().describe('true when this idempotency key had already created these posts: nothing new was created'),
};

const queueSlot = z.object({
  day: z.enum(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']),
  time: z.string().describe('Local wall-clock time, HH:MM, 24-hour'),
});

export const getQueueInput = { accountId: z.string().describe('An account id from list_accounts') };
export const getQueueOutput = {
  accountId: z.string(),
  timeZone: z.string().describe('IANA time zone of the slots'),
  slots: z.array(queueSlot),
  next: z.array(z.object({ scheduledFor: timestamp, local: z.string().describe('The same instant in the queue\'s time zone') })).describe('The next free slots, earliest first'),
};

export const setQueueInput = {
  accountId: z.string().describe('An account id from list_accounts'),
  timeZone: z.string().describe('IANA time zone name, such as Europe/Berlin or America/New_York'),
  slots: z.array(queueSlot).describe('The posting times, 0 to 100; replaces the queue (posts already scheduled keep their times)'),
};
export const setQueueOutput = getQueueOutput;

export const deletePostInput = {
  id: z.string(),
  deleteFromPlatform: z.boolean().optional().describe('true also deletes the live post from the platform (irreversible)'),
};
export const deletePostOutput = {
  object: z.literal('post_deleted'),
  id: z.string(),
  softDeleted: z.boolean(),
  platformDeletionQueuedFor: z.array(z.string()),
};

export const listMediaInput = {
  status: z.enum(['pending', 'processing', 'ready', 'failed']).optional().describe('Only files in this state (ready: the ones a post can use)'),
  limit: z.number().int().optional().describe('1 to 100, default 25'),
  cursor: z.string().optional().describe('nextCursor of the previous page'),
};
const mediaShape = z.object({
  object: z.literal('media'),
  id: z.string().describe('med_...'),
  status: z.enum(['pending', 'processing', 'ready', 'failed']).describe('Only a ready file can be posted; an import is processing until fetched'),
  url: nullable(z.string(), 'Not ready yet (or failed)').describe('Use this in create_posts media'),
  fileName: z.string(),
  contentType: z.string(),
  size: z.number().describe('Bytes; 0 while an import is processing'),
  width: nullable(z.number(), 'Not an image, or not read yet'),
  height: nullable(z.number(), 'Not an image, or not read yet'),
  durationSeconds: nullable(z.number(), 'A video\'s length; null for images and PDFs'),
  pages: nullable(z.number(), 'A PDF\'s pages when they could be read; null otherwise. A PDF goes to LinkedIn as a document post (options.linkedin.documentTitle)'),
  altText: nullable(z.string(), 'No alt text'),
  error: nullable(z.object({ code: z.string(), message: z.string() }), 'Not failed').describe('Why a failed file failed (media_fetch_failed says why an import did)'),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const listMediaOutput = {
  media: z.array(mediaShape),
  nextCursor: nullable(z.string(), 'No more pages'),
};
export const importMediaInput = {
  sourceUrl: z.string().describe('The file\'s public https URL (JPEG, PNG, WebP up to 5 MB, GIF up to 15 MB, MP4 up to 500 MB, PDF up to 100 MB)'),
  fileName: z.string().optional().describe('Its name in the library; by default the URL\'s last segment'),
  altText: z.string().optional().describe('What the image or video shows, for people who cannot see it (up to 1,000 characters)'),
  waitSeconds: z.number().int().min(0).max(25).optional().describe('How long to wait for the import to finish before answering (default 10); then get it with list_media'),
};
export const importMediaOutput = { media: mediaShape };

const confirmField = z
  .boolean()
  .optional()
  .describe('Omit (or false) to get a preview that changes nothing; true to do it after the person agreed to the preview');
const changeKey = z
  .string()
  .describe('A fresh unique key per intended change (e.g. a UUID); send the SAME key when retrying, so the change is never made twice');

export const updatePostInput = {
  id: z.string().describe('A draft, or a scheduled post not yet being sent'),
  text: z.string().optional(),
  media: z.array(z.string()).optional().describe('Replaces the media: URLs from list_media; [] removes them'),
  scheduledFor: z.string().optional().describe('ISO 8601 with a zone, at most 30 days ahead; moves a scheduled post'),
  queue: z
    .boolean()
    .optional()
    .describe('true instead of scheduledFor: moves a scheduled post to the next free slot of its account\'s queue (see get_queue); a draft takes none (publish it with queue: true)'),
  options: platformOptions.optional().describe('Per-platform options, as in create_posts; options.<platform> replaces that platform\'s options whole (thread, poll, first comment included)'),
  idempotencyKey: changeKey,
  confirm: confirmField,
};

export const sendPostInput = {
  id: z.string(),
  scheduledFor: z.string().optional().describe('ISO 8601 with a zone, at most 30 days ahead; omit to send now'),
  idempotencyKey: changeKey,
  confirm: confirmField,
};

/** publish_draft: as sendPostInput, or at the account's next free queue slot (a retry takes none). */
export const publishDraftInput = {
  ...sendPostInput,
  queue: z
    .boolean()
    .optional()
    .describe('true instead of scheduledFor: the draft goes out at the next free slot of its account\'s queue (see get_queue)'),
};

export const postChangeOutput = {
  mode: z.enum(['preview', 'done']),
  post: postShape.describe('In a preview: the post as it would be; once done: as it is now'),
  allowanceUnits: z.number().optional().describe('Plan allowance units it spends (publish_draft: 1; retry_post: usually 0)'),
  replayed: z.boolean().optional().describe('true when this idempotency key had already made this change: nothing new was done'),
};
