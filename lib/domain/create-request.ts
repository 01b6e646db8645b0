/**
 * Longer than our ~350-line mark on purpose: the first-error-wins order below is one sequence, and
 * splitting it across files would hide the order that makes one body always give one error.
 *
 * The body of POST /posts, checked field by field with valibot into our own error codes
 * (api-v1.md "POST /posts", decisions.md "Create"). Pure: `now` comes in, nothing is read.
 *
 * The checks run in a fixed ORDER and the first failure wins, so one body always gives the same
 * error. The order:
 *
 *   1. invalid_body            body is not a JSON object (param null)
 *   2. invalid_body            a top-level field that the contract does not define (param = that field;
 *                              refusing it beats silently ignoring a typo such as `scheduleFor`, which
 *                              would otherwise publish at once)
 *   3. invalid_body            workspaceId not a string (param workspaceId)
 *   4. invalid_body            campaignId not a string of 1..128 characters (param campaignId)
 *   5. accounts_required       accounts missing, not an array, empty, or an entry not a non-empty string
 *   6. too_many_accounts       more than 25 entries
 *   7. accounts_required       the same id listed twice (one post per account)
 *   8. invalid_text            text present and not a string (null included)
 *   9. invalid_texts           texts not an object (param texts), an entry not a string or keyed by an
 *                              id that is not in `accounts` (param texts.<id>)
 *  10. invalid_media           media not an array of strings (param media), or more than 20 entries
 *                              (no platform takes more, so the request cannot succeed anywhere)
 *  11. invalid_scheduled_for   not a real calendar date-time with a zone
 *  12. scheduled_for_in_past   before `now`
 *  13. scheduled_for_too_far   after now + 30 days (message names the latest accepted time)
 * 13b. invalid_queue           queue not a boolean, or true with scheduledFor or on a draft
 *  14. invalid_option          options not an object, a key that is not a platform we post to, a
 *                              setting unknown, missing or mistyped (param options.<platform>[.<setting>],
 *                              options.x.thread[i].text); invalid_media for a thread part's media
 *                              (native formats; their value rules are per target, format-rules.ts)
 *
 * What needs stored data comes after, in the use case: workspace_required / workspace_not_found,
 * invalid_option for a platform not in the request, media_not_hosted, then the per-target reasons.
 */
import * as v from 'valibot';
import { ApiError, type ErrorCode } from './errors.js';
import { MAX_POLL_CHOICES, MAX_THREAD_PARTS } from './format-rules.js';
import { PUBLISHABLE_PLATFORMS, type PublishablePlatform } from './model.js';

export const MAX_ACCOUNTS_PER_REQUEST = 25;
export const MAX_MEDIA_PER_REQUEST = 20;
export const MAX_CAMPAIGN_ID_LENGTH = 128;
export const SCHEDULING_HORIZON_MS = 30 * 24 * 60 * 60 * 1000;

export const CREATE_BODY_FIELDS = [
  'accounts',
  'text',
  'texts',
  'media',
  'scheduledFor',
  'queue',
  'draft',
  'options',
  'workspaceId',
  'campaignId',
] as const;

/** One further part of an X thread as asked (`options.x.thread[i]`); its media are library URLs. */
export interface ThreadPartRequest {
  text: string;
  media: string[];
}

export interface XPollRequest {
  choices: string[];
  durationMinutes: number;
}

export interface XOptions {
  communityId?: string;
  shareWithFollowers?: boolean;
  thread?: ThreadPartRequest[];
  poll?: XPollRequest;
  firstComment?: string;
}

export interface LinkedInPollRequest {
  question: string;
  choices: string[];
  duration: string;
}

export interface LinkedInOptions {
  poll?: LinkedInPollRequest;
  documentTitle?: string;
  firstComment?: string;
}

/**
 * The validated `options`: only platforms we post to, only their known settings, each of the right
 * JSON type. The rules on their values (lengths, counts, durations) are per target
 * (lib/domain/format-rules.ts): a value of the right type that breaks one rejects the target alone.
 */
export interface PlatformOptions {
  linkedin?: LinkedInOptions;
  x?: XOptions;
}

