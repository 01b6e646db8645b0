/**
 * What a create would do, without doing it (the assistant server's create_posts without
 * `confirm: true`): the same scope check, body rules and per-target verdicts as POST /posts
 * (lib/use-cases/create-targets.ts), plus, per target, the text as its platform counts it.
 * Nothing is written, no idempotency key is claimed and no allowance is spent: the allowance is
 * read (one GetItem), and the accepted targets past what is left are `quota_exceeded`, as the
 * create would answer now (a create in between may still spend the rest first).
 */
import { ApiError, type RejectionReason } from '../domain/errors.js';
import { noTargetAccepted, QUOTA_EXCEEDED_MESSAGE, type PostBatch, type PostResult } from './create-posts.js';
import { PLATFORM_RULES, isPublishablePlatform, textLimitFor } from '../domain/target-rules.js';
import { formatFields } from '../domain/format-rules.js';
import { linkedinRendering, type LinkedinRendering } from '../domain/linkedin-markup.js';
import type { PostFormat } from '../domain/model.js';
import { requireScope } from '../domain/scopes.js';
import type { Caller } from '../domain/caller.js';
import type { Clock } from './ports/clock.js';
import type { QueueStore } from './ports/queues.js';
import { decideTargets, type TargetReads } from './create-targets.js';
import { QUEUE_REJECTION_MESSAGES, QueueChoices } from './queues.js';
import { allowanceCycle, unitsThatFit } from '../domain/allowance.js';
import type { AllowanceReader } from './ports/allowance.js';

export interface PreviewLine {
  accountId: string;
  platform: string | null;
  /** Handle of the account, when it resolved. */
  handle: string | null;
  verdict: 'accepted' | 'rejected';
  reason: RejectionReason | null;
  message: string | null;
  text: string;
  /** The text's length as the platform counts it (X: weighted characters; LinkedIn: UTF-16 units). */
  textLength: number | null;
  maxTextLength: number | null;
  /** The post's format (docs/native-formats.md); null when rejected. */
  format: PostFormat | null;
  /** Parts the post would go out in (1 unless a thread); null when rejected. */
  parts: number | null;
  /** Whether a first comment would follow the post; null when rejected. */
  firstComment: boolean | null;
  /** LinkedIn: how the text will render (what a reader sees, its hashtags and mentions); null elsewhere and when rejected. */
  rendering: LinkedinRendering | null;
  /**
   * ISO time this target would go out: with `queue: true` its account's slot (each target has its
   * own), otherwise the request's time; null for drafts and rejected targets.
   */
  scheduledFor: string | null;
}

export interface PostsPreview {
  /** The request's campaignId; null when a create would generate one. */
  campaignId: string | null;
  draft: boolean;
  /** ISO time the posts would go out (now when not scheduled); null for drafts and with `queue: true`. */
  publishAt: string | null;
  targets: PreviewLine[];
  accepted: number;
  rejected: number;
  /** Allowance units a confirmed create would spend (accepted non-draft targets), if the plan still has them. */
  allowanceUnits: number;
}

export class PreviewPosts {
  constructor(private readonly deps: TargetReads & { clock: Clock; queues: QueueStore; allowance: AllowanceReader }) {}

