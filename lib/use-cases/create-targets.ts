/**
 * Steps 3 and 4 of a create (lib/use-cases/create-posts.ts), shared with the assistant server's
 * preview (lib/use-cases/preview-posts.ts) so a preview says exactly what a create would decide:
 * the body rules, the workspace, options against the platforms of the resolved accounts, the
 * caller's media, then one verdict per target. Reads only; writes nothing.
 */
import { checkOptionPlatforms, parseCreatePostsBody, type CreatePostsRequest, type PlatformOptions } from '../domain/create-request.js';
import { ApiError, type RejectionReason } from '../domain/errors.js';
import { mediaIdFromUrl } from '../domain/media-library.js';
import type { MediaItem, Post } from '../domain/model.js';
import { evaluateTarget, resolvesTo, type TargetVerdict } from '../domain/target-rules.js';
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

  const media = await hostedMedia(deps, caller, request.media);
  const decisions = request.accounts.map((accountId) => {
    const text = request.texts.get(accountId) ?? request.text ?? '';
    return { text, verdict: evaluateTarget({ accountId, account: accounts.get(accountId), userId: caller.userId, workspaceId, text, media }) };
  });
  return { request, media, decisions };
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

/** The caller's library items behind the media URLs, in request order; media_not_hosted otherwise. */
async function hostedMedia(deps: Pick<TargetReads, 'media' | 'mediaBaseUrl'>, caller: Caller, urls: string[]): Promise<MediaItem[]> {
  if (urls.length === 0) return [];
  const ids = urls.map((url) => mediaIdFromUrl(url, deps.mediaBaseUrl));
  const notHosted = (index: number): never => {
    throw new ApiError(
      'media_not_hosted',
      `media[${index}] is not a file of your media library; upload it there first and use the URL it gives.`,
      { param: 'media' },
    );
  };
  const firstForeign = ids.findIndex((id) => id === null || id.length > MAX_ACCOUNT_ID_LENGTH);
  if (firstForeign >= 0) notHosted(firstForeign);
  const items = await deps.media.getMediaItems([...new Set(ids as string[])]);
  return urls.map((url, index) => {
    const item = items.get(ids[index] ?? '');
    // Another user's file, or a URL that only looks like one of ours, is not in the caller's library.
    if (!item || item.userId !== caller.userId || item.url !== url) return notHosted(index);
    return item;
  });
}

/** What decideStoredTarget reads: the media base URL only for a change of media (PATCH). */
export type StoredTargetReads = Pick<TargetReads, 'accounts' | 'media'> & { mediaBaseUrl?: string };

/**
 * The per-target rules of a create applied to one stored post as a change would leave it (PATCH,
 * and publish and retry, which send it as it is): the caller's media for `media` when given
 * (media_not_hosted otherwise), options only for the post's own platform, then the post's
 * account and content through evaluateTarget. A rejection is the 400 a create that accepted
 * nothing gives, with the target's reason as its code. Returns the media items of a new `media`
 * (null when it is not changed). Reads only.
 */
export async function decideStoredTarget(
  deps: StoredTargetReads,
  caller: Caller,
  post: Post,
  change: { text: string | null; media: string[] | null; options: PlatformOptions | null },
): Promise<{ media: MediaItem[] | null }> {
  if (change.options !== null) checkOptionPlatforms(change.options, new Set([post.platform]));
  const { mediaBaseUrl } = deps;
  if (change.media !== null && mediaBaseUrl === undefined) throw new Error('Changing media needs the media base URL');
  const media = change.media === null || mediaBaseUrl === undefined ? null : await hostedMedia({ media: deps.media, mediaBaseUrl }, caller, change.media);
  const [account, stored] = await Promise.all([
    deps.accounts.getAccount(post.accountId),
    media === null && post.mediaIds.length > 0 ? deps.media.getMediaItems(post.mediaIds) : Promise.resolve(new Map<string, MediaItem>()),
  ]);
  // A stored file removed from the library since is left to the worker (failed, media_gone), as for any post.
  const items = media ?? post.mediaIds.flatMap((id) => stored.get(id) ?? []);
  const verdict = evaluateTarget({
    accountId: post.accountId,
    account: account ?? undefined,
    userId: caller.userId,
    workspaceId: post.workspaceId,
    text: change.text ?? post.text,
    media: items,
  });
  if (!verdict.accepted) throw new ApiError(verdict.reason, verdict.message, { status: 400, param: paramOf(verdict.reason) });
  return { media };
}

function paramOf(reason: RejectionReason): string {
  if (reason === 'text_empty' || reason === 'text_too_long') return 'text';
  if (reason === 'unsupported_media' || reason === 'video_too_long' || reason === 'media_required') return 'media';
  return 'accountId';
}