export interface CreatePostsRequest {
  accounts: string[];
  /** The text for every account without an entry in `texts`; null when not given. */
  text: string | null;
  /** Per-account text; a Map so an id such as `__proto__` is an ordinary key. */
  texts: Map<string, string>;
  media: string[];
  /** null: publish at once (or, for a draft, keep the creation time). */
  scheduledFor: Date | null;
  /** `queue: true`: each target takes its account's earliest free queue slot (never with scheduledFor). */
  queue: boolean;
  /** Exactly `true` in the body; any other value (even "true") is a post that goes out. */
  draft: boolean;
  options: PlatformOptions;
  workspaceId: string | null;
  campaignId: string | null;
}

type JsonObject = Record<string, unknown>;

function isJsonObject(input: unknown): input is JsonObject {
  return typeof input === 'object' && input !== null && !Array.isArray(input);
}

/** Plain words for what was received, for messages ("got null", "got an array"). */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** RFC 3339 / ISO 8601 extended date-time with seconds optional and a mandatory zone. */
const ZONED_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * A real calendar date-time with a zone, as epoch ms; null when the string is not one.
 * Date.parse alone is not enough: it rolls `2027-02-30` over to March 2 and reads a string without a
 * zone as local time, and both must be refused.
 */
export function parseZonedDateTime(value: string): number | null {
  const match = ZONED_DATE_TIME.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zone, sign, zh, zm] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const offsetHours = Number(zh);
    const offsetMins = Number(zm);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  // Milliseconds: the API keeps millisecond precision; finer digits are cut, not rounded up.
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  // Years 0000-0099 are mapped to 1900+ by Date.UTC; a year that far off is refused as in the past anyway.
  return Number.isFinite(utc) ? utc : null;
}

function fail(code: ErrorCode, message: string, param: string | null): never {
  throw new ApiError(code, message, { param });
}

/** Runs one valibot schema; on failure, returns the first issue's path as a dotted param. */
function firstIssue<T extends v.GenericSchema>(schema: T, input: unknown): { path: string[]; input: unknown } | null {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return null;
  const issue = result.issues[0];
  return { path: (issue.path ?? []).map((item) => String(item.key)), input: issue.input };
}

/*
 * The fields and settings allowed under `options`, per platform: their JSON types only. Each
 * schema's message is what the value must be, so a refusal says it in plain words.
 */
const optionString = v.string('a string');
const optionStrings = v.array(optionString, 'an array of strings');
/** A thread part's media: a create's `media` rules and code (invalid_media), not invalid_option. */
const partMedia = v.array(v.string('a URL string'), 'an array of media library URLs');

const threadPartSchema = v.strictObject(
  {
    text: v.optional(optionString, ''),
    media: v.optional(partMedia, () => []),
  },
  'an object such as {"text": "...", "media": []}',
);

const optionsSchema = v.strictObject(
  {
    linkedin: v.optional(
      v.strictObject(
        {
          poll: v.optional(
            v.strictObject(
              { question: optionString, choices: optionStrings, duration: optionString },
              'an object {question, choices, duration}',
            ),
          ),
          documentTitle: v.optional(optionString),
          firstComment: v.optional(optionString),
        },
        'an object of settings',
      ),
    ),
    x: v.optional(
      v.strictObject(
        {
          communityId: v.optional(v.pipe(v.string('a non-empty string'), v.minLength(1, 'a non-empty string'))),
          shareWithFollowers: v.optional(v.boolean('a boolean')),
          thread: v.optional(v.array(threadPartSchema, 'an array of parts such as {"text": "...", "media": []}')),
          poll: v.optional(
            v.strictObject(
              { choices: optionStrings, durationMinutes: v.number('a number') },
              'an object {choices, durationMinutes}',
            ),
          ),
          firstComment: v.optional(optionString),
        },
        'an object of settings',
      ),
    ),
  },
  'an object keyed by platform',
);

/** The keys each object under `options` accepts, by its path with indexes as `[]` (for messages). */
const OPTION_KEYS: Record<string, readonly string[]> = {
  '': PUBLISHABLE_PLATFORMS,
  linkedin: ['poll', 'documentTitle', 'firstComment'],
  'linkedin.poll': ['question', 'choices', 'duration'],
  x: ['communityId', 'shareWithFollowers', 'thread', 'poll', 'firstComment'],
  'x.thread[]': ['text', 'media'],
  'x.poll': ['choices', 'durationMinutes'],
};

