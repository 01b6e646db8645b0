/**
 * What a create would do, without doing it (the assistant server's create_posts without
 * `confirm: true`): the same scope check, body rules and per-target verdicts as POST /posts
 * (lib/use-cases/create-targets.ts), plus, per target, the text as its platform counts it.
 * Nothing is written, no idempotency key is claimed and no allowance is spent; the plan
 * allowance itself is decided only when the posts are written, so the preview says how many
 * units a confirmed create would spend rather than promising them.
 */
import { ApiError } from '../domain/errors.js';
import { PLATFORM_RULES, isPublishablePlatform } from '../domain/target-rules.js';
import { requireScope } from '../domain/scopes.js';
import type { Caller } from '../domain/caller.js';
import type { Clock } from './ports/clock.js';
import { decideTargets, type TargetReads } from './create-targets.js';

export interface PreviewLine {
  accountId: string;
  platform: string | null;
  /** Handle of the account, when it resolved. */
  handle: string | null;
  verdict: 'accepted' | 'rejected';
  reason: string | null;
  message: string | null;
  text: string;
  /** The text's length as the platform counts it (X: weighted characters; LinkedIn: UTF-16 units). */
  textLength: number | null;
  maxTextLength: number | null;
}

export interface PostsPreview {
  draft: boolean;
  /** ISO time the posts would go out (now when not scheduled); null for drafts. */
  publishAt: string | null;
  targets: PreviewLine[];
  accepted: number;
  rejected: number;
  /** Allowance units a confirmed create would spend (accepted non-draft targets), if the plan still has them. */
  allowanceUnits: number;
}

export class PreviewPosts {
  constructor(private readonly deps: TargetReads & { clock: Clock }) {}

  async execute(caller: Caller, body: unknown): Promise<PostsPreview> {
    const isDraft = typeof body === 'object' && body !== null && (body as { draft?: unknown }).draft === true;
    requireScope(caller, isDraft ? 'write' : 'publish');
    const now = this.deps.clock.now();
    const { request, decisions } = await decideTargets(this.deps, caller, body, now);
    const targets = decisions.map(({ verdict, text }): PreviewLine => {
      const rules = verdict.platform !== null && isPublishablePlatform(verdict.platform) ? PLATFORM_RULES[verdict.platform] : null;
      return {
        accountId: verdict.accountId,
        platform: verdict.platform,
        handle: verdict.accepted ? verdict.account.handle : null,
        verdict: verdict.accepted ? 'accepted' : 'rejected',
        reason: verdict.accepted ? null : verdict.reason,
        message: verdict.accepted ? null : verdict.message,
        text,
        // A lower bound already over the limit when counting stopped early (x-text-length.ts).
        textLength: rules ? rules.textLength(text).length : null,
        maxTextLength: rules ? rules.maxTextLength : null,
      };
    });
    const accepted = targets.filter((line) => line.verdict === 'accepted').length;
    if (targets.length === 0) throw new ApiError('accounts_required', 'accounts must list at least one account id.', { param: 'accounts' });
    return {
      draft: request.draft,
      publishAt: request.draft ? null : (request.scheduledFor ?? now).toISOString(),
      targets,
      accepted,
      rejected: targets.length - accepted,
      allowanceUnits: request.draft ? 0 : accepted,
    };
  }
}
