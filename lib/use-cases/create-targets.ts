/**
 * Steps 3 and 4 of a create (lib/use-cases/create-posts.ts), shared with the assistant server's
 * preview (lib/use-cases/preview-posts.ts) so a preview says exactly what a create would decide:
 * the body rules, the workspace, options against the platforms of the resolved accounts, the
 * caller's media (the post's and an X thread's parts', in one batch read), then one verdict per
 * target, native formats included (lib/domain/format-rules.ts). Reads only; writes nothing.
 */
import { checkOptionPlatforms, parseCreatePostsBody, type CreatePostsRequest, type PlatformOptions } from '../domain/create-request.js';
import { ApiError, type RejectionReason } from '../domain/errors.js';
import { mediaIdFromUrl } from '../domain/media-library.js';
import type { MediaItem, Post } from '../domain/model.js';
import { evaluateTarget, resolvesTo, type TargetVerdict } from '../domain/target-rules.js';
import { MAX_THREAD_PARTS, storedOptions } from '../domain/format-rules.js';
import type { Caller } from '../domain/caller.js';
import type { AccountReader } from './ports/accounts.js';
import type { MediaReader } from './ports/media.js';
import type { WorkspaceReader } from './ports/workspaces.js';

/** The longest account id looked up; anything longer cannot be an id and is simply unresolved. */
const MAX_ACCOUNT_ID_LENGTH = 256;

export interface TargetReads {
  accounts: AccountReader;
  workspaces: WorkspaceReader;
  media: MediaReader;
  /** MEDIA_BASE_URL: media URLs of the caller's library start with it. */
  mediaBaseUrl: string;
}

export interface TargetDecision {
  verdict: TargetVerdict;
  /** The text this target gets (texts[id] ?? text ?? ""). */
  text: string;
}

export interface DecidedTargets {
  request: CreatePostsRequest;
  media: MediaItem[];
  /** Each X thread part's media items, in part order; null without a thread (or one too long to look at). */
  threadMedia: MediaItem[][] | null;
  /** One per entry of `accounts`, in request order. */
  decisions: TargetDecision[];
}

export async function decideTargets(deps: TargetReads, caller: Caller, body: unknown, now: Date): Promise<DecidedTargets> {
  const request = parseCreatePostsBody(body, now);
  const workspaceId = await workspaceOf(deps, caller, request.workspaceId);

  const lookup = [...new Set(request.accounts.filter((id) => id.length <= MAX_ACCOUNT_ID_LENGTH))];
  const accounts = await deps.accounts.getAccounts(lookup);
  const platformsInRequest = new Set<string>();
  for (const id of request.accounts) {
    const account = accounts.get(id);
    if (resolvesTo(account, caller.userId, workspaceId)) platformsInRequest.add(account.platform);
  }
  checkOptionPlatforms(request.options, platformsInRequest);

  const [media, ...threadMedia] = await hostedMedia(deps, caller, [{ urls: request.media, param: 'media' }, ...threadMediaGroups(request.options)]);
  const thread = request.options.x?.thread;
  const partsMedia = thread === undefined || thread.length > MAX_THREAD_PARTS ? null : threadMedia;
  const decisions = request.accounts.map((accountId) => {
    const text = request.texts.get(accountId) ?? request.text ?? '';
    const verdict = evaluateTarget({
      accountId,
      account: accounts.get(accountId),
      userId: caller.userId,
      workspaceId,
      text,
      media: media ?? [],
      options: request.options,
      threadMedia: partsMedia,
    });
    return { text, verdict };
  });
  return { request, media: media ?? [], threadMedia: partsMedia, decisions };
}

/**
 * The media of each X thread part to look up, as groups after the post's own. A thread of more
 * parts than a thread may have is rejected for every X target without looking at its parts, so its
 * media are not looked up at all: the work stays bounded by MAX_THREAD_PARTS × 20 files.
 */
function threadMediaGroups(options: PlatformOptions): MediaGroup[] {
  const thread = options.x?.thread;
  if (thread === undefined || thread.length > MAX_THREAD_PARTS) return [];
  return thread.map((part, index) => ({ urls: part.media, param: `options.x.thread[${index}].media` }));
}

/** The workspace of the request (workspace_required / workspace_not_found); null when the caller owns none. */
async function workspaceOf(deps: TargetReads, caller: Caller, requested: string | null): Promise<string | null> {
  const owned = caller.user.workspaceIds;
  if (requested === null) {
    if (owned.length > 1) {
      throw new ApiError('workspace_required', 'You own several workspaces: say which one with workspaceId.', { param: 'workspaceId' });
    }
    return owned[0] ?? null;
  }
  if (owned.includes(requested)) return requested;
  // The user record may be up to a minute old (key cache): a workspace created since is read fresh.
  const workspace = requested.length <= MAX_ACCOUNT_ID_LENGTH ? await deps.workspaces.getWorkspace(requested) : null;
  if (workspace?.userId === caller.userId) return requested;
  throw new ApiError('workspace_not_found', 'No workspace with this id is owned by the caller.', { param: 'workspaceId' });
}

/** Media URLs given in one place of a request (`media`, or a thread part's), named by `param`. */
interface MediaGroup {
  urls: readonly string[];
  param: string;
}

/**
 * The caller's library items behind each group's media URLs, in request order (one batch read for
 * all of them); media_not_hosted, naming the first URL that is not one, otherwise.
 */