const knownFieldsSchema = v.strictObject(
  Object.fromEntries(CREATE_BODY_FIELDS.map((field) => [field, v.optional(v.unknown())])) as Record<
    (typeof CREATE_BODY_FIELDS)[number],
    v.OptionalSchema<v.UnknownSchema, undefined>
  >,
);

const campaignIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_CAMPAIGN_ID_LENGTH));
const stringArray = v.array(v.string());

export function parseCreatePostsBody(body: unknown, now: Date): CreatePostsRequest {
  // 1. The body itself.
  if (!isJsonObject(body)) fail('invalid_body', `The request body must be a JSON object; got ${describeJson(body)}.`, null);

  // 2. Unknown top-level fields.
  const unknownField = firstIssue(knownFieldsSchema, body);
  if (unknownField) {
    const field = unknownField.path[0] ?? '';
    fail('invalid_body', `Unknown field \`${field}\`. Allowed fields: ${CREATE_BODY_FIELDS.join(', ')}.`, field);
  }

  // 3-4. workspaceId, campaignId.
  if (body.workspaceId !== undefined && typeof body.workspaceId !== 'string') {
    fail('invalid_body', `workspaceId must be a string; got ${describeJson(body.workspaceId)}.`, 'workspaceId');
  }
  if (body.campaignId !== undefined && firstIssue(campaignIdSchema, body.campaignId)) {
    fail(
      'invalid_body',
      typeof body.campaignId === 'string'
        ? `campaignId must be 1 to ${MAX_CAMPAIGN_ID_LENGTH} characters long.`
        : `campaignId must be a string; got ${describeJson(body.campaignId)}.`,
      'campaignId',
    );
  }

  // 5-7. accounts.
  const accounts = checkAccounts(body.accounts);

  // 8. text.
  if (body.text !== undefined && typeof body.text !== 'string') {
    fail('invalid_text', `text must be a string; got ${describeJson(body.text)}.`, 'text');
  }

  // 9. texts.
  const texts = checkTexts(body.texts, accounts);

  // 10. media.
  const media = checkMedia(body.media);

  // 11-13. scheduledFor.
  const scheduledFor = checkScheduledFor(body.scheduledFor, now);
  const queue = checkQueue(body.queue, { scheduledFor: body.scheduledFor, draft: body.draft });

  // 14. options (shape only; platform-in-request needs the resolved accounts).
  const options = checkOptions(body.options);

  return {
    accounts,
    text: typeof body.text === 'string' ? body.text : null,
    texts,
    media,
    scheduledFor,
    queue,
    draft: body.draft === true,
    options,
    workspaceId: typeof body.workspaceId === 'string' ? body.workspaceId : null,
    campaignId: typeof body.campaignId === 'string' ? body.campaignId : null,
  };
}

/**
 * `queue`: a boolean; true instead of scheduledFor (both: invalid_queue), and not on a draft, which
 * takes its slot when it is published with `queue: true`.
 */
export function checkQueue(value: unknown, others: { scheduledFor: unknown; draft: unknown }): boolean {
  if (value === undefined || value === false) return false;
  if (value !== true) fail('invalid_queue', `queue must be true or false; got ${describeJson(value)}.`, 'queue');
  if (others.scheduledFor !== undefined && others.scheduledFor !== null) {
    fail('invalid_queue', 'Give either queue: true or scheduledFor, not both.', 'queue');
  }
  if (others.draft === true) fail('invalid_queue', 'A draft takes no queue slot; publish it with queue: true.', 'queue');
  return true;
}

function checkAccounts(value: unknown): string[] {
  const required = (message: string): never => fail('accounts_required', message, 'accounts');
  if (value === undefined) required('accounts is required: list the ids of the accounts to post to.');
  const issue = firstIssue(stringArray, value);
  if (issue) {
    if (!Array.isArray(value)) required(`accounts must be an array of account ids; got ${describeJson(value)}.`);
    required(`accounts[${issue.path[0] ?? '?'}] must be an account id string; got ${describeJson(issue.input)}.`);
  }
  const accounts = value as string[];
  if (accounts.length === 0) required('accounts is empty: list at least one account id.');
  const empty = accounts.findIndex((id) => id.length === 0);
  if (empty >= 0) required(`accounts[${empty}] is an empty string; expected an account id.`);
  if (accounts.length > MAX_ACCOUNTS_PER_REQUEST) {
    fail(
      'too_many_accounts',
      `accounts lists ${accounts.length} ids; at most ${MAX_ACCOUNTS_PER_REQUEST} are allowed per request.`,
      'accounts',
    );
  }
  const seen = new Set<string>();
  for (const id of accounts) {
    if (seen.has(id)) required(`accounts lists ${JSON.stringify(id)} more than once; one post is made per account.`);
    seen.add(id);
  }
  return [...accounts];
}