  /**
   * `scope`: `as_create` (the assistant's create_posts: the scope the create would need) or
   * `write` (POST /posts/preview, beyond-v1.md: writing nothing, it needs no more than write).
   */
  async execute(caller: Caller, body: unknown, scope: 'as_create' | 'write' = 'as_create'): Promise<PostsPreview> {
    const isDraft = typeof body === 'object' && body !== null && (body as { draft?: unknown }).draft === true;
    requireScope(caller, isDraft || scope === 'write' ? 'write' : 'publish');
    const now = this.deps.clock.now();
    const [{ request, decisions: decided }, used] = await Promise.all([
      decideTargets(this.deps, caller, body, now),
      // A draft spends nothing, so its preview reads nothing either.
      isDraft ? 0 : this.deps.allowance.allowanceUsed(caller.userId, allowanceCycle(now)),
    ]);
    // `queue: true`: a target whose account has no free slot is rejected as a create would reject it.
    const choices = request.queue
      ? await QueueChoices.read(this.deps.queues, decided.flatMap(({ verdict }) => (verdict.accepted ? [verdict.accountId] : [])), now)
      : null;
    const publishAt = request.draft || request.queue ? null : (request.scheduledFor ?? now).toISOString();
    const decisions = decided.map(({ verdict, text }) => {
      if (!choices || !verdict.accepted) return { verdict, text, scheduledFor: publishAt };
      const slot = choices.choose(verdict.accountId, now);
      return slot.ok
        ? { verdict, text, scheduledFor: new Date(slot.slot.at).toISOString() }
        : {
            text,
            scheduledFor: null,
            verdict: { accepted: false as const, accountId: verdict.accountId, platform: verdict.platform, reason: slot.reason, message: QUEUE_REJECTION_MESSAGES[slot.reason] },
          };
    });
    // The first accepted targets that fit, in request order, as the create's transaction decides.
    let fitting = request.draft ? Number.POSITIVE_INFINITY : unitsThatFit(decisions.filter(({ verdict }) => verdict.accepted).length, used, caller.user.monthlyPostAllowance);
    const targets = decisions.map(({ verdict, text, scheduledFor }): PreviewLine => {
      if (verdict.accepted && fitting-- <= 0) {
        return {
          accountId: verdict.accountId,
          platform: verdict.platform,
          handle: null,
          verdict: 'rejected',
          reason: 'quota_exceeded',
          message: QUOTA_EXCEEDED_MESSAGE,
          text,
          textLength: null,
          maxTextLength: null,
          format: null,
          parts: null,
          firstComment: null,
          rendering: null,
          scheduledFor: null,
        };
      }
      const format = verdict.accepted ? formatFields(request.options, verdict.platform, null) : null;
      const rules = verdict.platform !== null && isPublishablePlatform(verdict.platform) ? PLATFORM_RULES[verdict.platform] : null;
      // The account's own limit (X Premium: 25,000) once it resolved; the platform's otherwise.
      const limit = rules ? ((verdict.accepted ? textLimitFor(verdict.account) : null) ?? rules.maxTextLength) : null;
      return {
        accountId: verdict.accountId,
        platform: verdict.platform,
        handle: verdict.accepted ? verdict.account.handle : null,
        verdict: verdict.accepted ? 'accepted' : 'rejected',
        reason: verdict.accepted ? null : verdict.reason,
        message: verdict.accepted ? null : verdict.message,
        text,
        // A lower bound already over the limit when counting stopped early (x-text-length.ts).
        textLength: rules && limit !== null ? rules.textLength(text, limit).length : null,
        maxTextLength: limit,
        format: format?.format ?? null,
        parts: format ? format.threadParts.length + 1 : null,
        firstComment: format ? format.firstComment !== null : null,
        rendering: verdict.accepted && verdict.platform === 'linkedin' ? linkedinRendering(text) : null,
        scheduledFor: verdict.accepted ? scheduledFor : null,
      };
    });
    const accepted = targets.filter((line) => line.verdict === 'accepted').length;
    if (targets.length === 0) throw new ApiError('accounts_required', 'accounts must list at least one account id.', { param: 'accounts' });
    return {
      campaignId: request.campaignId,
      draft: request.draft,
      // With `queue: true` each target has its own slot (its line's scheduledFor): no one time for the request.
      publishAt,
      targets,
      accepted,
      rejected: targets.length - accepted,
      allowanceUnits: request.draft ? 0 : accepted,
    };
  }
}

/** A preview batch (POST /posts/preview): a create's post_batch with `id: null` everywhere, and no campaign id made up. */
export interface PreviewBatch extends Omit<PostBatch, 'campaignId' | 'posts'> {
  campaignId: string | null;
  posts: (PostResult & { rendering?: LinkedinRendering; scheduledFor?: string })[];
}

/**
 * The post_batch a create would answer (POST /posts/preview): each target `accepted` or `rejected`
 * with its reason, no ids; when no target would be accepted, the 400 a create gives.
 */
export function previewBatch(preview: PostsPreview): PreviewBatch {
  const posts: PreviewBatch['posts'] = preview.targets.map((line) => ({
    object: 'post_result',
    id: null,
    accountId: line.accountId,
    platform: line.platform,
    status: line.verdict,
    reason: line.reason,
    message: line.message,
    ...(line.rendering !== null ? { rendering: line.rendering } : {}),
    ...(line.scheduledFor !== null ? { scheduledFor: line.scheduledFor } : {}),
  }));
  if (preview.accepted === 0) throw noTargetAccepted(posts);
  return { object: 'post_batch', campaignId: preview.campaignId, posts };
}