async function hostedMedia(deps: Pick<TargetReads, 'media' | 'mediaBaseUrl'>, caller: Caller, groups: MediaGroup[]): Promise<MediaItem[][]> {
  if (groups.every((group) => group.urls.length === 0)) return groups.map(() => []);
  const ids = groups.map((group) => group.urls.map((url) => mediaIdFromUrl(url, deps.mediaBaseUrl)));
  const notHosted = (group: MediaGroup, index: number): never => {
    throw new ApiError(
      'media_not_hosted',
      `${group.param}[${index}] is not a file of your media library; upload it there first and use the URL it gives.`,
      { param: group.param },
    );
  };
  groups.forEach((group, at) => {
    const firstForeign = (ids[at] ?? []).findIndex((id) => id === null || id.length > MAX_ACCOUNT_ID_LENGTH);
    if (firstForeign >= 0) notHosted(group, firstForeign);
  });
  const items = await deps.media.getMediaItems([...new Set(ids.flat() as string[])]);
  return groups.map((group, at) =>
    group.urls.map((url, index) => {
      const item = items.get(ids[at]?.[index] ?? '');
      // Another user's file, or a URL that only looks like one of ours, is not in the caller's library.
      if (!item || item.userId !== caller.userId || item.url !== url) return notHosted(group, index);
      return item;
    }),
  );
}

/** What decideStoredTarget reads: the media base URL only for a change of media or options (PATCH). */
export type StoredTargetReads = Pick<TargetReads, 'accounts' | 'media'> & { mediaBaseUrl?: string };

/** What a change brings of its own: the media items of a new `media`, and of a new thread's parts (null: not changed). */
export interface StoredTargetDecision {
  media: MediaItem[] | null;
  threadMedia: MediaItem[][] | null;
}

/**
 * The per-target rules of a create applied to one stored post as a change would leave it (PATCH,
 * and publish and retry, which send it as it is): the caller's media for `media` and for a new
 * thread's parts when given (media_not_hosted otherwise), options only for the post's own
 * platform, then the post's account, content and format through evaluateTarget (options not
 * changed are judged as stored, thread and first comment included). A rejection is the 400 a
 * create that accepted nothing gives, with the target's reason as its code. Reads only.
 */
export async function decideStoredTarget(
  deps: StoredTargetReads,
  caller: Caller,
  post: Post,
  change: { text: string | null; media: string[] | null; options: PlatformOptions | null },
): Promise<StoredTargetDecision> {
  if (change.options !== null) checkOptionPlatforms(change.options, new Set([post.platform]));
  const { mediaBaseUrl } = deps;
  const groups: MediaGroup[] = [
    ...(change.media === null ? [] : [{ urls: change.media, param: 'media' }]),
    ...(change.options === null ? [] : threadMediaGroups(change.options)),
  ];
  if (groups.length > 0 && mediaBaseUrl === undefined) throw new Error('Changing media or options needs the media base URL');
  const resolved = groups.length === 0 || mediaBaseUrl === undefined ? [] : await hostedMedia({ media: deps.media, mediaBaseUrl }, caller, groups);
  const media = change.media === null ? null : (resolved[0] ?? []);
  const newThreadMedia = change.media === null ? resolved : resolved.slice(1);

  // What stays as stored is read back from the library: the post's media, its thread parts' media.
  const storedIds = [
    ...(media === null ? post.mediaIds : []),
    ...(change.options === null ? post.threadParts.flatMap((part) => part.mediaIds) : []),
  ];
  const [account, stored] = await Promise.all([
    deps.accounts.getAccount(post.accountId),
    storedIds.length > 0 ? deps.media.getMediaItems(storedIds) : Promise.resolve(new Map<string, MediaItem>()),
  ]);
  // A stored file removed from the library since is left to the worker (failed, media_gone), as for any post.
  const storedItems = (ids: readonly string[]): MediaItem[] => ids.flatMap((id) => stored.get(id) ?? []);
  const options = change.options ?? storedOptions(post);
  const thread = options.x?.thread;
  const threadMedia =
    change.options === null
      ? post.threadParts.map((part) => storedItems(part.mediaIds))
      : thread === undefined || thread.length > MAX_THREAD_PARTS
        ? null
        : newThreadMedia;
  const verdict = evaluateTarget({
    accountId: post.accountId,
    account: account ?? undefined,
    userId: caller.userId,
    workspaceId: post.workspaceId,
    text: change.text ?? post.text,
    media: media ?? storedItems(post.mediaIds),
    options,
    threadMedia,
  });
  if (!verdict.accepted) throw new ApiError(verdict.reason, verdict.message, { status: 400, param: paramOf(verdict.reason, post.platform) });
  return { media, threadMedia: change.options === null ? null : threadMedia };
}

function paramOf(reason: RejectionReason, platform: string): string {
  if (reason === 'text_empty' || reason === 'text_too_long') return 'text';
  if (reason === 'unsupported_media' || reason === 'video_too_long' || reason === 'media_required') return 'media';
  if (reason === 'invalid_thread') return 'options.x.thread';
  if (reason === 'invalid_poll') return `options.${platform}.poll`;
  if (reason === 'invalid_document') return 'options.linkedin.documentTitle';
  if (reason === 'invalid_first_comment') return `options.${platform}.firstComment`;
  return 'accountId';
}