function checkTexts(value: unknown, accounts: string[]): Map<string, string> {
  const texts = new Map<string, string>();
  if (value === undefined) return texts;
  if (!isJsonObject(value)) {
    fail('invalid_texts', `texts must be an object of strings keyed by account id; got ${describeJson(value)}.`, 'texts');
  }
  const requested = new Set(accounts);
  // Object.entries sees own properties only, `__proto__` included, so nothing slips past.
  for (const [id, text] of Object.entries(value)) {
    if (typeof text !== 'string') {
      fail('invalid_texts', `texts.${id} must be a string; got ${describeJson(text)}.`, `texts.${id}`);
    }
    if (!requested.has(id)) {
      fail('invalid_texts', `texts.${id} names an account that is not in accounts.`, `texts.${id}`);
    }
    texts.set(id, text);
  }
  return texts;
}

/** Also a PATCH's field rule (lib/domain/post-changes.ts): one rule in one place. */
export function checkMedia(value: unknown): string[] {
  if (value === undefined) return [];
  // The count first: a longer list is refused by it alone, without reading its entries.
  if (Array.isArray(value) && value.length > MAX_MEDIA_PER_REQUEST) {
    fail('invalid_media', `media lists ${value.length} files; no platform accepts more than ${MAX_MEDIA_PER_REQUEST}.`, 'media');
  }
  const issue = firstIssue(stringArray, value);
  if (issue) {
    fail(
      'invalid_media',
      Array.isArray(value)
        ? `media[${issue.path[0] ?? '?'}] must be a URL string; got ${describeJson(issue.input)}.`
        : `media must be an array of media library URLs; got ${describeJson(value)}.`,
      'media',
    );
  }
  return [...(value as string[])];
}

/** Also a PATCH's field rule (lib/domain/post-changes.ts): one rule in one place. */
export function checkScheduledFor(value: unknown, now: Date): Date | null {
  if (value === undefined) return null;
  const millis = typeof value === 'string' ? parseZonedDateTime(value) : null;
  if (millis === null) {
    fail(
      'invalid_scheduled_for',
      typeof value === 'string'
        ? 'scheduledFor must be an ISO 8601 date and time with a zone, such as 2026-11-21T09:30:00Z or 2026-11-21T10:30:00+01:00.'
        : `scheduledFor must be an ISO 8601 string; got ${describeJson(value)}.`,
      'scheduledFor',
    );
  }
  if (millis < now.getTime()) {
    fail('scheduled_for_in_past', `scheduledFor ${new Date(millis).toISOString()} is in the past.`, 'scheduledFor');
  }
  const latest = now.getTime() + SCHEDULING_HORIZON_MS;
  if (millis > latest) {
    fail(
      'scheduled_for_too_far',
      `scheduledFor is more than 30 days ahead; the latest accepted time is ${new Date(latest).toISOString()}.`,
      'scheduledFor',
    );
  }
  return new Date(millis);
}

/** `value` with its array at `key` cut to `max + 1` entries, when it is an object holding a longer one. */
function boundedList(value: unknown, key: string, max: number): unknown {
  if (!isJsonObject(value) || !Array.isArray(value[key]) || value[key].length <= max + 1) return value;
  return { ...value, [key]: value[key].slice(0, max + 1) };
}

/**
 * The arrays under `options` longer than any platform accepts, bounded before their JSON types are
 * checked: a body's size alone lets one hold tens of thousands of entries, which would each be
 * checked before their count refused them.
 * - A thread or a poll's choices is rejected by its length alone (format-rules.ts: invalid_thread,
 *   invalid_poll), so only its first entries past the most accepted are checked and kept (the rule's
 *   message then says "more than" that most).
 * - A thread part's media are refused invalid_media by their count here, at once, as the create's
 *   own `media` are.
 */
function boundedOptions(options: JsonObject): JsonObject {
  const bounded: JsonObject = { ...options };
  if (isJsonObject(options.x)) {
    const x: JsonObject = boundedList(options.x, 'thread', MAX_THREAD_PARTS) as JsonObject;
    const thread: unknown = x.thread;
    if (Array.isArray(thread)) {
      thread.forEach((part: unknown, index) => {
        if (isJsonObject(part) && Array.isArray(part.media)) checkPartMediaCount(part.media.length, index);
      });
    }
    bounded.x = x.poll === undefined ? x : { ...x, poll: boundedList(x.poll, 'choices', MAX_POLL_CHOICES) };
  }
  if (isJsonObject(options.linkedin) && options.linkedin.poll !== undefined) {
    bounded.linkedin = { ...options.linkedin, poll: boundedList(options.linkedin.poll, 'choices', MAX_POLL_CHOICES) };
  }
  return bounded;
}

function checkPartMediaCount(count: number, index: number): void {
  if (count > MAX_MEDIA_PER_REQUEST) {
    fail(
      'invalid_media',
      `options.x.thread[${index}].media lists ${count} files; no platform accepts more than ${MAX_MEDIA_PER_REQUEST}.`,
      `options.x.thread[${index}].media`,
    );
  }
}

/** `options.x.thread[2].media` from a valibot path (numbers are array indexes). */
function optionParam(path: readonly (string | number)[]): string {
  return path.reduce<string>((param, key) => (typeof key === 'number' ? `${param}[${key}]` : `${param}.${key}`), 'options');
}

/**
 * Also a PATCH's and a preview's field rule (lib/domain/post-changes.ts): one rule in one place.
 * invalid_option names the key (unknown, missing or of the wrong JSON type); a thread part's media
 * give invalid_media as a create's `media` would.
 */
export function checkOptions(value: unknown): PlatformOptions {
  if (value === undefined) return {};
  if (!isJsonObject(value)) {
    fail('invalid_option', `options must be an object keyed by platform; got ${describeJson(value)}.`, 'options');
  }
  const result = v.safeParse(optionsSchema, boundedOptions(value), { abortEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const path = (issue.path ?? []).map((item) => (typeof item.key === 'number' ? item.key : String(item.key)));
    const param = optionParam(path);
    const isPartMedia = path[1] === 'thread' && path[3] === 'media';
    if (issue.type === 'strict_object' && issue.expected !== 'Object' && issue.input === undefined) {
      fail('invalid_option', `${param} is required.`, param);
    }
    if (issue.type === 'strict_object' && issue.expected !== 'Object') {
      // The last key is one the object does not define.
      const owner = path.slice(0, -1).map((key) => (typeof key === 'number' ? '[]' : key)).join('.').replace(/\.\[\]/g, '[]');
      const accepted = OPTION_KEYS[owner] ?? [];
      const what = owner === '' ? 'options are keyed by platform' : `not a setting of options.${owner.replace('[]', '[i]')}`;
      fail('invalid_option', `${param}: ${what} (accepted: ${accepted.join(', ') || 'none'}).`, param);
    }
    const got = issue.input === undefined ? 'it is missing' : `got ${describeJson(issue.input)}`;
    fail(isPartMedia ? 'invalid_media' : 'invalid_option', `${param} must be ${issue.message}; ${got}.`, param);
  }
  return result.output;
}

/**
 * invalid_option for a platform not in the request. "In the request" means: the platform of an
 * account that resolved (exists, is the caller's, is in the request's workspace). An id that did
 * not resolve has no platform, so `options.x` beside an unresolved X account id is refused too:
 * nothing is written and the caller fixes the id or the options.
 */
export function checkOptionPlatforms(options: PlatformOptions, platformsInRequest: ReadonlySet<string>): void {
  for (const platform of Object.keys(options) as PublishablePlatform[]) {
    if (!platformsInRequest.has(platform)) {
      fail(
        'invalid_option',
        `options.${platform} is set but no account in this request is on ${platform}.`,
        `options.${platform}`,
      );
    }
  }
}
